package profile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// cancelAfter is a well-formed endless stream (empty strings forever)
// that cancels its context once it has given n bytes: reading must stop
// at the next read, long before the byte limit.
type cancelAfter struct {
	endless
	n      int64
	cancel context.CancelCauseFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.endless.n >= c.n {
		c.cancel(errors.New("interrupted by SIGINT"))
	}
	return c.endless.Read(p)
}

func TestReadStopsReading(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &cancelAfter{endless: endless{b: 0x32}, n: 1 << 20, cancel: cancel}
	// 0x32 0x32 is a string of 0x32 bytes, itself 0x32...: a valid stream
	// of strings that never ends.
	_, err := Read(ctx, "stdin", in, ReadOptions{MaxBytes: 256 << 20})
	if err == nil || err.Error() != "stdin: interrupted by SIGINT" {
		t.Fatalf("err = %v, want the cause", err)
	}
	// The read that cancels still fills the buffer, which doubles as it
	// grows; without the check reading would go on to the 256 MB limit.
	if in.endless.n > 16<<20 {
		t.Errorf("read %d bytes after the cancel at 1 MB", in.endless.n)
	}
}

// A profile that reads and parses cleanly is not returned once the
// context is done: the caller asked to stop.
func TestReadFileCancelled(t *testing.T) {
	data := bomb{samples: 10, value: 10_000_000, duration: 1e9}.bytes(t)
	path := filepath.Join(t.TempDir(), "ok.pb.gz")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(context.Background(), path, ReadOptions{}); err != nil {
		t.Fatalf("uncancelled: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := ReadFile(ctx, path, ReadOptions{})
	if p != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, %v; want context.Canceled", p, err)
	}
	if _, err := Read(ctx, "stdin", bytes.NewReader(data), ReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Read cancelled: %v", err)
	}
}
