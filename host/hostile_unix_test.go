//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileSysroot: a FIFO or a malformed file in place of a kernel file
// is a warning naming the file, never a hang.
func TestHostileSysroot(t *testing.T) {
	root := t.TempDir()
	for p, c := range fixtureTrees()["stock"].files {
		mustWrite(t, filepath.Join(root, p), c)
	}
	fifo := filepath.Join(root, "proc/sys/fs/nr_open")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	mustWrite(t, filepath.Join(root, "proc/sys/net/core/somaxconn"), "lots\n")
	done := make(chan struct{})
	var s *Summary
	var err error
	go func() {
		s, err = Inspect(Options{Sysroot: root, PID: 4242, Conns: 1000})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Inspect blocked on a FIFO")
	}
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(s.Warnings, "\n")
	if !strings.Contains(w, "/proc/sys/fs/nr_open") || !strings.Contains(w, "/proc/sys/net/core/somaxconn") {
		t.Errorf("warnings do not name the bad files: %s", w)
	}
}
