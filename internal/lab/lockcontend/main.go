// Lockcontend has a fixed crew of 16 workers, whatever GOMAXPROCS is, each
// hashing a little and then recording the result in one map under one
// sync.Mutex. With one P the lock is never contended; with more, the
// workers queue on it, spin and park, and throughput falls as Ps are added:
// the negative scaling schedoctor sweep reports (SD502). The fixed twin
// gives each worker its own map and merges them at the end. It runs for
// -duration and prints "ops N ops/s R" on stdout.
package main

import (
	"context"
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

const workers = 16

func main() { labrun.Main(bad, fixed) }

// item does the work outside the lock: a few hashes.
func item(b *[32]byte) int {
	for i := 0; i < 4; i++ {
		*b = sha256.Sum256(b[:])
	}
	return int(b[0])<<8 | int(b[1])
}

// crew runs the workers until ctx is done; record files one item's result
// for worker w. done runs once per worker at the end. It reports the items.
func crew(ctx context.Context, record func(w, k int), done func(w int)) {
	start := time.Now()
	var ops atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := [32]byte{byte(w)}
			var n int64
			for ctx.Err() == nil {
				record(w, item(&b))
				n++
			}
			done(w)
			ops.Add(n)
		}()
	}
	wg.Wait()
	labrun.Report(ops.Load(), time.Since(start))
}

func bad(ctx context.Context) {
	var mu sync.Mutex
	counts := map[int]int{}
	crew(ctx, func(_, k int) {
		mu.Lock() // lab:SD206 lab:SD309
		for i := 0; i < 8; i++ {
			counts[(k+i)&0x3ff]++
		}
		mu.Unlock()
	}, func(int) {})
}

func fixed(ctx context.Context) {
	var mu sync.Mutex
	counts := map[int]int{}
	local := make([]map[int]int, workers)
	for w := range local {
		local[w] = map[int]int{}
	}
	crew(ctx, func(w, k int) {
		for i := 0; i < 8; i++ {
			local[w][(k+i)&0x3ff]++
		}
	}, func(w int) {
		mu.Lock()
		for k, v := range local[w] {
			counts[k] += v
		}
		mu.Unlock()
	})
}
