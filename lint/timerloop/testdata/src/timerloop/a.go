package timerloop

import (
	"context"
	"runtime"
	"time"
)

var (
	in      = make(chan int)
	sum     int
	flushes int
)

const window = 50 * time.Millisecond

// Positives.

func afterInSelect() {
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-time.After(window): // want `time.After in a loop makes a new timer every iteration, dropped when another case wins: each one stays on the timer heap until it fires \(50ms\) unless the main module's go line is 1.23 or later; make one time.Timer before the loop and Reset it`
			flushes++
		}
	}
}

func afterAssigned(ctx context.Context) {
	for ctx.Err() == nil {
		select {
		case m := <-in:
			sum += m
		case now := <-time.After(time.Second): // want `time.After in a loop`
			_ = now
		}
	}
}

func afterInRange(items chan int, out chan int) {
	for v := range items {
		select {
		case out <- v:
		case <-time.After(time.Millisecond): // want `time.After in a loop`
		}
	}
}

func labelledAfter() {
loop:
	for {
		if sum > 10 {
			select {
			case <-in:
				continue loop
			case <-time.After(time.Second): // want `time.After in a loop`
				break loop
			}
		}
	}
}

func newTimerPerIteration() {
	for {
		t := time.NewTimer(window) // want `time.NewTimer in a loop makes a new timer every iteration, dropped when another case wins: .*; make one before the loop and Reset it`
		select {
		case m := <-in:
			t.Stop()
			sum += m
		case <-t.C:
			flushes++
		}
	}
}

func tickInLoop(ctx context.Context) {
	for ctx.Err() == nil {
		<-time.Tick(time.Second) // want `time.Tick in a loop starts a new ticker every iteration, which cannot be stopped: each ticker runs forever unless the main module's go line is 1.23 or later; make one time.Ticker before the loop and defer its Stop`
	}
}

func afterZero() {
	for i := 0; i < 10; i++ {
		select {
		case <-in:
		case <-time.After(0): // want `time.After\(0\) is not a yield`
		}
	}
}

func sleepZero(done func() bool) {
	for !done() {
		time.Sleep(0) // want `time.Sleep\(0\) returns at once and does not yield`
	}
}

func sleepNegative(done func() bool) {
	const none = -time.Nanosecond
	for !done() {
		time.Sleep(none) // want `time.Sleep\(0\) returns at once`
	}
}

type worker struct{ in chan int }

func (w *worker) loop() {
	go func() {
		for {
			select {
			case v := <-w.in:
				sum += v
			case <-time.After(time.Minute): // want `time.After in a loop`
			}
		}
	}()
}

// Negatives.

func timerReset() {
	t := time.NewTimer(window)
	defer t.Stop()
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-t.C:
			flushes++
		}
		t.Reset(window)
	}
}

func afterOutsideLoop() int {
	select {
	case m := <-in:
		return m
	case <-time.After(time.Second):
		return 0
	}
}

func waitWithTimeout() int {
	for {
		select {
		case m := <-in:
			return m
		case <-time.After(time.Second):
			return -1
		}
	}
}

func retryBackoff(ctx context.Context, try func() error) error {
	for attempt := 0; attempt < 5; attempt++ {
		if try() == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * time.Second):
		}
	}
	return nil
}

func newTimerBackoff(ctx context.Context) {
	for {
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func afterInClosure(n int) {
	for range n {
		go func() {
			select {
			case <-in:
			case <-time.After(time.Second):
			}
		}()
	}
}

func afterFuncLit(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		wait := func() {
			<-time.After(time.Second)
		}
		_ = wait
		<-in
	}
}

func afterOnceBeforeLoop() {
	deadline := time.After(time.Second)
	for {
		select {
		case <-in:
		case <-deadline:
			return
		}
	}
}

func tickerInRange() {
	for range time.Tick(time.Second) { // evaluated once
		flushes++
	}
}

func sleepZeroInDefault() {
	for {
		select {
		case <-in:
		default:
			time.Sleep(0) // SD101's
		}
	}
}

// A yield helper: the caller loops around it.
func sleepZeroOnce() {
	time.Sleep(0) // want `time.Sleep\(0\) returns at once and does not yield`
}

func yields(done func() bool) {
	for !done() {
		runtime.Gosched()
	}
}

type fakeClock struct{}

func (fakeClock) After(time.Duration) <-chan time.Time { return nil }

func userAfter(c fakeClock) {
	for {
		select {
		case <-in:
		case <-c.After(time.Second):
		}
	}
}

func h2Backoff(ctx context.Context, try func() error) error {
	for retry := 0; ; retry++ {
		err := try()
		if err == nil {
			return nil
		}
		d := time.Second * time.Duration(1<<retry)
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
			continue
		case <-ctx.Done():
			tm.Stop()
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

func growingAfter(d time.Duration) {
	for {
		select {
		case <-in:
		case <-time.After(d):
			d *= 2
		}
	}
}

func jitter() time.Duration { return time.Second }

func computedAfter() {
	for {
		select {
		case <-in:
		case <-time.After(jitter()):
		}
	}
}

type cfg struct{ timeout time.Duration }

func fieldDuration(c *cfg) {
	for {
		select {
		case <-in:
		case <-time.After(c.timeout): // want `time.After in a loop`
		}
	}
}
