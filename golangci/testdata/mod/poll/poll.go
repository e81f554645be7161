// Package poll is the fixture of the golangci-lint plugin's test.
package poll

import (
	"sync/atomic"
	"time"
)

// WaitReady polls a flag with a 10µs sleep (SD102).
func WaitReady(ready *atomic.Bool) {
	for !ready.Load() {
		time.Sleep(10 * time.Microsecond)
	}
}

// Drain makes a timer per message (SD104).
func Drain(in <-chan int) (n int) {
	for {
		select {
		case <-in:
			n++
		case <-time.After(time.Second):
			return n
		}
	}
}

// Drained waits on one timer: right.
func Drained(in <-chan int) (n int) {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-in:
			n++
		case <-t.C:
			return n
		}
	}
}
