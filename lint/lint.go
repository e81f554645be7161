// Package lint holds schedoctor's code analyzers (rules SD1xx), one package
// per rule, and Analyzers, the list every driver runs: `schedoctor lint`,
// `schedoctor-vet` (go vet -vettool) and the golangci-lint plugin.
package lint

import "golang.org/x/tools/go/analysis"

// Analyzers is every schedoctor analyzer, in rule order.
var Analyzers = []*analysis.Analyzer{}
