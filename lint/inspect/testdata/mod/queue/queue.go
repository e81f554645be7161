// Package queue is a single-producer single-consumer ring: Dequeue never
// blocks, and returns false at once when the ring is empty.
package queue

import (
	"errors"
	"sync"
	"sync/atomic"
)

type Ring struct {
	head, tail atomic.Uint64
	buf        [256]int
}

// Dequeue takes the oldest item, or reports false when there is none.
func (q *Ring) Dequeue() (int, bool) {
	h := q.head.Load()
	if h == q.tail.Load() {
		return 0, false // the library's own code: no loop, compute
	}
	v := q.buf[h%uint64(len(q.buf))]
	q.head.Store(h + 1)
	return v, true
}

// Enqueue adds an item, or reports false when the ring is full.
func (q *Ring) Enqueue(v int) bool {
	t := q.tail.Load()
	if t-q.head.Load() == uint64(len(q.buf)) {
		return false
	}
	q.buf[t%uint64(len(q.buf))] = v
	q.tail.Store(t + 1)
	return true
}

// ErrEmpty is what FIFO.Dequeue returns on an empty queue.
var ErrEmpty = errors.New("empty queue")

// FIFO is a slice under a mutex: Dequeue takes the lock and returns
// ErrEmpty at once when there is nothing.
type FIFO struct {
	mu    sync.Mutex
	items []int
}

func (q *FIFO) Enqueue(v int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, v)
}

func (q *FIFO) Dequeue() (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return 0, ErrEmpty // the library's own code: no loop
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, nil
}
