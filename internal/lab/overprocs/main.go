// Overprocs runs one CPU-bound goroutine per P. Started with GOMAXPROCS
// above the CPUs available (the tests use GOMAXPROCS=8 on 2 CPUs), the Ps
// outnumber the CPUs: goroutines are preempted over and over and wait while
// "running". The program is the same in both twins; the fix is GOMAXPROCS.
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

func main() { labrun.Main(run, run) }

var ops atomic.Int64

func spin(ctx context.Context) {
	var b [32]byte
	for ctx.Err() == nil {
		for i := 0; i < 1000; i++ {
			b = sha256.Sum256(b[:]) // lab:SD208 lab:SD303
		}
		ops.Add(1000)
	}
}

func run(ctx context.Context) {
	start := time.Now()
	var wg sync.WaitGroup
	for p := 0; p < runtime.GOMAXPROCS(0); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spin(ctx)
		}()
	}
	wg.Wait()
	labrun.Report(ops.Load(), time.Since(start))
}
