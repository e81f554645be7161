package exectrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// TestGenerationLimiter: the exported limiter refuses a limit below one
// batch, passes a trace under its limit whole, and cuts one over it,
// saying so through Cut.
func TestGenerationLimiter(t *testing.T) {
	if _, err := NewGenerationLimiter(bytes.NewReader(nil), MinMaxGeneration-1); err == nil {
		t.Error("a limit below one batch accepted")
	}
	data, err := os.ReadFile("testdata/pingpong.trace")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := NewGenerationLimiter(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(whole); err != nil || !bytes.Equal(b, data) || whole.Cut() != nil {
		t.Errorf("default limit: %d of %d bytes, %v, cut %v", len(b), len(data), err, whole.Cut())
	}
	small, err := NewGenerationLimiter(bytes.NewReader(data), MinMaxGeneration)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(small)
	if !errors.Is(err, ErrGenerationTooLarge) || !errors.Is(small.Cut(), ErrGenerationTooLarge) || len(b) > MinMaxGeneration+headerLen {
		t.Errorf("64 KB limit on a %d-byte generation: read %d bytes, %v, cut %v", len(data), len(b), err, small.Cut())
	}
}
