// Sleeppoll throttles spawning with runtime.NumGoroutine and waits by
// polling with a 5µs sleep: threads are woken and parked thousands of times
// a second (runtime.futex via wakep/startm) while little work is done.
// Forty-eight spawners poll at once, as the handlers of a busy server would:
// on 2 CPUs they burn both cores in timer and futex work.
// The fixed twin bounds concurrency with a semaphore and waits on a WaitGroup.
package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

const (
	spawners = 32
	limit    = 64
)

var done atomic.Int64

func task() {
	time.Sleep(200 * time.Microsecond) // stands for a short I/O wait
	done.Add(1)
}

func spawn(ctx context.Context) {
	for ctx.Err() == nil {
		for runtime.NumGoroutine() > limit { // lab:SD103
			time.Sleep(5 * time.Microsecond) // lab:SD102 lab:SD203 lab:SD307 lab:may SD201
		}
		go task()
	}
}

func bad(ctx context.Context) {
	var wg sync.WaitGroup
	for i := 0; i < spawners; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spawn(ctx)
		}()
	}
	wg.Wait()
}

func fixed(ctx context.Context) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < spawners; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					task()
				}()
			}
		}()
	}
	wg.Wait()
}
