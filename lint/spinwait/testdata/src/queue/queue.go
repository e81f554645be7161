// Package queue holds queues written as real libraries write them, in a
// package of their own, so that the loops of package spinwait see them
// only through their lint/blocking facts.
package queue

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"
)

// LockFree is a Michael–Scott queue (golang.design/x/lockfree's shape):
// Dequeue is a CAS loop that returns nil when the queue is empty.
type LockFree struct {
	head, tail unsafe.Pointer
	len        uint64
}

type node struct {
	v    any
	next unsafe.Pointer
}

func NewLockFree() *LockFree {
	n := unsafe.Pointer(&node{})
	return &LockFree{head: n, tail: n}
}

func load(p *unsafe.Pointer) *node { return (*node)(atomic.LoadPointer(p)) }

func cas(p *unsafe.Pointer, old, new *node) bool {
	return atomic.CompareAndSwapPointer(p, unsafe.Pointer(old), unsafe.Pointer(new))
}

func (q *LockFree) Enqueue(v any) {
	n := &node{v: v}
	for {
		tail := load(&q.tail)
		next := load(&tail.next)
		if tail == load(&q.tail) {
			if next == nil {
				if cas(&tail.next, next, n) {
					cas(&q.tail, tail, n)
					atomic.AddUint64(&q.len, 1)
					return
				}
			} else {
				cas(&q.tail, tail, next)
			}
		}
	}
}

func (q *LockFree) Dequeue() any {
	for {
		head := load(&q.head)
		tail := load(&q.tail)
		next := load(&head.next)
		if head == load(&q.head) {
			if head == tail {
				if next == nil {
					return nil
				}
				cas(&q.tail, tail, next)
			} else {
				v := next.v
				if cas(&q.head, head, next) {
					atomic.AddUint64(&q.len, ^uint64(0))
					return v
				}
			}
		}
	}
}

// ErrEmpty is what FIFO.Dequeue returns on an empty queue.
var ErrEmpty = errors.New("empty queue")

// FIFO is a slice under a RWMutex (goconcurrentqueue's shape): Dequeue
// takes the lock, and returns (nil, error) when the queue is empty.
type FIFO struct {
	mu     sync.RWMutex
	slice  []any
	locked bool
	wait   chan any
}

func (q *FIFO) Enqueue(v any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.slice = append(q.slice, v)
}

func (q *FIFO) Dequeue() (any, error) {
	if q.locked {
		return nil, errors.New("locked")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.slice) == 0 {
		return nil, ErrEmpty
	}
	v := q.slice[0]
	q.slice = q.slice[1:]
	return v, nil
}

// TryPop is Dequeue with a boolean.
func (q *FIFO) TryPop() (any, bool) {
	v, err := q.Dequeue()
	return v, err == nil
}

// DequeueOrWait blocks until an element comes.
func (q *FIFO) DequeueOrWait(ctx context.Context) (any, error) {
	if v, err := q.Dequeue(); err == nil {
		return v, nil
	}
	select {
	case v := <-q.wait:
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Counter's Incr wins or loses a race: false means another goroutine's
// CAS came first.
type Counter struct{ n atomic.Int64 }

func (c *Counter) Incr() bool {
	old := c.n.Load()
	return c.n.CompareAndSwap(old, old+1)
}
