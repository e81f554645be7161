// Cpubound is a healthy control for schedoctor sweep: a fixed amount of
// CPU work (-work units of 1000 SHA-256 hashes) split across one goroutine
// per P, which take units from a shared counter so that no goroutine is
// left with a tail. It scales with the CPUs it really has and no further;
// on 2 CPUs the sweep's knee is GOMAXPROCS=2. It prints "ops N ops/s R"
// (hashes) on stdout. Both twins are the same program.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

var work = flag.Int64("work", 5000, "units of work (1000 hashes each)")

func main() { labrun.Main(run, run) }

func run(ctx context.Context) {
	start := time.Now()
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for p := 0; p < runtime.GOMAXPROCS(0); p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b [32]byte
			for ctx.Err() == nil && next.Add(1) <= *work {
				for i := 0; i < 1000; i++ {
					b = sha256.Sum256(b[:])
				}
				done.Add(1000)
			}
		}()
	}
	wg.Wait()
	if done.Load() < *work*1000 {
		fmt.Fprintf(os.Stderr, "incomplete: -duration ended after %d of %d units\n", done.Load()/1000, *work)
	}
	labrun.Report(done.Load(), time.Since(start))
}
