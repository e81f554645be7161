package worker

import (
	"testing"
	"time"
)

// TestPoll polls with a 1µs sleep (SD102): reported only with -test.
func TestPoll(t *testing.T) {
	done := make(chan struct{})
	close(done)
	for len(done) > 0 {
		time.Sleep(time.Microsecond)
	}
}
