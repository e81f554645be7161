package spinwait_test

import (
	"os"
	"path/filepath"
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

// TestEmpty checks the empty endless loops and their fix, select {}. The
// package is written as gofmt never leaves it (`for {} // want ...` on one
// line, where the diagnostic is), so it is kept as testdata/empty.go.src,
// out of the gofmt check, and laid out as a package at test time.
func TestEmpty(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "src", "empty")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"empty.go.src": "empty.go", "empty.go.golden": "empty.go.golden"} {
		b, err := os.ReadFile(filepath.Join(analysistest.TestData(), from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	diags := linttest.Run(t, dir, spinwait.Analyzer, "SD106", true, "empty")
	linttest.WantEvidence(t, diags, "statements in the loop body", 0)
}
