package goroutinethrottle_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/goroutinethrottle"
	"github.com/schedoctor/schedoctor/lint/internal/linttest"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), goroutinethrottle.Analyzer, "SD103", false, "goroutinethrottle")
	linttest.WantEvidence(t, diags, "goroutine limit", 8)  // const limit
	linttest.WantEvidence(t, diags, "goroutine limit", 16) // 2*limit
	linttest.WantEvidence(t, diags, "goroutine limit", 24) // 3*limit, through a switch's init
}
