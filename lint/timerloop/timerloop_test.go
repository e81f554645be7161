package timerloop_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), timerloop.Analyzer, "SD104", true, "timerloop", "timershadow")
	linttest.WantEvidence(t, diags, "duration", 50) // const window = 50 * time.Millisecond
	linttest.WantEvidence(t, diags, "duration", 0)
	linttest.WantEvidence(t, diags, "duration", -0.000001) // const none = -time.Nanosecond
}
