//go:build unix

package sysread

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFileRefusesSpecial(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc/self"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "proc/self/fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "proc/self/zero")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ root, name, kind string }{
		{dir, "/proc/self/fifo", "FIFO"},
		{"", "/dev/zero", "character device"},
		{"", fifo, "FIFO"},
		{dir, "/proc/self", "directory"},
	} {
		start := time.Now()
		_, err := File(c.root, c.name, 0)
		if time.Since(start) > 5*time.Second {
			t.Errorf("%s: took %v", c.name, time.Since(start))
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.kind) || !strings.Contains(err.Error(), filepath.FromSlash(c.name)) {
			t.Errorf("%s: err = %v, want ErrNotRegular naming the file and %q", c.name, err, c.kind)
		}
	}
	// Under a root, the link to /dev/zero names ROOT/dev/zero: missing.
	if _, err := File(dir, "/proc/self/zero", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("/proc/self/zero -> /dev/zero under a root: err = %v, want not found (resolved inside the root)", err)
	}
}

// TestWithFile: the file convenience of every source (their ReadFile)
// hands a regular file to the reader and closes it after, and refuses a
// FIFO, a device and a directory at once, without calling the reader.
func TestWithFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(name, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	var kept *os.File
	got, err := WithFile(name, func(f *os.File) (string, error) {
		kept = f
		b, err := io.ReadAll(f)
		return string(b), err
	})
	if err != nil || got != "hello" {
		t.Fatalf("WithFile = %q, %v; want hello", got, err)
	}
	if _, err := kept.Stat(); err == nil {
		t.Error("WithFile left the file open")
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, special := range []string{fifo, "/dev/zero", dir} {
		done := make(chan error, 1)
		called := false
		go func() {
			_, err := WithFile(special, func(*os.File) (int, error) { called = true; return 0, nil })
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || called || !strings.Contains(err.Error(), special) {
				t.Errorf("WithFile(%s) = %v, reader called %v; want ErrNotRegular naming the file, not called", special, err, called)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("WithFile(%s) blocked", special)
		}
	}
}
