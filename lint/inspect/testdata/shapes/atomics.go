package shapes

import (
	"flag"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

func waitFlag(ready *atomic.Bool) {
	for !ready.Load() {
		runtime.Gosched() // at: yield-spin
	}
}

func sleepZero(flag *int32) {
	for atomic.LoadInt32(flag) == 0 {
		time.Sleep(0) // at: yield-spin
	}
}

func afterZero(ready *atomic.Bool) {
	for !ready.Load() {
		<-time.After(0) // at: yield-spin
	}
}

// politeCompute yields between units of work: not waiting for anyone.
func politeCompute(items []int) (s int) {
	for _, it := range items {
		s += it * it
		runtime.Gosched() // at: compute
	}
	return s
}

func incr(x *atomic.Int64) {
	for {
		old := x.Load() // at: retry-cas
		if x.CompareAndSwap(old, old+1) {
			return
		}
	}
}

// incrYield yields only after its own CAS failed: contention, not a wait.
func incrYield(x *atomic.Int64) {
	for {
		old := x.Load()
		if x.CompareAndSwap(old, old+1) {
			return
		}
		runtime.Gosched() // at: retry-cas
	}
}

func incrFunc(p *int64) {
	for old := atomic.LoadInt64(p); !atomic.CompareAndSwapInt64(p, old, old+1); old = atomic.LoadInt64(p) { // at: retry-cas
	}
}

// spinLock waits for another goroutine to put 0 back: a hand-made lock,
// which spinwait (SD106) leaves to the lock's author; the verdict follows
// lint and says the loop retries a compare-and-swap.
func spinLock(p *int32) {
	for !atomic.CompareAndSwapInt32(p, 0, 1) { // at: retry-cas
	}
}

type ring struct {
	head, tail atomic.Uint64
	buf        [8]int
}

// put waits for the consumer to move head, yielding: a ring buffer spin,
// even though the loop also retries a CAS.
func (r *ring) put(v int) {
	for {
		tail := r.tail.Load()
		head := r.head.Load()
		if tail-head >= uint64(len(r.buf)) {
			runtime.Gosched() // at: yield-spin func: (*ring).put
			continue
		}
		if r.tail.CompareAndSwap(tail, tail+1) {
			r.buf[tail%uint64(len(r.buf))] = v
			return
		}
	}
}

// get waits for the producer without yielding.
func (r *ring) get() int {
	for {
		head := r.head.Load()
		if head == r.tail.Load() { // at: atomic-spin
			continue
		}
		if r.head.CompareAndSwap(head, head+1) {
			return r.buf[head%uint64(len(r.buf))]
		}
	}
}

func spinFlag(ready *atomic.Bool) {
	for !ready.Load() { // at: atomic-spin
	}
}

var stop bool

func spinVar() {
	for !stop { // at: atomic-spin
	}
}

func gate(upstream *atomic.Int64, x int64) (g int64) {
	for {
		g = upstream.Load() // at: atomic-spin
		if g >= x {
			break
		}
	}
	return g
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func spinHelper(c chan struct{}) {
	for !isDone(c) { // at: atomic-spin
	}
}

func tryLockSpin(mu *sync.Mutex) {
	for !mu.TryLock() { // at: atomic-spin
	}
}

func hash(in []int) (h int) {
	for _, v := range in {
		h = h*31 + v
	}
	return h
}

// worker checks a stop flag between units of work.
func worker(stop *atomic.Bool, in []int) (s int) {
	for {
		if stop.Load() {
			return s
		}
		s += hash(in) // at: compute
	}
}

func countDown(n int) (steps int) {
	for n > 0 { // at: compute
		n /= 2
		steps++
	}
	return steps
}

func sleepPoll(ready *atomic.Bool) {
	for !ready.Load() {
		time.Sleep(5 * time.Microsecond) // at: sleep-poll
	}
}

func sleepLocalConst(ready *atomic.Bool) {
	const pause = 50 * time.Microsecond
	for !ready.Load() {
		time.Sleep(pause) // at: sleep-poll
	}
}

type queue struct{ n atomic.Int64 }

func (q *queue) pop() (int64, bool) {
	v := q.n.Add(-1)
	return v, v >= 0
}

func sleepLocalVar(q *queue) (s int64) {
	d := 100 * time.Microsecond
	for {
		j, ok := q.pop()
		if !ok {
			time.Sleep(d) // at: sleep-poll
			continue
		}
		s += j
	}
}

func sleepLong(ready *atomic.Bool) {
	for !ready.Load() {
		time.Sleep(10 * time.Millisecond) // at: blocking
	}
}

// backoff doubles its sleep: the length is not one constant, and the
// source alone cannot say whether it waits or spins.
func backoff(ready *atomic.Bool) {
	d := time.Microsecond
	for !ready.Load() {
		time.Sleep(d) // at: sleep-unknown
		d *= 2
	}
}

// retry is a flag whose default is 0: esqueue's retry loop sleeps it, and
// then spins. Neither blocking nor a spin from the source alone.
var retry = flag.Duration("retry", 0, "pause between retries")

func retryPut(put func() bool) {
	for !put() {
		time.Sleep(*retry) // at: sleep-unknown
	}
}

// retryHelper sleeps a non-constant length through a helper: lint/blocking's
// fact for nap is that it blocks (time.Sleep does), and the verdict follows.
func retryHelper(ready *atomic.Bool) {
	for !ready.Load() { // at: blocking
		nap()
	}
}

func nap() { time.Sleep(*retry) }

func consume(jobs chan int) (s int) {
	for j := range jobs { // at: blocking
		s += j
	}
	return s // at: not-in-loop
}

func locker(mu *sync.Mutex, n *int) {
	for {
		mu.Lock() // at: blocking
		*n++
		mu.Unlock()
	}
}

// reader calls an interface's Read: whether it blocks depends on what
// implements it, which the source does not say. Not a spin, not proven
// work either: unknown, and the verdict names the call.
func reader(r io.Reader, buf []byte) {
	for {
		if _, err := r.Read(buf); err != nil { // at: unknown
			return
		}
	}
}

func sum(xs []int) (s int) {
	for _, x := range xs {
		s += x // at: compute
	}
	return s
}

// nested computes between yields while it waits: cooperative compute,
// which spinwait (SD106) leaves alone, so both loops are compute.
func nested(ready *atomic.Bool, xs []int) (s int) {
	for !ready.Load() {
		for _, x := range xs {
			s += x // at: compute
		}
		runtime.Gosched()
	}
	return s
}

func empty() {
	for { // at: atomic-spin
	}
}

// nestedSpin computes between polls of a select with a default: the inner
// loop is compute, the outer one the spin (SD101).
func nestedSpin(done chan struct{}, xs []int) (s int) {
	for {
		select {
		case <-done:
			return s
		default:
		}
		for _, x := range xs {
			s += x // at: compute
		}
	}
}
