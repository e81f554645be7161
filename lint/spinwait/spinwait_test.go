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
}
