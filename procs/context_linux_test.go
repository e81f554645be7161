package procs

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestInspectContextEndsTheWindow: a cancel during the sampling window
// (up to a minute) ends InspectContext at once with the cause, not with a
// summary of half-read counters.
func TestInspectContextEndsTheWindow(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	why := errors.New("interrupted by SIGINT")
	time.AfterFunc(200*time.Millisecond, func() { cancel(why) })
	start := time.Now()
	s, err := InspectContext(ctx, Options{PID: os.Getpid(), Window: time.Minute})
	elapsed := time.Since(start)
	if !errors.Is(err, why) || s != nil {
		t.Fatalf("InspectContext = %v, %v; want no summary and the cause", s, err)
	}
	// The window is a minute; anything far below it means the cancel
	// ended it. 30s leaves room for a machine running 8 builds.
	if elapsed > 30*time.Second {
		t.Errorf("returned %v after the cancel, the window is 1m", elapsed)
	}
	t.Logf("returned after %v: %v", elapsed.Round(time.Millisecond), err)
}

// TestInspectContextCancelledBefore: a context already done reads nothing.
func TestInspectContextCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := InspectContext(ctx, Options{Sysroot: "testdata"}); !errors.Is(err, context.Canceled) || s != nil {
		t.Fatalf("InspectContext = %v, %v; want context.Canceled", s, err)
	}
}
