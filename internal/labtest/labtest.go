// Package labtest builds the lab programs for end-to-end tests.
package labtest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab"
)

// Build builds the named lab programs (every one when none is named) from
// the embedded copy into a directory removed when the test ends, and returns
// their paths by name. It skips the test when there is no go command. The
// build cache makes repeated builds cheap.
func Build(t testing.TB, names ...string) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("building the lab needs the go command")
	}
	if len(names) == 0 {
		for _, p := range lab.Programs {
			names = append(names, p.Name)
		}
	}
	dir := t.TempDir()
	if err := lab.WriteModule(dir, "", names...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bins, err := lab.Build(ctx, dir, filepath.Join(dir, "bin"), names...)
	if err != nil {
		t.Fatal(err)
	}
	return bins
}
