// Package consumer retries the queue's non-blocking Dequeue at once when
// it returns false: the spin is here, in the caller's loop, not in the
// library.
package consumer

import "example.com/insp/queue"

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
