// Package linttest runs a schedoctor analyzer under analysistest and checks
// what analysistest does not: that every diagnostic carries the rule ID as
// its Category and at least one number in the analyzer's evidence.Result,
// keyed by the diagnostic's position, as the lint driver expects.
package linttest

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Run is analysistest.Run (or RunWithSuggestedFixes when fixes is set)
// plus the contract checks. It returns the number of diagnostics, so a
// test can insist that a testdata package did produce some.
func Run(t *testing.T, dir string, a *analysis.Analyzer, rule string, fixes bool, patterns ...string) int {
	t.Helper()
	run := analysistest.Run
	if fixes {
		run = analysistest.RunWithSuggestedFixes
	}
	n := 0
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
			n++
			pos := r.Pass.Fset.Position(d.Pos)
			if d.Category != rule {
				t.Errorf("%s: category %q, want %q", pos, d.Category, rule)
			}
			if len(res.ByPos[d.Pos]) == 0 {
				t.Errorf("%s: diagnostic %q has no evidence", pos, d.Message)
			}
		}
		if len(res.ByPos) > len(r.Diagnostics) {
			t.Errorf("%s: evidence for %d positions but %d diagnostics", r.Pass.Pkg.Path(), len(res.ByPos), len(r.Diagnostics))
		}
	}
	return n
}
