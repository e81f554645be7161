// Package lint holds schedoctor's code analyzers (rules SD1xx), one package
// per rule, and Analyzers, the list every driver runs: `schedoctor lint`
// (package lint/driver), `schedoctor-vet` (go vet -vettool) and the
// golangci-lint plugin.
//
// This package is the registry only: it imports the analyzers and what they
// need, never a driver (go/packages, go/analysis/checker, os/exec), so that
// the golangci-lint plugin and the vet tool, which bring their own driver,
// do not carry schedoctor's. TestRegistryImports keeps it so; the driver
// that loads packages, runs go vet and applies fixes is lint/driver.
package lint

import (
	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/goroutinethrottle"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
	"github.com/schedoctor/schedoctor/lint/spinwait"
	"github.com/schedoctor/schedoctor/lint/tickerleak"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

// Analyzers is every schedoctor analyzer, in rule order: SD101 busyselect,
// SD102 sleeppoll, SD103 goroutinethrottle, SD104 timerloop, SD105
// tickerleak, SD106 spinwait. Each sets Diagnostic.Category to its rule ID
// (with a per-finding severity where it differs from the catalog's; see
// SplitCategory) and returns a *evidence.Result. lint/loops, which reports
// nothing, turns the loop rules' findings into one verdict per loop for
// the runtime layers (lint/inspect): the code is judged once.
var Analyzers = []*analysis.Analyzer{
	busyselect.Analyzer,
	sleeppoll.Analyzer,
	goroutinethrottle.Analyzer,
	timerloop.Analyzer,
	tickerleak.Analyzer,
	spinwait.Analyzer,
}

// SplitCategory reads the Diagnostic.Category of a schedoctor analyzer:
// the rule ID, then the finding's severity. The category is the rule ID
// alone ("SD104") when the finding has the catalog's severity for the
// rule, or the rule ID, "/" and the severity ("SD104/info") when the
// analyzer measured another cost for this finding (a dropped timer that the
// module's go line lets the runtime collect costs an allocation, not a
// leak). Category is the field every driver carries: the checker, go vet's
// -json output, golangci-lint. An unknown rule without a severity is a
// warning. explicit reports that the category named the severity.
func SplitCategory(category string) (rule string, sev finding.Severity, explicit bool) {
	return analysisutil.SplitCategory(category)
}
