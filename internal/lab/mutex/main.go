// Mutex has every worker update one map under one sync.Mutex, eight keys
// per critical section (a handler updating shared state): the workers
// queue on the lock, spin in lockSlow and park on its semaphore. The fixed
// twin gives each worker its own counts and merges them at the end.
package main

import (
	"context"
	"runtime"
	"sync"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

func key(i int) int { return (i * 2654435761) % 1024 }

func bad(ctx context.Context) {
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for w := 0; w < 4*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				mu.Lock() // lab:SD206 lab:SD309
				for j := 0; j < 8; j++ {
					counts[key(i+j)]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func fixed(ctx context.Context) {
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for w := 0; w < 4*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int]int{}
			for i := 0; ctx.Err() == nil; i++ {
				for j := 0; j < 8; j++ {
					local[key(i+j)]++
				}
			}
			mu.Lock()
			for k, v := range local {
				counts[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
}
