package spinwait

import (
	"runtime"
	"sync/atomic"
)

// A reader that waits for a slot's state with a blind compare-and-swap
// from a fixed state: on an idle queue every CAS fails and the loop
// spins (users of such queues report 100% CPU while idle).

const (
	slotEmpty int32 = iota
	slotCommitted
	slotReading
)

type slotQueue struct {
	state atomic.Int32
	raw   int32
	flag  atomic.Bool
	item  int
}

// Positives.

func (q *slotQueue) read() int {
	for !atomic.CompareAndSwapInt32(&q.raw, slotCommitted, slotReading) { // want `loop spins while !atomic.CompareAndSwapInt32\(&q.raw, slotCommitted, slotReading\): runtime.Gosched does not park, so it keeps a P`
		runtime.Gosched()
	}
	v := q.item
	atomic.StoreInt32(&q.raw, slotEmpty)
	return v
}

func (q *slotQueue) readMethod() int {
	for !q.state.CompareAndSwap(slotCommitted, slotReading) { // want `loop spins while !q.state.CompareAndSwap`
		runtime.Gosched()
	}
	v := q.item
	q.state.Store(slotEmpty)
	return v
}

func (q *slotQueue) readNoYield() int {
	for !q.state.CompareAndSwap(slotCommitted, slotReading) { // want `loop spins while`
	}
	return q.item
}

func (q *slotQueue) readIfBreak() int {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		if q.state.CompareAndSwap(slotCommitted, slotReading) {
			break
		}
		runtime.Gosched()
	}
	return q.item
}

// Consuming a flag another goroutine sets: wait until true, then clear.
func (q *slotQueue) consumeFlag() {
	for !q.flag.CompareAndSwap(true, false) { // want `loop spins while`
		runtime.Gosched()
	}
}

// Negatives.

// A CAS retry loop that recomputes from a fresh load: each failure means
// another goroutine's CAS won.
func (q *slotQueue) incr() {
	for {
		old := q.state.Load()
		if q.state.CompareAndSwap(old, old+1) {
			return
		}
	}
}

// A state transition tried only when a fresh load shows the state: a
// failure means another goroutine moved it first.
func (q *slotQueue) stop() bool {
	for {
		switch q.state.Load() {
		case slotCommitted:
			if q.state.CompareAndSwap(slotCommitted, slotReading) {
				return true
			}
		default:
			return false
		}
	}
}

// A spin lock's acquire, from the zero value: left to the lock's author.
func (q *slotQueue) lock() {
	for !q.state.CompareAndSwap(slotEmpty, slotReading) {
		runtime.Gosched()
	}
}

// A CAS from a fixed state to a computed value: a claim with an owner.
func (q *slotQueue) claim(id int32) {
	for !q.state.CompareAndSwap(slotCommitted, id) {
		runtime.Gosched()
	}
}

// The blind CAS is not the loop's first step: what comes before it may
// be what the loop waits on, or work.
func (q *slotQueue) afterWork(work func()) {
	for !q.state.CompareAndSwap(slotCommitted, slotReading) {
		work()
	}
}

// A hand-made lock's release: it waits out the other side's short
// critical section (state 2 between do and done), and looks at the state
// itself: left to its author.
func (q *slotQueue) unused() {
	for !atomic.CompareAndSwapInt32(&q.raw, slotCommitted, slotEmpty) {
		if atomic.LoadInt32(&q.raw) == slotEmpty {
			return
		}
		runtime.Gosched()
	}
}
