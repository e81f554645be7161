package spinwait

import (
	"runtime"
	"testing"
)

// Tests spin on purpose to exercise the scheduler.
func TestSpin(t *testing.T) {
	go ready.Store(true)
	for !ready.Load() {
		runtime.Gosched()
	}
}
