package worker

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestWait polls with a 1µs sleep. With -test this file is loaded (the
// summary counts it), but the analyzers skip _test.go files: tests may poll.
func TestWait(t *testing.T) {
	var ready atomic.Bool
	go ready.Store(true)
	for !ready.Load() {
		time.Sleep(time.Microsecond)
	}
}
