// Gosched waits for a flag with runtime.Gosched in a loop: the waiter
// burns a core yielding while the worker takes a millisecond per batch.
// The fixed twin blocks on a channel the worker sends to.
//
// A CPU profile reports the spin (SD204) but cannot name its line: the
// yielding goroutine's stack is cut by mcall. lab:unlocated SD204
package main

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

var batches int

func bad(ctx context.Context) {
	for ctx.Err() == nil {
		var ready atomic.Bool
		go func() {
			time.Sleep(time.Millisecond) // stands for the batch's work
			ready.Store(true)
		}()
		for !ready.Load() { // lab:SD106
			runtime.Gosched() // lab:SD308
		}
		batches++
	}
}

func fixed(ctx context.Context) {
	for ctx.Err() == nil {
		ready := make(chan struct{})
		go func() {
			time.Sleep(time.Millisecond)
			close(ready)
		}()
		<-ready
		batches++
	}
}
