package busyselect

import (
	"strconv"
	"sync/atomic"
	"time"

	"busyselect/dep"
)

// Shapes that per-function facts decide: a default that calls a helper
// which never blocks spins as surely as an empty one.

type metrics struct{ misses atomic.Int64 }

func (m *metrics) inc() { m.misses.Add(1) }

var stats metrics

func foo() {}

// recursive helpers that block nowhere never block.
func even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n int) bool {
	if n == 0 {
		return false
	}
	return even(n - 1)
}

func helperDefault() {
	for {
		select { // want `default only calls metrics.inc, which never blocks`
		case j := <-jobs:
			handle(j)
		default:
			stats.inc()
		}
	}
}

func emptyHelperDefault() {
	for {
		select { // want `default only calls busyselect.foo, which never blocks`
		case <-jobs:
		default:
			foo()
		}
	}
}

func recursiveHelperDefault() {
	for {
		select { // want `only calls busyselect.even`
		case <-jobs:
		default:
			_ = even(4)
		}
	}
}

func stdHelperDefault() {
	for {
		select { // want `only calls strconv.Itoa`
		case <-jobs:
		default:
			_ = strconv.Itoa(idle)
		}
	}
}

func otherPackageHelperDefault() {
	for {
		select { // want `only calls dep.Count, which never blocks`
		case <-jobs:
		default:
			dep.Count()
		}
	}
}

// A non-blocking send in the default is only tried: the loop still spins.
func trySendDefault(v int) {
	for {
		select { // want `neither blocks nor leaves`
		case <-jobs:
		default:
			select {
			case out <- v:
			default:
			}
		}
	}
}

// Labelled loops and selects inside goroutine closures.
func labelledInClosure() {
	go func() {
	outer:
		for {
			select { // want `only calls metrics.inc`
			case v, ok := <-jobs:
				if !ok {
					break outer
				}
				handle(v)
			default:
				stats.inc()
				continue outer
			}
		}
	}()
}

func labelledSelectInClosure() {
	go func() {
		for {
		sel:
			select { // want `neither blocks nor leaves`
			case v := <-jobs:
				handle(v)
			default:
				if idle > 0 {
					break sel
				}
			}
		}
	}()
}

// Negatives.

// The capacity-1 "replace the pending value" loop: send, or drain the
// stale value and retry, then return. Each failed send frees the slot.
func replacePending(latest chan int, v int) {
	for {
		select {
		case latest <- v:
			return
		default:
			select {
			case <-latest:
			default:
			}
		}
	}
}

// A done flag the default sets ends the loop.
func drainUntilEmpty(c chan int) {
	for done := false; !done; {
		select {
		case v := <-c:
			handle(v)
		default:
			done = true
		}
	}
}

// A helper that blocks, here or in another package, keeps the loop honest.
func blockingHelper() { time.Sleep(time.Millisecond) }

func blockingHelperDefault() {
	for {
		select {
		case <-jobs:
		default:
			blockingHelper()
		}
	}
}

func otherPackageBlocks() {
	for {
		select {
		case <-jobs:
		default:
			dep.Wait()
		}
	}
}

func otherPackageMayBlock(f func()) {
	for {
		select {
		case <-jobs:
		default:
			dep.Call(f)
		}
	}
}

type waiter interface{ Wait() }

func interfaceDefault(w waiter) {
	for {
		select {
		case <-jobs:
		default:
			w.Wait() // dynamic: may block
		}
	}
}

// A compute loop that checks for cancellation between steps: the step
// never blocks but does work (it loops over its data), so the select's
// default is not the whole iteration.
func step(data []int) {
	for i := range data {
		data[i]++
	}
}

func computeUntilDone(done chan struct{}, data []int) {
	for {
		select {
		case <-done:
			return
		default:
			step(data)
		}
	}
}

// A queue's hand-off to its sleepers (a paraphrase of a queue Put): get
// removes the first sleeper and returns it, nil once none is left; the
// default means "this sleeper gave up, try the next". Each round consumes
// one sleeper, so the loop walks a finite list: silent.
type sleeper struct{ ready chan bool }

type sleepers []*sleeper

func (w *sleepers) get() *sleeper {
	if len(*w) == 0 {
		return nil
	}
	first := (*w)[0]
	*w = (*w)[1:]
	return first
}

func (w *sleepers) peek() *sleeper {
	if len(*w) == 0 {
		return nil
	}
	return (*w)[0]
}

func handOff(ws *sleepers, items []int) {
	for {
		w := ws.get()
		if w == nil {
			break
		}
		select {
		case w.ready <- true:
		default:
		}
		if len(items) == 0 {
			break
		}
	}
}

func handOffOK(ws *sleepers) {
	for {
		w, ok := ws.pop2()
		if !ok {
			return
		}
		select {
		case w.ready <- true:
		default:
		}
	}
}

func (w *sleepers) pop2() (*sleeper, bool) {
	v := w.get()
	return v, v != nil
}

// peek does not consume: the same sleeper comes back every round.
func handOffPeek(ws *sleepers) {
	for {
		w := ws.peek()
		if w == nil {
			break
		}
		select { // want `loop spins a core on a select whose default is empty`
		case w.ready <- true:
		default:
		}
	}
}

// The loop leaves when the pop succeeds: it goes round on the empty
// result, polling for another goroutine's push.
func pollPop(ws *sleepers) *sleeper {
	for {
		if w := ws.get(); w != nil {
			return w
		}
		select { // want `loop spins a core on a select whose default is empty`
		case <-jobs:
		default:
		}
	}
}

func pollPopAssigned(ws *sleepers) *sleeper {
	for {
		w := ws.get()
		if w != nil {
			return w
		}
		select { // want `loop spins a core on a select whose default is empty`
		case <-jobs:
		default:
		}
	}
}
