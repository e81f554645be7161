// Spikes makes scheduling latency in bursts: every 500ms it starts 2,000
// goroutines that each compute for a while (a fan-out with no bound), and
// 20 times a second one goroutine closes a channel that 1,000 goroutines
// wait on (a broadcast): each wake-up queues behind the others. The
// trace's whole-run p99 hides both; its 100ms windows show them. The fixed
// twin does the same work at the same average rate, steadily: a pool of
// GOMAXPROCS workers takes the items as they come, and the waiters are
// woken one at a time, spread over the period.
//
// The work of one goroutine is scaled to the Ps so that a burst is about a
// fifth of the CPU of its period (-work overrides it): 50µs × GOMAXPROCS,
// 800µs on 16 Ps. -waker picks how the broadcast wakes its waiters:
// close (a channel close in a function), method (the close in a method),
// closure (in a closure), cond (sync.Cond.Broadcast), wg (a WaitGroup the
// waiters wait on, released by the last Done).
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

var (
	burst     = flag.Int("burst", 2000, "goroutines started in each burst")
	every     = flag.Duration("every", 500*time.Millisecond, "time between bursts")
	work      = flag.Duration("work", 0, "CPU time of one goroutine of a burst; 0: 50µs × GOMAXPROCS")
	waiters   = flag.Int("waiters", 1000, "goroutines woken at once by the broadcast")
	perSecond = flag.Int("broadcasts", 20, "broadcasts a second")
	waker     = flag.String("waker", "close", "how the broadcast wakes: close, method, closure, cond or wg")
)

func main() { labrun.Main(bad, fixed) }

var ops atomic.Int64

// hashFor computes for about d.
func hashFor(d time.Duration) {
	var b [32]byte
	// one sha256 of 32 bytes takes about 250ns
	for i := 0; i < int(d/(250*time.Nanosecond)); i++ {
		b = sha256.Sum256(b[:])
	}
	ops.Add(1)
}

func workPer() time.Duration {
	if *work > 0 {
		return *work
	}
	return 50 * time.Microsecond * time.Duration(runtime.GOMAXPROCS(0))
}

func bad(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); fanOut(ctx) }()
	go func() { defer wg.Done(); broadcasts(ctx) }()
	wg.Wait()
}

// fanOut starts a goroutine per item, a burst every period.
func fanOut(ctx context.Context) {
	d := workPer()
	tick := time.NewTicker(*every)
	defer tick.Stop()
	var wg sync.WaitGroup
	for {
		for i := 0; i < *burst; i++ {
			wg.Add(1)
			go func() { // lab:SD315
				defer wg.Done()
				hashFor(d)
			}()
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		}
	}
}

// gate is one round of the broadcast: the waiters block on ch (or wg, or
// the cond) until release opens it, then move on to next, which is set
// before the gate opens.
type gate struct {
	ch   chan struct{}
	wg   sync.WaitGroup
	next *gate
}

func newGate() *gate {
	g := &gate{ch: make(chan struct{})}
	g.wg.Add(1)
	return g
}

func (g *gate) release() { close(g.ch) } // lab:SD316:method

// broadcasts wakes all the waiters at once, perSecond times a second. The
// waiters live for the whole run: each round wakes the same ones.
func broadcasts(ctx context.Context) {
	period := time.Second / time.Duration(*perSecond)
	first := newGate()
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	round := 0
	for i := 0; i < *waiters; i++ {
		go func() {
			g, seen := first, 0
			for {
				switch *waker {
				case "cond":
					mu.Lock()
					for round == seen {
						cond.Wait()
					}
					seen = round
					mu.Unlock()
				case "wg":
					g.wg.Wait()
					g = g.next
				default:
					<-g.ch
					g = g.next
				}
				hashFor(time.Microsecond)
			}
		}()
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	g := first
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		g.next = newGate()
		switch *waker {
		case "cond":
			mu.Lock()
			round++
			mu.Unlock()
			cond.Broadcast() // lab:SD316:cond
		case "wg":
			g.wg.Done() // lab:SD316:wg
		case "method":
			g.release()
		case "closure":
			func() {
				close(g.ch) // lab:SD316:closure
			}()
		default:
			close(g.ch) // lab:SD316
		}
		g = g.next
	}
}

// fixed does the same work at the same average rate, steadily: a pool of
// GOMAXPROCS workers takes burst items per period, paced, and each waiter
// is woken on its own, in turn, perSecond times a second.
func fixed(ctx context.Context) {
	d := workPer()
	var wg sync.WaitGroup
	items := make(chan struct{}, runtime.GOMAXPROCS(0))
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range items {
				hashFor(d)
			}
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		// burst items per period, one slice of them every millisecond
		perMs := max(*burst*int(time.Millisecond)/int(*every), 1)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			for i := 0; i < perMs; i++ {
				items <- struct{}{}
			}
			<-tick.C
		}
		close(items)
	}()
	go func() {
		defer wg.Done()
		// waiters × perSecond wake-ups a second, a slice every
		// millisecond; the waiters are started as they are first needed,
		// and live on when the run ends (the process exits)
		wake := make([]chan struct{}, *waiters)
		perMs := max(*waiters**perSecond/1000, 1)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		next := 0
		for ctx.Err() == nil {
			for i := 0; i < perMs; i++ {
				if wake[next] == nil {
					wake[next] = make(chan struct{}, 1)
					go func(ch chan struct{}) {
						for range ch {
							hashFor(time.Microsecond)
						}
					}(wake[next])
				}
				select {
				case wake[next] <- struct{}{}:
				default:
				}
				next = (next + 1) % len(wake)
			}
			<-tick.C
		}
	}()
	wg.Wait()
}
