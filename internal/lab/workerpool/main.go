// Workerpool is a healthy control: a fixed pool of workers, one per P,
// hashes jobs from a buffered channel. It is busy, and it is right; no
// source should warn about it. Both twins are the same program.
package main

import (
	"context"
	"crypto/sha256"
	"runtime"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(run, run) }

func run(ctx context.Context) {
	start := time.Now()
	jobs := make(chan []byte, 256)
	results := make(chan int64, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for j := range jobs {
				sum := sha256.Sum256(j)
				for i := 0; i < 200; i++ {
					sum = sha256.Sum256(sum[:])
				}
				n++
			}
			results <- n
		}()
	}
	buf := make([]byte, 4096)
	for ctx.Err() == nil {
		jobs <- buf
	}
	close(jobs)
	wg.Wait()
	close(results)
	var total int64
	for n := range results {
		total += n
	}
	labrun.Report(total, time.Since(start))
}
