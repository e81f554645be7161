// Package shapes holds the loop shapes inspect classifies. A trailing
// "at: KIND" comment asks At about its line and names the kind it must
// report; "func: NAME" the function it must name.
package shapes

import (
	"context"
	"time"
)

// busyHandler is issue 9's handler: it waits for a job with a select
// whose default does nothing.
func busyHandler(ctx context.Context, done chan int) int {
	for {
		select { // at: select-default func: busyHandler
		case v := <-done:
			return v
		case <-ctx.Done():
			return -1
		default:
		}
	}
}

// blockingSelect is the fix: the same select without a default.
func blockingSelect(ctx context.Context, done chan int) int {
	for {
		select { // at: blocking
		case v := <-done:
			if v > 0 {
				return v
			}
		case <-ctx.Done():
			return -1
		}
	}
}

// drain takes what is there and leaves: the default leaves the loop.
func drain(c chan int) (n int) {
	for {
		select { // at: compute
		case v := <-c:
			n += v
		default:
			return n
		}
	}
}

func labelled(c chan int, stop chan struct{}) (n int) {
outer:
	for {
		select { // at: select-default
		case <-stop:
			break outer
		case v := <-c:
			n += v
		default:
		}
	}
	return n
}

// breakSelect's break leaves the select, not the loop.
func breakSelect(c chan int) {
	for {
		select { // at: select-default
		case <-c:
			break
		default:
		}
	}
}

func inGoroutine(ctx context.Context, c chan int) {
	go func() {
		for {
			select { // at: select-default func: inGoroutine.func1
			case <-c:
			case <-ctx.Done():
				return
			default:
			}
		}
	}()
}

var hits int

func inc() { hits++ }

// countingDefault calls a helper that only counts: still a spin.
func countingDefault(c chan int) {
	for {
		select { // at: select-default
		case <-c:
			return
		default:
			inc()
		}
	}
}

func pause() { time.Sleep(10 * time.Millisecond) }

// pausingDefault's helper sleeps: the default waits.
func pausingDefault(c chan int) {
	for {
		select { // at: blocking
		case <-c:
			return
		default:
			pause()
		}
	}
}

// flagExit sets the flag its condition reads: the default leaves.
func flagExit(c chan int) (n int) {
	for done := false; !done; {
		select { // at: compute
		case v := <-c:
			n += v
		default:
			done = true
		}
	}
	return n
}

// replace keeps the newest value in a channel of capacity one: it drains
// the old value itself, so it retries at most a few times (busyselect
// knows the shape and stays silent; the verdict is not a spin).
func replace(ch chan int, v int) {
	for {
		select { // at: compute
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

func timerLoop(c chan int) {
	for {
		select {
		case <-c:
		case <-time.After(time.Second): // at: timer-per-iter
		}
	}
}

func newTimerC(c chan int) {
	for {
		select {
		case <-c:
		case <-time.NewTimer(time.Second).C: // at: timer-per-iter
		}
	}
}

// timerOnce's select leaves on every branch: one timer per call.
func timerOnce(c chan int) int {
	for {
		select { // at: blocking
		case v := <-c:
			return v
		case <-time.After(time.Second):
			return -1
		}
	}
}

// afterZeroCase polls with a timer that fires at once: a yield.
func afterZeroCase(c chan int) {
	for {
		select {
		case <-c:
			return
		case <-time.After(0): // at: yield-spin
		}
	}
}
