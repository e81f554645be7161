package shapes

import (
	"context"
	"crypto/sha256"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"
)

// waitJob is the handler of issue 20: it waits for its background job by
// polling, with the request's context read inline in a case. Evaluating
// r.Context().Done() is a getter and a method call, not a wait: the
// select's default makes the loop spin, whichever of its lines is hot.
func waitJob(w http.ResponseWriter, r *http.Request, done chan struct{}) {
	for {
		select { // at: select-default func: waitJob
		case <-done:
			w.WriteHeader(http.StatusOK)
			return
		case <-r.Context().Done(): // at: select-default
			return
		default: // at: select-default
		}
	}
}

// waitJobHoisted is the same with the context read before the loop.
func waitJobHoisted(w http.ResponseWriter, r *http.Request, done chan struct{}) {
	ctx := r.Context()
	for {
		select {
		case <-done: // at: select-default
			w.WriteHeader(http.StatusOK)
			return
		case <-ctx.Done(): // at: select-default
			return
		default:
		}
	}
}

// waitJobBlocking is their blocking twin.
func waitJobBlocking(w http.ResponseWriter, r *http.Request, done chan struct{}) {
	for {
		select {
		case <-done: // at: blocking
			w.WriteHeader(http.StatusOK)
			return
		case <-r.Context().Done(): // at: blocking
			return
		}
	}
}

type ticking struct{ tick <-chan struct{} }

func (t *ticking) C() <-chan struct{} { return t.tick }

// waitGetter takes its channel from a getter of the package.
func waitGetter(t *ticking, stop chan struct{}) {
	for {
		select {
		case <-t.C(): // at: select-default
		case <-stop:
			return
		default:
		}
	}
}

var sink [32]byte

// hashUntilDone does real work in the default: its CPU is SHA-256, not
// the select. Compute, not a busy wait.
func hashUntilDone(done chan struct{}, buf []byte) {
	for {
		select {
		case <-done:
			return
		default:
			sink = sha256.Sum256(buf) // at: compute
		}
	}
}

// addCAS retries a compare-and-swap that wins unless another goroutine
// changed the value in between: a retry, not a wait.
func addCAS(p *atomic.Int64, d int64) {
	for { // at: retry-cas
		old := p.Load()
		if p.CompareAndSwap(old, old+d) {
			return
		}
	}
}

// cooperative computes and yields between chunks: it waits for nothing.
func cooperative(xs []int) (s int) {
	for i, x := range xs {
		s += x * x // at: compute
		if i%1024 == 0 {
			runtime.Gosched()
		}
	}
	return s
}

// lockedYield spins on runtime.Gosched with the thread locked: every
// yield hands the P to another thread and back (mcall, gosched_m and a
// futex in the profile's stacks). The loop is the yield spin.
func lockedYield(ready *atomic.Bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for !ready.Load() {
		runtime.Gosched() // at: yield-spin func: lockedYield
	}
}

type server struct {
	ticker *time.Ticker
	ctx    context.Context
	jobs   chan int
}

// Channels from a field chain: evaluating s.ticker.C or s.ctx.Done() is
// not a wait.
func (s *server) pollFields() {
	for {
		select {
		case <-s.ticker.C: // at: select-default func: (*server).pollFields
		case <-s.ctx.Done():
			return
		default:
		}
	}
}

type box[T any] struct{ c chan T }

func (b *box[T]) ch() chan T { return b.c }

// A method on a generic type, the channel from a method.
func (b *box[T]) drainSpin(stop chan struct{}) {
	for {
		select {
		case <-b.ch(): // at: select-default func: (*box).drainSpin
		case <-stop:
			return
		default:
		}
	}
}

// A closure started by a goroutine, leaving by a labelled break.
func (s *server) start() {
	go func() {
	loop:
		for {
			select {
			case j := <-s.jobs: // at: select-default func: (*server).start.func1
				_ = j
			case <-s.ctx.Done():
				break loop
			default:
			}
		}
	}()
}

// The blocking twin of pollFields.
func (s *server) waitFields() {
	for {
		select {
		case <-s.ticker.C: // at: blocking
		case <-s.ctx.Done():
			return
		}
	}
}
