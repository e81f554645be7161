package sleeppoll

import (
	"context"
	"runtime"
	"sync/atomic"
	clock "time"
)

var (
	ready atomic.Bool
	n     int
	limit = 8
)

const poll = clock.Millisecond / 10

// Positives.

func literal() {
	for !ready.Load() {
		clock.Sleep(5 * clock.Microsecond) // want `loop polls with a 5µs sleep, which wakes a thread every iteration; wait on a channel`
	}
}

func namedConst() {
	for !ready.Load() {
		clock.Sleep(poll) // want `100µs sleep`
	}
}

func rawNanoseconds() {
	for !ready.Load() {
		clock.Sleep(999999) // want `999.999µs sleep`
	}
}

func breakOut() {
	for {
		if ready.Load() {
			break
		}
		clock.Sleep(10 * clock.Microsecond) // want `10µs sleep`
	}
}

func returnOut(ctx context.Context, done func() bool) {
	for {
		if done() { // the polled condition may call anything
			return
		}
		clock.Sleep(50 * clock.Microsecond) // want `50µs sleep`
	}
}

func labelledLoop() {
wait:
	for {
		switch {
		case ready.Load():
			break wait
		}
		clock.Sleep(clock.Microsecond) // want `1µs sleep`
	}
}

func throttle() {
	for runtime.NumGoroutine() > limit {
		clock.Sleep(5 * clock.Microsecond) // want `5µs sleep`
	}
}

func underIf(slow bool) {
	for !ready.Load() {
		if !slow {
			clock.Sleep(20 * clock.Microsecond) // want `20µs sleep`
		}
	}
}

type waiter struct{ flag atomic.Int32 }

func (w *waiter) wait() {
	for i := 0; w.flag.Load() == 0; i++ {
		clock.Sleep(clock.Microsecond) // want `1µs sleep`
	}
}

func inGoroutine() {
	go func() {
		for !ready.Load() {
			clock.Sleep(clock.Microsecond) // want `1µs sleep`
		}
	}()
}

// Negatives.

func oneMillisecond() {
	for !ready.Load() {
		clock.Sleep(clock.Millisecond)
	}
}

func backoff() {
	d := clock.Microsecond
	for !ready.Load() {
		clock.Sleep(d)
		d *= 2
	}
}

func zero() {
	for !ready.Load() {
		clock.Sleep(0) // SD104's
	}
}

func notInLoop() {
	clock.Sleep(5 * clock.Microsecond)
}

func pacing(items []int) {
	for _, it := range items {
		n += it
		clock.Sleep(10 * clock.Microsecond)
	}
}

func counted() {
	for i := 0; i < 10; i++ {
		n++
		clock.Sleep(10 * clock.Microsecond)
	}
}

func forever() {
	for {
		n++
		clock.Sleep(10 * clock.Microsecond)
	}
}

func blocksOnChannel(in chan int) {
	for !ready.Load() {
		n += <-in
		clock.Sleep(10 * clock.Microsecond)
	}
}

func doesWork(work func()) {
	for !ready.Load() {
		work()
		clock.Sleep(10 * clock.Microsecond)
	}
}

func inDefault(jobs chan int) {
	for {
		select {
		case <-jobs:
			return
		default:
			clock.Sleep(10 * clock.Microsecond) // SD101's
		}
	}
}

func closureInLoop() {
	for !ready.Load() {
		f := func() { clock.Sleep(clock.Microsecond) }
		_ = f
		clock.Sleep(2 * clock.Millisecond)
	}
}

type fake struct{}

func (fake) Sleep(clock.Duration) {}

func userSleep(f fake) {
	for !ready.Load() {
		f.Sleep(clock.Microsecond)
	}
}
