// Package golden compares test output with files under testdata, and
// rewrites them when the tests run with -update:
//
//	go test ./report -run TestText -update
//
// Review the diff of the rewritten files before committing them.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes got there with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs (run the test with -update if the change is right):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff describes the first line where want and got differ, with the line
// before it for context.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			ctx := ""
			if i > 0 && i-1 < len(gl) {
				ctx = fmt.Sprintf("   %d: %s\n", i, gl[i-1])
			}
			return fmt.Sprintf("%s-  %d: %s\n+  %d: %s", ctx, i+1, w, i+1, g)
		}
	}
	return "(no line differs)"
}
