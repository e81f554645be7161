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
// forever) in a sysroot is refused at once, named, and the rest of the
// tree is analysed; a symlink to /dev/zero (which never ends) names the
// tree's /dev/zero, which it does not hold.
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
	if containsAny(s.Warnings, "character device") {
		t.Errorf("warnings %q: the link to /dev/zero reached this machine's device", s.Warnings)
	}
}

// TestSysrootLinksStayInside: absolute links of a sysroot name the tree's
// files, never this machine's: an environ, a status and an exe linked to
// files outside the tree are not read (on the old code GODEBUG came from
// the outside file and the binary was this test's), and the same links
// reach the tree's own copies.
func TestSysrootLinksStayInside(t *testing.T) {
	outside := t.TempDir()
	env := filepath.Join(outside, "environ")
	if err := os.WriteFile(env, []byte("GODEBUG=secret_of_the_host=1\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := variant(t, "v2-quota", map[string]string{"usr/bin/app": "not a binary"})
	for name, target := range map[string]string{"proc/4242/environ": env, "proc/4242/exe": exe} {
		p := filepath.Join(root, name)
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Inspect(Options{Sysroot: root, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	if s.Env.GODEBUG != nil {
		t.Errorf("GODEBUG = %q: read from a file outside the sysroot", *s.Env.GODEBUG)
	}
	if s.Binary == nil || s.Binary.IsGo {
		t.Errorf("binary %+v: this machine's executable was read through the tree's /proc/4242/exe", s.Binary)
	}

	// The same absolute paths mirrored inside the tree are what is read.
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(env)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, env), []byte("GODEBUG=the_targets=1\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "proc/4242/exe"))
	if err := os.Symlink("/usr/bin/app", filepath.Join(root, "proc/4242/exe")); err != nil {
		t.Fatal(err)
	}
	s, err = Inspect(Options{Sysroot: root, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	if s.Env.GODEBUG == nil || *s.Env.GODEBUG != "the_targets=1" {
		t.Errorf("GODEBUG = %v, want the tree's the_targets=1", s.Env.GODEBUG)
	}
	if s.Binary == nil || !s.Binary.NotGo {
		t.Errorf("binary %+v, want the tree's /usr/bin/app (not Go)", s.Binary)
	}
}
