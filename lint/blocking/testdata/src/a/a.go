package a

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"b"
)

var (
	n     int
	flag  atomic.Bool
	mu    sync.Mutex
	ch    = make(chan int, 1)
	ready = make(chan struct{})
)

func empty() {} // want empty:"never blocks"

func arith(x int) int { return x*2 + n } // want arith:"never blocks"

func std(x int) string { return strings.Repeat(strconv.Itoa(x), 2) + fmt.Sprintf("%d", x) } // want std:"never blocks"

func loadFlag() bool { return flag.Load() } // want loadFlag:"never blocks, polls"

func tryRecv() bool { // want tryRecv:"never blocks, polls"
	select {
	case <-ready:
		return true
	default:
		return false
	}
}

func trySend(v int) bool { // want trySend:"never blocks, polls"
	select {
	case ch <- v:
		return true
	default:
		return false
	}
}

func callsPoller() bool { return loadFlag() } // want callsPoller:"never blocks, polls"

func yields() { runtime.Gosched() } // want yields:"never blocks"

func otherPkg() { b.Inc() } // want otherPkg:"never blocks"

func otherMethod(c *b.Counter) { c.Add(1) } // want otherMethod:"never blocks"

func panics(err error) { // want panics:"never blocks"
	if err != nil {
		panic(err)
	}
}

func immediate() { func() { n++ }() } // want immediate:"never blocks"

// Recursion that blocks nowhere never blocks; recursion through a
// blocking call does.
func ping(k int) int { // want ping:"never blocks"
	if k == 0 {
		return 0
	}
	return pong(k - 1)
}

func pong(k int) int { return ping(k) } // want pong:"never blocks"

func down(k int) { // want down:"may block, locks"
	if k > 0 {
		up(k - 1)
	}
}

func up(k int) { // want up:"may block, locks"
	if k == 5 {
		mu.Lock()
		mu.Unlock()
	}
	down(k)
}

// Blocks: a top-level statement always parks.

func recv() int { return <-ch }

func recvStmt() { <-ready } // want recvStmt:"blocks"

func send(v int) { ch <- v } // want send:"blocks"

func sleep() { time.Sleep(time.Millisecond) } // want sleep:"blocks"

func forever() { select {} } // want forever:"blocks"

func locks() { mu.Lock(); n++; mu.Unlock() } // want locks:"^blocks, locks$"

// Critical sections: a mutex taken and released by the function itself.

type lq struct {
	mu    sync.Mutex
	rw    sync.RWMutex
	items []int
}

func (q *lq) pop() (int, bool) { // want pop:"^blocks, locks$"
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func (q *lq) size() int { // want size:"^blocks, locks$"
	q.rw.RLock()
	defer q.rw.RUnlock()
	return len(q.items)
}

func (q *lq) viaPop() bool { _, ok := q.pop(); return ok } // want viaPop:"^may block, locks$"

// Not critical sections: a lock kept, a read lock released as a write
// lock, a wait under the lock.
func (q *lq) hold() { q.mu.Lock() } // want hold:"^blocks$"

func (q *lq) mismatched() { // want mismatched:"^blocks$"
	q.rw.RLock()
	q.rw.Unlock()
}

func (q *lq) waitUnder() { // want waitUnder:"^blocks$"
	q.mu.Lock()
	<-ch
	q.mu.Unlock()
}

func viaPkgLocker() int { return b.Len() } // want viaPkgLocker:"^may block, locks$"

func viaOther() { b.Lock() } // want viaOther:"^blocks$"

func viaLocal() { locks() } // want viaLocal:"blocks"

// May block: no fact.

func maybeSend(v int) {
	if v > 0 {
		ch <- v
	}
}

func dynamic(f func()) { f() }

type waiter interface{ Wait() }

func iface(w waiter) { w.Wait() }

func unknownExt() { b.Maybe(nil) }

func spawns() { go empty() }

func io() { os.Stdout.WriteString("x") }

func exits() { os.Exit(1) }

func printsBuiltin() { println("x") }

func ranges() {
	for range ch {
	}
}

func generic[T any](v T) T { return v } // want generic:"never blocks"

func callsGeneric() int { return generic(1) } // want callsGeneric:"never blocks"

func noBody()

func sum(xs []int) (t int) { // want sum:"never blocks, loops"
	for _, x := range xs {
		t += x
	}
	return t
}

func callsSum() int { return sum(nil) } // want callsSum:"never blocks, loops"

// swaps: a compare-and-swap, here or in a callee.
func casFlag() bool { return flag.CompareAndSwap(false, true) } // want casFlag:"never blocks, polls, swaps"

func viaCAS() bool { return casFlag() } // want viaCAS:"never blocks, polls, swaps"

// mutates: writes through a pointer (a queue's pop); a package-level
// variable or a local does not count.
type stack []*int

func (s *stack) pop() *int { // want pop:"never blocks, mutates"
	if len(*s) == 0 {
		return nil
	}
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v
}

type box struct{ n int }

func (b *box) bump() { b.n++ } // want bump:"never blocks, mutates"

func (b box) local() int { b.n++; return b.n } // want local:"never blocks"
