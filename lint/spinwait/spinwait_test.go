package spinwait_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/spinwait"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), spinwait.Analyzer, "SD106", false, "spinwait")
	linttest.WantEvidence(t, diags, "runtime.Gosched calls per iteration", 1)
	linttest.WantEvidence(t, diags, "runtime.Gosched calls per iteration", 0)
	linttest.WantEvidence(t, diags, "statements in the loop body", 2) // spins++; runtime.Gosched()
	linttest.WantEvidence(t, diags, "atomic writes only behind a wait condition", 1)
	linttest.WantEvidence(t, diags, "spinwait.isDone never blocks (per-function facts)", 1)
}

// TestEmpty checks the empty endless loops and their fix, select {}.
func TestEmpty(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), spinwait.Analyzer, "SD106", true, "empty")
	linttest.WantEvidence(t, diags, "statements in the loop body", 0)
}
