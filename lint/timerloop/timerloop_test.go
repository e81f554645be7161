package timerloop_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

func Test(t *testing.T) {
	if n := linttest.Run(t, analysistest.TestData(), timerloop.Analyzer, "SD104", true, "timerloop", "timershadow"); n == 0 {
		t.Error("no diagnostics")
	}
}
