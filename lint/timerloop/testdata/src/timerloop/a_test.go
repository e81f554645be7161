package timerloop

import (
	"testing"
	"time"
)

// Tests make timers in loops on purpose; test files are not checked.
func TestTimers(t *testing.T) {
	for i := 0; i < 3; i++ {
		select {
		case <-in:
		case <-time.After(time.Millisecond):
		}
		time.Sleep(0)
	}
}
