package spinwait

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

var (
	ready atomic.Bool
	state int32
	flag  bool
	spins int
	ch    = make(chan int, 1)
	x     atomic.Int64
)

// Positives.

func gosched() {
	for !ready.Load() { // want `loop spins while !ready.Load\(\): runtime.Gosched does not park, so it keeps a P for as long as it waits; unless the wait is always a few instructions, block on a channel, sync.Cond or WaitGroup instead`
		runtime.Gosched()
	}
}

func emptyBody() {
	for !ready.Load() { // want `loop spins while !ready.Load\(\), holding a core for as long as it waits; unless the wait is always a few instructions, block`
	}
}

func atomicFunc() {
	for atomic.LoadInt32(&state) == 0 { // want `loop spins while atomic.LoadInt32\(&state\) == 0`
		runtime.Gosched()
	}
}

func plainFlag() {
	for !flag { // want `loop spins while !flag`
	}
}

func breakOut() {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		if ready.Load() {
			break
		}
		runtime.Gosched()
	}
}

func returnOut() int {
	for { // want `loop spins with nothing that blocks`
		if atomic.LoadInt32(&state) != 0 {
			return int(state)
		}
	}
}

func channelLength() {
	for len(ch) == 0 { // want `loop spins while len\(ch\) == 0`
		runtime.Gosched()
	}
}

func countsSpins() {
	for !ready.Load() { // want `loop spins while !ready.Load\(\)`
		spins++
		runtime.Gosched()
	}
}

func onlyGosched() {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		runtime.Gosched()
	}
}

func untilCancelled(ctx context.Context) {
	for ctx.Err() == nil { // want `loop spins while ctx.Err\(\) == nil`
		runtime.Gosched()
	}
}

type waiter struct{ done atomic.Bool }

func (w *waiter) wait() {
	for i := 0; !w.done.Load(); i++ { // want `loop spins while !w.done.Load\(\)`
		runtime.Gosched()
	}
}

func labelled() {
spin:
	for { // want `loop spins with nothing that blocks`
		switch {
		case ready.Load():
			break spin
		}
	}
}

func inGoroutine() {
	go func() {
		for !ready.Load() { // want `loop spins while !ready.Load\(\)`
		}
	}()
}

// Negatives.

func casRetry() {
	for {
		old := x.Load()
		if x.CompareAndSwap(old, old+1) {
			break
		}
	}
}

func casSpinlock() {
	for !atomic.CompareAndSwapInt32(&state, 0, 1) {
		runtime.Gosched()
	}
}

func sleeps() {
	for !ready.Load() {
		time.Sleep(time.Millisecond)
	}
}

func tinySleep() {
	for !ready.Load() {
		time.Sleep(time.Microsecond) // SD102's
	}
}

func receives() {
	for !ready.Load() {
		<-ch
	}
}

func selects() {
	for !ready.Load() {
		select {
		case <-ch:
		default:
		}
	}
}

func doesWork(work func()) {
	for !ready.Load() {
		work()
	}
}

func counted(n int) {
	for i := 0; i < n; i++ {
		runtime.Gosched()
	}
}

func boundByCounter() {
	for spins < 100 {
		spins++
	}
}

func rangeLoop(items []int) {
	for range items {
		runtime.Gosched()
	}
}

func walk(l *list) {
	for l != nil {
		l = l.next
	}
}

type list struct{ next *list }

func busyDelay(d time.Duration) {
	start := time.Now()
	for time.Since(start) < d {
	}
}

func stores() {
	for !ready.Load() {
		x.Store(1)
	}
}

func throttle() {
	for runtime.NumGoroutine() > 8 {
		runtime.Gosched()
	}
}

func freshEachIteration() {
	for {
		done := false
		if done {
			break
		}
		spins++
	}
}
