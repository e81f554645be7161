// Package spin is the fixture of schedoctor-vet's test.
package spin

import (
	"runtime"
	"sync/atomic"
)

var idle int

// Consume spins in a select whose default does nothing (SD101).
func Consume(jobs <-chan int) {
	for {
		select {
		case <-jobs:
			return
		default:
			idle++
		}
	}
}

// Wait spins on a flag with runtime.Gosched (SD106).
func Wait(ready *atomic.Bool) {
	for !ready.Load() {
		runtime.Gosched()
	}
}
