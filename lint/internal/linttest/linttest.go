// Package linttest runs a schedoctor analyzer under analysistest and checks
// what analysistest does not: that every diagnostic carries the rule ID as
// its Category and at least one number in the analyzer's evidence.Result,
// keyed by the diagnostic's position, as the lint driver expects.
package linttest

import (
	"go/token"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Diagnostic is a reported diagnostic with its evidence, by label.
type Diagnostic struct {
	Pos      token.Position
	Message  string
	Severity finding.Severity // the catalog's, or the one the Category names
	Evidence map[string]float64
}

// Run is analysistest.Run (or RunWithSuggestedFixes when fixes is set)
// plus the contract checks. It returns the diagnostics, so a test can
// insist that a testdata package produced some, and check their numbers.
func Run(t *testing.T, dir string, a *analysis.Analyzer, rule string, fixes bool, patterns ...string) []Diagnostic {
	t.Helper()
	run := analysistest.Run
	if fixes {
		run = analysistest.RunWithSuggestedFixes
	}
	var diags []Diagnostic
	for _, r := range run(t, dir, a, patterns...) {
		if r.Err != nil {
			continue // analysistest reported it
		}
		res, ok := r.Result.(*evidence.Result)
		if !ok || res == nil {
			t.Errorf("%s on %s returned %T, want *evidence.Result", a.Name, r.Pass.Pkg.Path(), r.Result)
			continue
		}
		for _, d := range r.Diagnostics {
			pos := r.Pass.Fset.Position(d.Pos)
			ev := map[string]float64{}
			for _, e := range res.ByPos[d.Pos] {
				ev[e.Label] = e.Value
			}
			got, sev, _ := analysisutil.SplitCategory(d.Category)
			diags = append(diags, Diagnostic{Pos: pos, Message: d.Message, Severity: sev, Evidence: ev})
			if got != rule {
				t.Errorf("%s: category %q, want rule %q", pos, d.Category, rule)
			}
			if len(res.ByPos[d.Pos]) == 0 {
				t.Errorf("%s: diagnostic %q has no evidence", pos, d.Message)
			}
		}
		if len(res.ByPos) > len(r.Diagnostics) {
			t.Errorf("%s: evidence for %d positions but %d diagnostics", r.Pass.Pkg.Path(), len(res.ByPos), len(r.Diagnostics))
		}
	}
	return diags
}

// WantEvidence fails the test unless some diagnostic carries the number
// value under label.
func WantEvidence(t *testing.T, diags []Diagnostic, label string, value float64) {
	t.Helper()
	for _, d := range diags {
		if v, ok := d.Evidence[label]; ok && v == value {
			return
		}
	}
	t.Errorf("no diagnostic with evidence %q = %v", label, value)
}
