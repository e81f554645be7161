package loops

import (
	"context"
	"crypto/sha256"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"ring"
)

// request stands for *http.Request (net/http from source would make the
// test slow): Context is a getter.
type request struct{ ctx context.Context }

func (r *request) Context() context.Context { return r.ctx }

func handler(r *request, done chan struct{}) {
	for { // loop: select-default SD101
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		default:
		}
	}
}

func twin(r *request, done chan struct{}) {
	for { // loop: blocking
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

var sink [32]byte

func hashing(done chan struct{}, buf []byte) {
	for { // loop: compute
		select {
		case <-done:
			return
		default:
			sink = sha256.Sum256(buf)
		}
	}
}

// next retries another package's non-blocking Dequeue: its facts say it
// never blocks and polls, so the caller's loop is the spin.
func next(q *ring.Ring) int {
	for { // loop: atomic-spin SD106
		if v, ok := q.Dequeue(); ok {
			return v
		}
	}
}

// consume works on what it takes and retries the take at once when the
// ring is empty: the spin is the path that found nothing.
func consume(q *ring.Ring, stop *atomic.Bool) {
	for !stop.Load() { // loop: atomic-spin SD106
		v, ok := q.Dequeue()
		if !ok {
			continue
		}
		sink = sha256.Sum256([]byte{byte(v)})
	}
}

// consumeYield yields when the ring is empty: a yield spin.
func consumeYield(q *ring.Ring) {
	for { // loop: yield-spin SD106
		v, ok := q.Dequeue()
		if !ok {
			runtime.Gosched()
			continue
		}
		sink = sha256.Sum256([]byte{byte(v)})
	}
}

func yield(ready *atomic.Bool) {
	for !ready.Load() { // loop: yield-spin SD106
		runtime.Gosched()
	}
}

func sleepZero(ready *atomic.Bool) {
	for !ready.Load() { // loop: yield-spin SD104
		time.Sleep(0)
	}
}

func poll(ready *atomic.Bool) {
	for !ready.Load() { // loop: sleep-poll SD102
		time.Sleep(50 * time.Microsecond)
	}
}

func timer(c chan int) {
	for { // loop: timer-per-iter SD104
		select {
		case <-c:
		case <-time.After(time.Second):
			return
		}
	}
}

func locked(mu *sync.Mutex, n *int) {
	for *n > 0 { // loop: blocking
		mu.Lock()
		*n--
		mu.Unlock()
	}
}

func sleepVar(ready *atomic.Bool, d time.Duration) {
	for !ready.Load() { // loop: sleep-unknown
		time.Sleep(d)
	}
}

func add(p *atomic.Int64, d int64) {
	for { // loop: retry-cas
		old := p.Load()
		if p.CompareAndSwap(old, old+d) {
			return
		}
	}
}

func callback(f func() bool) {
	for f() { // loop: unknown
	}
}

func sum(xs []int) (s int) {
	for _, x := range xs { // loop: compute
		s += x
	}
	return s
}
