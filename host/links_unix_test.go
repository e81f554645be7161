//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSysrootLinksStayInside: a sysroot's absolute links name the tree's
// files: /proc/4242/fd linked to /proc/self/fd and /proc/4242/limits
// linked to a file of this machine are not read through (on the old code
// this test process's descriptors were counted as the target's, and the
// limits came from the outside file).
func TestSysrootLinksStayInside(t *testing.T) {
	root := t.TempDir()
	for p, c := range fixtureTrees()["close-wait"].files {
		mustWrite(t, filepath.Join(root, p), c)
	}
	fd := filepath.Join(root, "proc/4242/fd")
	if err := os.RemoveAll(fd); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self/fd", fd); err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(Options{Sysroot: root, PID: 4242, Conns: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if s.Process != nil && s.Process.FDs > 0 {
		t.Errorf("process %+v: this machine's /proc/self/fd was listed through the tree's link", s.Process)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "/fd") {
		t.Errorf("warnings %q do not say the descriptors could not be read; process %+v", s.Warnings, s.Process)
	}
}
