package spinwait_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/spinwait"
)

func Test(t *testing.T) {
	if n := linttest.Run(t, analysistest.TestData(), spinwait.Analyzer, "SD106", false, "spinwait"); n == 0 {
		t.Error("no diagnostics")
	}
}
