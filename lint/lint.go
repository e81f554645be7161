// Package lint holds schedoctor's code analyzers (rules SD1xx), one package
// per rule, and Analyzers, the list every driver runs: `schedoctor lint`,
// `schedoctor-vet` (go vet -vettool) and the golangci-lint plugin.
package lint

import (
	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/goroutinethrottle"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
	"github.com/schedoctor/schedoctor/lint/spinwait"
	"github.com/schedoctor/schedoctor/lint/tickerleak"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

// Analyzers is every schedoctor analyzer, in rule order: SD101 busyselect,
// SD102 sleeppoll, SD103 goroutinethrottle, SD104 timerloop, SD105
// tickerleak, SD106 spinwait. Each sets Diagnostic.Category to its rule ID
// and returns a *evidence.Result.
var Analyzers = []*analysis.Analyzer{
	busyselect.Analyzer,
	sleeppoll.Analyzer,
	goroutinethrottle.Analyzer,
	timerloop.Analyzer,
	tickerleak.Analyzer,
	spinwait.Analyzer,
}
