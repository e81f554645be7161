//go:build unix

package goroutines

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// TestReadFileSpecial: a FIFO or /dev/zero named as a dump file is refused
// at once.
func TestReadFileSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "dump.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, ReadOptions{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, sysread.ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := ReadFile("/dev/zero", ReadOptions{}); !errors.Is(err, sysread.ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
}
