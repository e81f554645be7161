// Pingpong is a healthy control: two goroutines pass a token back and forth
// over unbuffered channels. It is busy in the channel code and the
// scheduler, and that is its job; no source should warn about it. Both twins
// are the same program.
package main

import (
	"context"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

func main() { labrun.Main(run, run) }

func run(ctx context.Context) {
	start := time.Now()
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	var n int64
	v := 0
	for ctx.Err() == nil {
		ping <- v
		v = <-pong
		n++
	}
	close(ping)
	for range pong {
	}
	labrun.Report(n, time.Since(start))
}
