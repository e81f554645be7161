package tickerleak_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/tickerleak"
)

// TestGo122 lints a module whose go line is 1.22: leaks are reported.
func TestGo122(t *testing.T) {
	dir := filepath.Join(analysistest.TestData(), "go122")
	diags := linttest.Run(t, dir, tickerleak.Analyzer, "SD105", false, "./...")
	linttest.WantEvidence(t, diags, "module go line, minor version", 22)
	linttest.WantEvidence(t, diags, "period", 1000)
}

// TestGo123 lints the same code in a go 1.23 module: the runtime collects
// unreferenced tickers there, so nothing is reported.
func TestGo123(t *testing.T) {
	dir := filepath.Join(analysistest.TestData(), "go123")
	if diags := linttest.Run(t, dir, tickerleak.Analyzer, "SD105", false, "./..."); len(diags) != 0 {
		t.Errorf("%d diagnostics in a go 1.23 module, want none", len(diags))
	}
}

// TestNoModule lints in GOPATH mode, where the go line is unknown.
func TestNoModule(t *testing.T) {
	if diags := linttest.Run(t, analysistest.TestData(), tickerleak.Analyzer, "SD105", false, "nomodule"); len(diags) != 0 {
		t.Errorf("%d diagnostics without a module, want none", len(diags))
	}
}
