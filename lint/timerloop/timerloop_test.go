package timerloop_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), timerloop.Analyzer, "SD104", true, "timerloop", "timershadow")
	linttest.WantEvidence(t, diags, "duration", 50) // const window = 50 * time.Millisecond
	linttest.WantEvidence(t, diags, "duration", 0)
	linttest.WantEvidence(t, diags, "duration", -0.000001) // const none = -time.Nanosecond
}

// TestGoLine lints the same loops in a go 1.22 and a go 1.24 module. From
// go 1.23 the runtime collects a dropped timer or ticker, so each costs an
// allocation per iteration and is reported as info; before, it stays on
// the timer heap (a ticker forever) and is a warning. A zero sleep burns
// a core under any go line and stays a warning.
func TestGoLine(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		minor float64
		sev   finding.Severity
	}{
		{"go122", 22, finding.Warning},
		{"go124", 24, finding.Info},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			diags := linttest.Run(t, filepath.Join(analysistest.TestData(), tc.dir), timerloop.Analyzer, "SD104", false, "./...")
			linttest.WantEvidence(t, diags, "module go line, minor version", tc.minor)
			linttest.WantEvidence(t, diags, "allocations per iteration", 3)
			if tc.sev == finding.Info {
				linttest.WantEvidence(t, diags, "bytes per iteration", 248)
			}
			zero := 0
			for _, d := range diags {
				want := tc.sev
				if strings.HasPrefix(d.Message, "time.Sleep(0)") {
					want = finding.Warning
					zero++
				}
				if d.Severity != want {
					t.Errorf("%s: severity %s, want %s (%s)", d.Pos, d.Severity, want, d.Message)
				}
			}
			if len(diags) != 5 || zero != 1 {
				t.Errorf("%d diagnostics (%d zero sleeps), want 5 (1)", len(diags), zero)
			}
		})
	}
}
