package shapes

import (
	"sync"
	"sync/atomic"
)

// Loops whose condition reads a local that the body itself moves towards
// the end (reslices, decrements, advances) make progress every pass: they
// cannot spin, however the step is computed (from a pool, a copy, a
// helper).

var bufPool = sync.Pool{New: func() any { return make([]byte, 0, 512) }}

func poolGet(n int) []byte {
	b := bufPool.Get().([]byte)
	return b[:0]
}

type outbound struct {
	nb [][]byte
	pb int64
}

type conn struct{ out outbound }

// queueOutbound is nats-server's client.queueOutbound (server/client.go):
// the step n comes from a pooled buffer's copy, and the loop chops n
// bytes off its own slice every pass.
func (c *conn) queueOutbound(data []byte) {
	c.out.pb += int64(len(data))
	toBuffer := data
	for len(toBuffer) > 0 { // at: compute
		nb := poolGet(len(toBuffer))
		n := copy(nb[:cap(nb)], toBuffer) // at: compute
		c.out.nb = append(c.out.nb, nb[:n])
		toBuffer = toBuffer[n:]
	}
}

// writeAll advances by what a writer reports: a step from outside, still
// the loop's own slice. What write does, lint cannot see (a func value):
// unknown, not a spin.
func writeAll(write func([]byte) int, p []byte) {
	for len(p) > 0 { // at: unknown
		n := write(p)
		p = p[n:]
	}
}

// drainBudget decrements its own budget by an amount it reads from shared
// state.
func drainBudget(budget int64, cost *atomic.Int64) (steps int) {
	for budget > 0 { // at: compute
		budget -= cost.Load()
		steps++
	}
	return steps
}

// waitLen re-reads a shared slice's length and never changes it: a spin,
// close to queueOutbound but with nothing of its own moving.
func waitLen(mu *sync.Mutex, q *[][]byte) {
	for {
		mu.Lock() // at: blocking
		n := len(*q)
		mu.Unlock()
		if n > 0 {
			return
		}
	}
}

// waitShared reslices a local copy of shared state that it re-reads every
// pass: the reslice is overwritten by the re-read, so it waits.
// spinwait (SD106) does not report it yet, so the verdict is compute: a
// miss, not a false alarm.
func waitShared(head *atomic.Pointer[[]byte]) {
	for {
		p := *head.Load()
		p = p[1:]
		if len(p) > 0 { // at: compute
			return
		}
	}
}

// pollLocalCopy assigns its condition's local from shared state each pass
// and never moves it itself: a spin.
// spinwait (SD106) does not report it yet, so the verdict is compute: a
// miss, not a false alarm.
func pollLocalCopy(ready *atomic.Int32) {
	v := ready.Load()
	for v == 0 { // at: compute
		v = ready.Load()
	}
}

type node struct {
	v    int
	next *node
}

// walkList advances its own pointer along the list.
func walkList(head *node) (s int) {
	p := head
	for p != nil { // at: compute
		s += p.v
		p = p.next
	}
	return s
}

// halve shifts its own counter, by a step read from shared state.
func halve(n int64, shift *atomic.Int64) (steps int) {
	for n > 0 { // at: compute
		n = n >> shift.Load()
		steps++
	}
	return steps
}

// waitNext follows a shared pointer it re-reads every pass: the step is
// not its own. A spin that spinwait (SD106) does not report yet, so the
// verdict is compute: a miss, not a false alarm.
func waitNext(head *atomic.Pointer[node]) {
	p := head.Load()
	for p == nil { // at: compute
		p = head.Load()
	}
}
