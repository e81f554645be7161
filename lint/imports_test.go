package lint_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// driverOnly are the packages that only a driver needs: loading packages
// (go/packages), analysing them in process (the checker) or through go vet
// (unitchecker, os/exec). A driver that imports the registry brings its own;
// the registry must not bring schedoctor's (docs/lint-integration.md has
// the sizes this keeps).
var driverOnly = []string{
	"golang.org/x/tools/go/packages",
	"golang.org/x/tools/go/analysis/checker",
	"golang.org/x/tools/go/analysis/unitchecker",
	"os/exec",
	"github.com/schedoctor/schedoctor/lint/driver",
}

// TestRegistryImports fails when the import closure of package lint, or of
// the golangci-lint plugin built on it, grows back to include a driver.
// lint/driver is listed too, and must hold every one but itself, so the
// test is seen to catch what it looks for.
func TestRegistryImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("the go command is not on PATH (%v): the import closure is read with go list", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const (
		registry = "github.com/schedoctor/schedoctor/lint"
		plugin   = "github.com/schedoctor/schedoctor/golangci"
		driver   = "github.com/schedoctor/schedoctor/lint/driver"
	)
	// .Deps is the whole closure of a package's non-test imports.
	out, err := exec.CommandContext(ctx, "go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, registry, plugin, driver).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) > 0 {
			deps[fields[0]] = fields[1:]
		}
	}
	for _, pkg := range []string{registry, plugin} {
		if _, ok := deps[pkg]; !ok {
			t.Fatalf("go list did not list %s:\n%s", pkg, out)
		}
		for _, d := range driverOnly {
			if slices.Contains(deps[pkg], d) {
				t.Errorf("%s imports %s (imported there by %s): the registry and the plugin must not carry a driver; put the code that needs it in lint/driver",
					pkg, d, strings.Join(importersOf(ctx, t, pkg, d), ", "))
			}
		}
	}
	for _, d := range driverOnly {
		if d != driver && !slices.Contains(deps[driver], d) {
			t.Errorf("lint/driver does not import %s: the list above names what a driver needs, and this test checks nothing if none of it is found", d)
		}
	}
}

// importersOf names the packages in the closure of pkg that import dep
// directly, so that a failure says where the arrow is.
func importersOf(ctx context.Context, t *testing.T, pkg, dep string) []string {
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, pkg).Output()
	if err != nil {
		t.Logf("go list -deps %s: %v", pkg, err)
		return nil
	}
	var by []string
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) > 1 && slices.Contains(fields[1:], dep) {
			by = append(by, fields[0])
		}
	}
	return by
}
