package labtest

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Spike keeps up to n goroutines runnable for d, far more than Ps, each
// woken by a dispatcher and waiting for a turn: a dispatcher hands jobs of
// about 200µs to the n workers as fast as they take them, so every worker
// queues for a P behind the others, like requests on an overloaded
// service. It returns when every goroutine it started has ended.
func Spike(n int, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			select {
			case jobs <- struct{}{}:
			case <-ctx.Done():
			}
		}
	})
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				select {
				case <-jobs:
					for t := time.Now(); time.Since(t) < 200*time.Microsecond; {
					}
				case <-ctx.Done():
				}
			}
		})
	}
	wg.Wait()
}

// Allocated runs f and returns the bytes allocated meanwhile, by every
// goroutine: what a limit test bounds.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
