package busyselect_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/internal/linttest"
)

func Test(t *testing.T) {
	if n := linttest.Run(t, analysistest.TestData(), busyselect.Analyzer, "SD101", false, "busyselect"); n == 0 {
		t.Error("no diagnostics")
	}
}
