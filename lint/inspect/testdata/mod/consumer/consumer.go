// Package consumer retries the queue's non-blocking Dequeue at once when
// it returns false: the spin is here, in the caller's loop, not in the
// library.
package consumer

import (
	"sync/atomic"

	"example.com/insp/queue"
)

// Next waits for an item by retrying.
func Next(q *queue.Ring) int {
	for {
		if v, ok := q.Dequeue(); ok { // SD106
			return v
		}
	}
}

// Sum consumes n items.
func Sum(q *queue.Ring, n int) (s int) {
	for range n {
		s += Next(q)
	}
	return s
}

// Consume works on each item and retries the mutex-guarded Dequeue at
// once when it finds the queue empty: the path that found nothing spins.
func Consume(q *queue.FIFO, stop *atomic.Bool) (s int) {
	for !stop.Load() {
		v, err := q.Dequeue() // SD106
		if err != nil {
			continue
		}
		s += work(v)
	}
	return s
}

func work(v int) int {
	for i := 0; i < 100; i++ {
		v = v*31 + i
	}
	return v
}
