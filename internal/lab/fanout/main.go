// Fanout starts one goroutine per CPU-bound item, a thousand at a time:
// far more runnable goroutines than Ps, so they wait in the run queues and
// anything latency-sensitive in the process waits behind them. Going wider
// than the Ps buys no parallelism, only queueing and a stack per item. The
// fixed twin feeds the same items to a pool of GOMAXPROCS workers.
package main

import (
	"context"
	"crypto/sha256"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

const batch = 1000

var ops atomic.Int64

// work hashes for about a millisecond.
func work() {
	var b [32]byte
	for i := 0; i < 2000; i++ {
		b = sha256.Sum256(b[:])
	}
	ops.Add(1)
}

func bad(ctx context.Context) {
	start := time.Now()
	for ctx.Err() == nil {
		var wg sync.WaitGroup
		for i := 0; i < batch; i++ {
			wg.Add(1)
			go func() { // lab:SD302
				defer wg.Done()
				work()
			}()
		}
		wg.Wait()
	}
	labrun.Report(ops.Load(), time.Since(start))
}

func fixed(ctx context.Context) {
	start := time.Now()
	items := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range items {
				work()
			}
		}()
	}
	for ctx.Err() == nil {
		items <- struct{}{}
	}
	close(items)
	wg.Wait()
	labrun.Report(ops.Load(), time.Since(start))
}
