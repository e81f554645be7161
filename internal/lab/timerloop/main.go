// Timerloop waits for messages with a timeout made anew on every iteration:
// each time.After allocates a timer and puts it on the timer heap, only for
// the message to win the race. The fixed twin makes one timer and resets it
// only when it fires.
package main

import (
	"context"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(bad, fixed) }

func produce(ctx context.Context, in chan<- int) {
	for i := 0; ctx.Err() == nil; i++ {
		in <- i
	}
	close(in)
}

var flushes, sum int

func bad(ctx context.Context) {
	in := make(chan int, 64)
	go produce(ctx, in)
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-time.After(50 * time.Millisecond): // lab:SD104 lab:SD203 lab:may SD306
			flushes++
		}
	}
}

func fixed(ctx context.Context) {
	in := make(chan int, 64)
	go produce(ctx, in)
	// One timer for the idle timeout, reset only when it fires: a message
	// costs a counter increment, not a trip through the timer heap.
	t := time.NewTimer(50 * time.Millisecond)
	defer t.Stop()
	seen := 0
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
			seen++
		case <-t.C:
			if seen == 0 {
				flushes++ // idle for a whole period
			}
			seen = 0
			t.Reset(50 * time.Millisecond)
		}
	}
}
