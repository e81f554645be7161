// Busyselect polls a job channel with a select whose default does nothing:
// the consumer spins a P at 100% while jobs arrive only every millisecond.
// The fixed twin blocks in the select until a job or the end.
package main

import (
	"context"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

func produce(ctx context.Context, jobs chan<- int) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			close(jobs)
			return
		case <-t.C:
			jobs <- i
		}
	}
}

var sum int

func bad(ctx context.Context) {
	jobs := make(chan int)
	go produce(ctx, jobs)
	idle := 0
	for {
		select { // lab:SD101 lab:SD308
		case j, ok := <-jobs: // lab:SD204
			if !ok {
				return
			}
			sum += j
		default:
			idle++
		}
	}
}

func fixed(ctx context.Context) {
	jobs := make(chan int)
	go produce(ctx, jobs)
	for j := range jobs {
		sum += j
	}
}
