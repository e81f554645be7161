// Package evidence carries the numbers behind a lint diagnostic from an
// analyzer to the finding that `schedoctor lint` reports.
//
// A Diagnostic has only a message; every schedoctor analyzer therefore
// returns a *Result from its run (Analyzer.ResultType = ResultType), holding
// the evidence of each diagnostic keyed by the diagnostic's Pos. The lint
// driver reads the results from the checker's action graph. Drivers that
// know nothing of it (go vet, golangci-lint) simply ignore the result.
package evidence

import (
	"go/token"
	"reflect"

	"github.com/schedoctor/schedoctor/finding"
)

// Result is the value every schedoctor analyzer's run returns.
type Result struct {
	ByPos map[token.Pos][]finding.Evidence
	// Reports are the diagnostics the analyzer reported, in order: the
	// node each one is about and its rule. An analyzer's dependants cannot
	// see its diagnostics (go/analysis hands them to the driver only);
	// lint/loops reads them here to give each loop the verdict the rule
	// analyzers reached on it.
	Reports []Report
}

// Report is one diagnostic as its dependants see it.
type Report struct {
	Pos, End token.Pos // the node reported
	Rule     string    // "SD101"
	Severity finding.Severity
	Message  string
}

// ResultType is the Analyzer.ResultType of every schedoctor analyzer.
var ResultType = reflect.TypeOf((*Result)(nil))

// Reported records a diagnostic for the analyzer's dependants.
func (r *Result) Reported(rep Report) {
	r.Reports = append(r.Reports, rep)
}

// Add records evidence for the diagnostic reported at pos.
func (r *Result) Add(pos token.Pos, ev ...finding.Evidence) {
	if r.ByPos == nil {
		r.ByPos = map[token.Pos][]finding.Evidence{}
	}
	r.ByPos[pos] = append(r.ByPos[pos], ev...)
}
