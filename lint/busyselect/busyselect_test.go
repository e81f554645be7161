package busyselect_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/internal/linttest"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), busyselect.Analyzer, "SD101", false, "busyselect")
	linttest.WantEvidence(t, diags, "sleep", 100) // const tiny = tm.Millisecond / 10, in µs
	linttest.WantEvidence(t, diags, "sleep", 5)
	linttest.WantEvidence(t, diags, "runtime.Gosched calls in the default", 1)
	linttest.WantEvidence(t, diags, "statements in the default", 2) // idle++; count.Add(1)
	linttest.WantEvidence(t, diags, "metrics.inc never blocks (per-function facts)", 1)
	linttest.WantEvidence(t, diags, "dep.Count never blocks (per-function facts)", 1)
}
