// Package ring is a single-producer single-consumer ring whose Dequeue
// never blocks.
package ring

import "sync/atomic"

type Ring struct {
	head, tail atomic.Uint64
	buf        [64]int
}

func (q *Ring) Dequeue() (int, bool) {
	h := q.head.Load()
	if h == q.tail.Load() {
		return 0, false
	}
	v := q.buf[h%64]
	q.head.Store(h + 1)
	return v, true
}
