package spinwait

import (
	"crypto/sha256"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"queue"
)

// Consumers that retry a queue's non-blocking take at once when it finds
// nothing: the path that found an item works, the path that found
// nothing spins. The queues are another package's (facts flow).

// golang.design/x/lockfree's consumer: a nil Dequeue, a select default.
func retryLockFree(q *queue.LockFree, stop <-chan struct{}) {
	for { // want `loop retries q.Dequeue\(\) at once when it finds nothing`
		v := q.Dequeue()
		if v == nil {
			select {
			case <-stop:
				return
			default:
			}
			continue
		}
		sha256.Sum256(v.([]byte))
	}
}

// goconcurrentqueue's consumer: an error from a mutex-guarded Dequeue.
func retryFIFO(q *queue.FIFO, stop *atomic.Bool) {
	for !stop.Load() { // want `loop retries q.Dequeue\(\) at once when it finds nothing`
		v, err := q.Dequeue()
		if err != nil {
			continue
		}
		sha256.Sum256(v.([]byte))
	}
}

func retryIfInit(q *queue.FIFO) {
	for { // want `loop retries q.TryPop\(\) at once`
		if v, ok := q.TryPop(); ok {
			sink = v
		} else {
			continue
		}
	}
}

func retryFallsOff(q *queue.LockFree) {
	for { // want `loop retries q.Dequeue\(\) at once`
		if v := q.Dequeue(); v != nil {
			sink = v
		}
	}
}

func retrySwitch(q *queue.FIFO) {
	for { // want `loop retries q.Dequeue\(\) at once`
		switch v, err := q.Dequeue(); {
		case err != nil:
			continue
		default:
			sink = v
		}
	}
}

func retryLabeledYield(q *queue.FIFO, stop *atomic.Bool) {
outer:
	for { // want `loop retries q.TryPop\(\) at once`
		if stop.Load() {
			return
		}
		v, ok := q.TryPop()
		if !ok {
			runtime.Gosched()
			continue outer
		}
		sink = v
	}
}

var (
	sink  any
	count int
)

// The close negatives.

func retrySleepsLong(q *queue.FIFO) {
	for {
		v, err := q.Dequeue()
		if err != nil {
			time.Sleep(time.Millisecond)
			continue
		}
		sink = v
	}
}

// A short sleep is sleeppoll's (SD102), not this rule's.
func retrySleepsShort(q *queue.FIFO) {
	for {
		v, err := q.Dequeue()
		if err != nil {
			time.Sleep(50 * time.Microsecond)
			continue
		}
		sink = v
	}
}

func retryBlocksOnChannel(q *queue.LockFree, wake <-chan struct{}) {
	for {
		v := q.Dequeue()
		if v == nil {
			<-wake
			continue
		}
		sink = v
	}
}

func retryBlockingSelect(q *queue.LockFree, wake, stop <-chan struct{}) {
	for {
		v := q.Dequeue()
		if v == nil {
			select {
			case <-wake:
			case <-stop:
				return
			}
			continue
		}
		sink = v
	}
}

func retryCond(q *queue.FIFO, mu *sync.Mutex, c *sync.Cond) {
	for {
		v, err := q.Dequeue()
		if err != nil {
			mu.Lock()
			c.Wait()
			mu.Unlock()
			continue
		}
		sink = v
	}
}

func retryBlockingCall(q *queue.FIFO) {
	for {
		v, err := q.DequeueOrWait(nil)
		if err != nil {
			continue
		}
		sink = v
	}
}

func retryBounded(q *queue.FIFO) {
	for i := 0; i < 3; i++ {
		v, err := q.Dequeue()
		if err != nil {
			continue
		}
		sink = v
	}
}

func retryBoundedTries(q *queue.FIFO) {
	tries := 0
	for {
		v, err := q.Dequeue()
		if err != nil {
			tries++
			if tries > 3 {
				return
			}
			continue
		}
		sink = v
	}
}

func drain(q *queue.FIFO) {
	for {
		v, ok := q.TryPop()
		if !ok {
			break
		}
		sink = v
	}
}

func retryLostCAS(c *queue.Counter) {
	for {
		if !c.Incr() {
			continue
		}
		count++
	}
}

func retryIdleWorks(q *queue.LockFree) {
	for {
		v := q.Dequeue()
		if v == nil {
			sink = sha256.Sum256(nil)
			continue
		}
		sink = v
	}
}

func retryRange(q *queue.FIFO, n []int) {
	for range n {
		v, err := q.Dequeue()
		if err != nil {
			continue
		}
		sink = v
	}
}

type locked struct {
	mu sync.Mutex
	n  int
}

func (s *locked) bump() {
	for {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
		if s.n > 10 {
			return
		}
	}
}

func retryRead(c net.Conn, buf []byte) {
	for {
		n, err := c.Read(buf)
		if err != nil {
			continue
		}
		sink = buf[:n]
	}
}

func retryFuncValue(pop func() (any, bool)) {
	for {
		v, ok := pop()
		if !ok {
			continue
		}
		sink = v
	}
}

// A tokenizer's next consumes its own input: nil is a skipped token.
type lexer struct {
	in  []byte
	pos int
}

func (l *lexer) next() *byte {
	if l.pos >= len(l.in) {
		return nil
	}
	b := &l.in[l.pos]
	l.pos++
	return b
}

func (l *lexer) run() {
	for {
		b := l.next()
		if b == nil {
			continue
		}
		sink = *b
	}
}
