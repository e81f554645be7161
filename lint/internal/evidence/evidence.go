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
	Message  string // the diagnostic, as go vet prints it
	// What, Because and Notes are the parts Message was composed from,
	// when the analyzer gave them apart (analysisutil.ReportParts): the
	// driver makes them the finding's, so that its headline is What alone.
	What, Because string
	Notes         []string
}

// Parts returns a finding's parts from the report matching the diagnostic
// at pos with message msg, and false when the analyzer gave none.
func (r *Result) Parts(pos token.Pos, msg string) (Report, bool) {
	if r == nil {
		return Report{}, false
	}
	for _, rep := range r.Reports {
		if rep.Pos == pos && rep.Message == msg && rep.What != "" {
			return rep, true
		}
	}
	return Report{}, false
}

// Apply sets f's headline, cause and notes from rep, in place of the
// diagnostic's one-line message.
func (rep Report) Apply(f *finding.Finding) {
	f.What, f.Because, f.Message = rep.What, rep.Because, ""
	for _, n := range rep.Notes {
		f.Note(finding.NoteQualifier, n)
	}
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
