// Package worker is the fixture of schedoctor lint's golden tests: one
// instance of each code rule (SD101-SD106), next to close look-alikes that
// are right. Its module's go line is 1.22, so the ticker leak counts.
package worker

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

var sum, idle int

// Consume spins in a select whose default does nothing (SD101).
func Consume(jobs <-chan int) {
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				return
			}
			sum += j
		default:
			idle++
		}
	}
}

// TrySend is a select with default outside any loop: right.
func TrySend(jobs chan<- int, j int) bool {
	select {
	case jobs <- j:
		return true
	default:
		return false
	}
}

// Throttle polls runtime.NumGoroutine with a 5µs sleep (SD103, SD102).
func Throttle(ctx context.Context, task func()) {
	for ctx.Err() == nil {
		for runtime.NumGoroutine() > 8 {
			time.Sleep(5 * time.Microsecond)
		}
		go task()
	}
}

// Flush makes a timer per iteration (SD104).
func Flush(in <-chan int, flush func()) {
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-time.After(50 * time.Millisecond):
			flush()
		}
	}
}

// FlushOnce makes one timer and resets it: right.
func FlushOnce(in <-chan int, flush func()) {
	t := time.NewTimer(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-t.C:
			flush()
		}
		t.Reset(50 * time.Millisecond)
	}
}

// Yield sleeps zero as a yield (SD104): it returns at once.
func Yield(n int) {
	for i := 0; i < n; i++ {
		time.Sleep(0)
	}
}

// Poll never stops its ticker in a go 1.22 module (SD105).
func Poll(ctx context.Context, check func()) {
	t := time.NewTicker(time.Millisecond)
	for i := 0; i < 3; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			check()
		}
	}
}

// PollStopped stops its ticker: right.
func PollStopped(ctx context.Context, check func()) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; i < 3; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			check()
		}
	}
}

// Wait spins on a flag with runtime.Gosched (SD106).
func Wait(ready *atomic.Bool) {
	for !ready.Load() {
		runtime.Gosched()
	}
}

// Increment is a compare-and-swap retry loop: right.
func Increment(x *atomic.Int64) {
	for {
		old := x.Load()
		if x.CompareAndSwap(old, old+1) {
			return
		}
	}
}
