package timerloop

import (
	"context"
	"time"
)

// Timers assigned in a branch and received on a later pass, and loops
// that end when their context is done.

type batcher struct {
	in  chan int
	ctx context.Context
}

// Positives.

// The idle timer re-armed on every message: the pending one is dropped.
func (b *batcher) idleFlush() {
	var idle <-chan time.Time
	for {
		select {
		case m := <-b.in:
			sum += m
			idle = time.After(time.Second) // want `time.After in a loop, assigned in a branch, makes a new timer each time the branch runs and drops the pending one`
		case <-idle:
			flushes++
		}
	}
}

// Armed under an if that does not look at the timer.
func (b *batcher) armedUnderIf(pending []int) {
	var flushc <-chan time.Time
	for {
		if len(pending) > 0 {
			flushc = time.After(100 * time.Millisecond) // want `assigned in a branch`
		}
		select {
		case m := <-b.in:
			pending = append(pending, m)
		case <-flushc:
			pending = pending[:0]
		}
	}
}

// A timer, not its channel, re-made per message.
func (b *batcher) newTimerInCase() {
	t := time.NewTimer(time.Second)
	for {
		select {
		case m := <-b.in:
			sum += m
			t = time.NewTimer(time.Second) // want `time.NewTimer in a loop, assigned in a branch`
		case <-t.C:
			flushes++
		}
	}
}

// Negatives.

// Armed only when none is pending.
func (b *batcher) armOnce() {
	var flushc <-chan time.Time
	for {
		select {
		case m := <-b.in:
			sum += m
			if flushc == nil {
				flushc = time.After(time.Second)
			}
		case <-flushc:
			flushc = nil
			flushes++
		}
	}
}

// Re-armed in the case that received it: that timer fired.
func (b *batcher) rearmOnFire() {
	tickc := time.After(time.Second)
	for {
		select {
		case m := <-b.in:
			sum += m
		case <-tickc:
			flushes++
			tickc = time.After(time.Second)
		}
	}
}

// The replaced timer is stopped first.
func (b *batcher) stopThenNew() {
	t := time.NewTimer(time.Second)
	for {
		select {
		case m := <-b.in:
			sum += m
			t.Stop()
			t = time.NewTimer(time.Second)
		case <-t.C:
			flushes++
		}
	}
}

// Every other case leaves: one timer per call.
func (b *batcher) otherCasesLeave() {
	var idle <-chan time.Time
	for {
		select {
		case <-b.in:
			idle = time.After(time.Second)
			return
		case <-idle:
			flushes++
		}
	}
}

// The loop ends when ctx is done: the timer of the last round is dropped
// once, at the end, not per iteration.
func pollUntilDone(ctx context.Context, d time.Duration) {
	for ctx.Err() == nil {
		flushes++
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (b *batcher) pollFieldCtx() {
	for b.ctx.Err() == nil && sum < 100 {
		flushes++
		select {
		case <-b.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func pollCheckFirst(ctx context.Context) {
	for {
		if ctx.Err() != nil {
			return
		}
		flushes++
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// Close positive: the loop's condition is another context's, so the
// Done case lets this loop go on, and a timer is dropped per round.
func pollOtherCtx(ctx, other context.Context) {
	for other.Err() == nil {
		flushes++
		select {
		case <-ctx.Done():
		case <-time.After(time.Second): // want `time.After in a loop makes a new timer every iteration`
		}
	}
}

// Close positive: the condition is || ctx.Err() == nil: the loop may go on.
func pollOr(ctx context.Context) {
	for sum < 10 || ctx.Err() == nil {
		flushes++
		select {
		case <-ctx.Done():
		case <-time.After(time.Second): // want `time.After in a loop makes a new timer every iteration`
		}
	}
}

// A batch window: the timer is made per batch and received in an inner
// loop that goes round until it fires (or the batcher stops).
func (b *batcher) batchWindow(stop chan struct{}) {
	for {
		var batch []int
		select {
		case <-stop:
			return
		case m := <-b.in:
			batch = append(batch, m)
		}
		timer := time.NewTimer(100 * time.Millisecond)
		for complete := false; !complete; {
			select {
			case <-stop:
				complete = true
			case m := <-b.in:
				batch = append(batch, m)
			case <-timer.C:
				complete = true
			}
		}
		timer.Stop()
		sum += len(batch)
	}
}
