package sleeppoll_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
)

func Test(t *testing.T) {
	if n := linttest.Run(t, analysistest.TestData(), sleeppoll.Analyzer, "SD102", false, "sleeppoll", "notime"); n == 0 {
		t.Error("no diagnostics")
	}
}
