package goroutinethrottle_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/goroutinethrottle"
	"github.com/schedoctor/schedoctor/lint/internal/linttest"
)

func Test(t *testing.T) {
	if n := linttest.Run(t, analysistest.TestData(), goroutinethrottle.Analyzer, "SD103", false, "goroutinethrottle"); n == 0 {
		t.Error("no diagnostics")
	}
}
