package spinwait

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Busy waits on the clock (time.Time.After and friends are methods on a
// time, not timers): the loop holds a core until the deadline.

type limiter struct {
	deadline time.Time
	work     func()
}

// Positives.

func waitUntil(deadline time.Time) {
	for time.Now().After(deadline) == false { // want `loop spins on the clock until time.Now\(\).After\(deadline\) == false, holding a core; sleep until the deadline`
	}
}

func waitNotAfter(t time.Time) {
	for !t.After(time.Now()) { // want `loop spins on the clock until !t.After\(time.Now\(\)\)`
	}
}

func (l *limiter) waitYield() {
	for time.Now().Before(l.deadline) { // want `loop spins on the clock until .*\(runtime.Gosched does not park\)`
		runtime.Gosched()
	}
}

func waitSince(start time.Time, d time.Duration) int {
	spins := 0
	for { // want `loop spins on the clock until time.Since\(start\) > d`
		if time.Since(start) > d {
			break
		}
		spins++
	}
	return spins
}

// Close negative: a busy delay measured from a start read just before the
// loop burns the CPU for a set time on purpose (busyDelay in a.go too).
func burn(d time.Duration) int {
	spins := 0
	start := time.Now()
	for {
		if time.Since(start) > d {
			break
		}
		spins++
	}
	return spins
}

// Negatives.

// A deadline-bounded loop doing work.
func (l *limiter) workUntil() {
	for time.Now().Before(l.deadline) {
		l.work()
	}
}

// Polling a flag with a timeout: the flag is what it waits on, and the
// clock only bounds it (an adaptive spin before a blocking fallback).
func flagWithTimeout(deadline time.Time) bool {
	for time.Now().Before(deadline) {
		if ready.Load() {
			return true
		}
	}
	return false
}

// Sleeping until the deadline.
func sleepUntil(deadline time.Time) {
	for time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// A counted loop that reads the clock.
func measure(n int) time.Duration {
	start := time.Now()
	for i := 0; i < n && time.Since(start) < time.Second; i++ {
	}
	return time.Since(start)
}

// The condition reads a variable that the body re-reads from shared state.
func reReadBeforeLoop() {
	v := x.Load()
	for v != 2 { // want `loop spins while v != 2`
		v = x.Load()
	}
}

// A post statement that re-reads shared state polls; one that steps an
// iterator walks.
var word int32

func rereadPost() {
	for n := atomic.LoadInt32(&word); n == 0; n = atomic.LoadInt32(&word) { // want `loop spins while n == 0`
	}
}

type iter struct {
	items []int
	pos   int
}

func (it *iter) Next() bool {
	it.pos++
	return it.pos < len(it.items)
}

func iterate(it *iter) {
	for ok := it.Next(); ok; ok = it.Next() {
	}
}

// The condition reads a value the body computes from a counter it steps:
// a search, not a wait (cmd/compile's loopreschedchecks, cmd/link's
// unique section names).
type block struct {
	id    int
	preds []*block
}

func firstDef(b *block, defs []*int) *int {
	var mem *int
	for j := 0; mem == nil; j++ {
		mem = defs[b.preds[j].id]
	}
	return mem
}

type section struct{ name string }

func uniqueName(used map[string]bool, sect *section) string {
	name := sect.name
	counter := 0
	for used[name] {
		counter++
		name = fmt.Sprintf("%s%d", sect.name, counter)
	}
	return name
}
