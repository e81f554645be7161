package blocking_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/blocking"
)

// Test checks the facts exported for every function (analysistest fails
// on a fact without a matching want, and on a want without its fact).
func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), blocking.Analyzer, "a", "b")
}
