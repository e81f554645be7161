package inspect

import (
	"os"
	"testing"

	"github.com/schedoctor/schedoctor/lint/driver"
)

// TestMain lets the test binary answer as go vet's tool, so that
// TestTyped can run the analyzers through Resolver.VetTool.
func TestMain(m *testing.M) {
	if driver.IsVetTool(os.Args[1:]) {
		driver.VetToolMain()
		return
	}
	os.Exit(m.Run())
}
