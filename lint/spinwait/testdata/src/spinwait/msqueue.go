package spinwait

import (
	"runtime"
	"sync/atomic"
)

// A Michael–Scott lock-free queue. Its loops go round only after another
// goroutine moved the tail or the head: a lost CAS, the helping CAS that
// swings a lagging tail, or a snapshot found inconsistent (tail !=
// q.tail.Load(): someone else's CAS moved it between the two loads). Each
// round follows progress by someone else: a retry bounded by contention,
// not a wait. It is written three ways, which must all be silent: the
// variables defined in the loop (:=), declared in the loop (var x = ...),
// and declared before it and assigned in it (x = ...).

type msNode struct {
	v    int
	next atomic.Pointer[msNode]
}

type msQueue struct {
	head, tail atomic.Pointer[msNode]
}

func (q *msQueue) Enqueue(v int) {
	n := &msNode{v: v}
	for {
		tail := q.tail.Load()
		next := tail.next.Load()
		if tail == q.tail.Load() {
			if next == nil {
				if tail.next.CompareAndSwap(next, n) {
					q.tail.CompareAndSwap(tail, n)
					return
				}
			} else {
				q.tail.CompareAndSwap(tail, next)
			}
		}
	}
}

func (q *msQueue) Dequeue() (int, bool) {
	for {
		head := q.head.Load()
		tail := q.tail.Load()
		next := head.next.Load()
		if head == q.head.Load() {
			if head == tail {
				if next == nil {
					return 0, false
				}
				q.tail.CompareAndSwap(tail, next)
			} else {
				v := next.v
				if q.head.CompareAndSwap(head, next) {
					return v, true
				}
			}
		}
	}
}

func (q *msQueue) EnqueueVar(v int) {
	var n = &msNode{v: v}
	for {
		var tail = q.tail.Load()
		var next = tail.next.Load()
		if tail == q.tail.Load() {
			if next == nil {
				if tail.next.CompareAndSwap(next, n) {
					q.tail.CompareAndSwap(tail, n)
					return
				}
			} else {
				q.tail.CompareAndSwap(tail, next)
			}
		}
	}
}

func (q *msQueue) DequeueVar() (int, bool) {
	for {
		var (
			head = q.head.Load()
			tail = q.tail.Load()
			next = head.next.Load()
		)
		if head != q.head.Load() {
			continue
		}
		if head == tail {
			if next == nil {
				return 0, false
			}
			q.tail.CompareAndSwap(tail, next)
			continue
		}
		var v = next.v
		if q.head.CompareAndSwap(head, next) {
			return v, true
		}
	}
}

func (q *msQueue) EnqueueOuter(v int) {
	var (
		n          = &msNode{v: v}
		tail, next *msNode
	)
	for {
		tail = q.tail.Load()
		next = tail.next.Load()
		if tail == q.tail.Load() {
			if next == nil {
				if tail.next.CompareAndSwap(next, n) {
					q.tail.CompareAndSwap(tail, n)
					return
				}
			} else {
				q.tail.CompareAndSwap(tail, next)
			}
		}
	}
}

// Close positives: the same loads and checks, but the round that finds
// the queue empty goes round waiting for a producer, in both spellings.

func (q *msQueue) waitNonEmpty() *msNode {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		head := q.head.Load()
		next := head.next.Load()
		if next != nil {
			return next
		}
		runtime.Gosched()
	}
}

func (q *msQueue) waitNonEmptyVar() *msNode {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		var head = q.head.Load()
		var next = head.next.Load()
		if next != nil {
			return next
		}
		runtime.Gosched()
	}
}

// The check compares the tail with the head, not with a fresh load of
// the tail: the round where they are equal (empty) waits for a producer.
func (q *msQueue) waitMismatched(n *msNode) {
	for { // want `loop spins with nothing that blocks`
		tail := q.tail.Load()
		if tail == q.head.Load() {
			runtime.Gosched()
			continue
		}
		if q.tail.CompareAndSwap(tail, n) {
			return
		}
	}
}
