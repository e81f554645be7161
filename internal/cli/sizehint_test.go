package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// TestOpenInputSizeHint: a regular file opened by openInput tells
// sysread.Reader its size through the wrapper, so the bounded read holds
// the file once instead of the doubled buffers of an unknown stream.
func TestOpenInputSizeHint(t *testing.T) {
	const size = 8 << 20
	path := filepath.Join(t.TempDir(), "dump.txt")
	if err := os.WriteFile(path, bytes.Repeat([]byte("goroutine 1 [running]:\n"), size/23+1)[:size], 0o600); err != nil {
		t.Fatal(err)
	}
	e := &Env{}
	r, closeIn, err := e.openInput(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	sh, ok := r.(sysread.SizeHinter)
	if !ok {
		closeIn()
		t.Fatalf("openInput of a regular file gives %T, not a sysread.SizeHinter", r)
	}
	if got := sh.SizeHint(); got != size {
		t.Errorf("SizeHint before reading = %d, want %d", got, size)
	}
	if _, err := io.ReadFull(r, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if got := sh.SizeHint(); got != size-1<<20 {
		t.Errorf("SizeHint after 1 MiB = %d, want %d", got, size-1<<20)
	}
	closeIn()

	// The read through sysread allocates about the file's size: a buffer
	// grown from 64 KiB by doubling would allocate about twice as much.
	r, closeIn, err = e.openInput(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer closeIn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, truncated, err := sysread.Reader(r, path, 64<<20)
	runtime.ReadMemStats(&after)
	if err != nil || truncated || len(data) != size {
		t.Fatalf("sysread.Reader: %d bytes, truncated %v, %v", len(data), truncated, err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("read %d bytes, allocated %d", size, alloc)
	if alloc > size*5/4 {
		t.Errorf("allocated %d bytes to read %d: the buffer was not sized from the hint", alloc, size)
	}
	// Standard input has no size: no hint, and no wrong one.
	var stdin io.Reader = newCancelReader(context.Background(), os.Stdin, "reading standard input")
	if sh, ok := stdin.(sysread.SizeHinter); ok {
		t.Errorf("the stdin reader claims a size: %d", sh.SizeHint())
	}
}
