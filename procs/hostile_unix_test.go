//go:build unix

package procs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSysrootFIFOAndDevZero: a FIFO (which blocks an open or a read
// forever) and a symlink to /dev/zero (which never ends) in a sysroot are
// refused at once, each named, and the rest of the tree is analysed.
func TestSysrootFIFOAndDevZero(t *testing.T) {
	root := variant(t, "v2-quota", nil)
	for _, f := range []string{"proc/4242/mountinfo", "sys/fs/cgroup/cpu.stat"} {
		if err := os.Remove(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "proc/4242/mountinfo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "sys/fs/cgroup/cpu.stat")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var s *Summary
	var err error
	start := time.Now()
	go func() {
		s, err = Inspect(Options{Sysroot: root, PID: 4242})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Inspect blocked on the FIFO for 20s")
	}
	t.Logf("Inspect returned in %v", time.Since(start))
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(s.Warnings, "reading /proc/4242/mountinfo: is a FIFO: not a regular file; cgroups not analysed") {
		t.Errorf("warnings %q do not name the FIFO", s.Warnings)
	}
	if !containsAny(s.Notes, "could not decide SD401") {
		t.Errorf("notes %q: the cgroup-dependent rules must say they could not decide", s.Notes)
	}

	// The cgroup files through a good mountinfo: cpu.stat is /dev/zero.
	if err := os.Remove(filepath.Join(root, "proc/4242/mountinfo")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "fixtures", "v2-quota", "proc", "4242", "mountinfo"))
	if err := os.WriteFile(filepath.Join(root, "proc/4242/mountinfo"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Inspect(Options{Sysroot: root, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(s.Warnings, "reading /sys/fs/cgroup/cpu.stat: is a character device: not a regular file") {
		t.Errorf("warnings %q do not name /dev/zero", s.Warnings)
	}
	if len(s.Undecided) != 1 || s.Undecided[0].Rule != "SD404" {
		t.Errorf("undecided %+v, want SD404 (throttling) only", s.Undecided)
	}
}
