package sleeppoll

import (
	"sync"
	"time"
)

// The mutex-guarded queue poll: lock, check the queue, unlock, and sleep
// briefly when it is empty. The lock is held for a critical section, not
// waited on until work comes: the sleep is what the loop waits with.

type pool struct {
	mu    sync.Mutex
	rw    sync.RWMutex
	queue []func()
	cond  *sync.Cond
	ch    chan func()
	sync.Mutex
}

// Positives.

func (p *pool) worker() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			time.Sleep(50 * time.Microsecond) // want `50µs sleep`
			continue
		}
		j := p.queue[0]
		p.queue = p.queue[1:]
		p.mu.Unlock()
		j()
	}
}

func (p *pool) workerTakeThenCheck() {
	for {
		p.mu.Lock()
		var j func()
		if len(p.queue) > 0 {
			j = p.queue[0]
			p.queue = p.queue[1:]
		}
		p.mu.Unlock()
		if j == nil {
			time.Sleep(20 * time.Microsecond) // want `20µs sleep`
			continue
		}
		j()
	}
}

func (p *pool) readLocked() {
	for {
		p.rw.RLock()
		n := len(p.queue)
		p.rw.RUnlock()
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Microsecond) // want `10µs sleep`
	}
}

func (p *pool) embeddedMutex() {
	for !ready.Load() {
		p.Lock()
		n += len(p.queue)
		p.Unlock()
		time.Sleep(100 * time.Microsecond) // want `100µs sleep`
	}
}

// The lock inside the helper: pop takes q.mu and releases it (defer).
func lockedWorker(q *lockedQueue) {
	for {
		j, ok := q.pop()
		if !ok {
			time.Sleep(100 * time.Microsecond) // want `100µs sleep`
			continue
		}
		process(j)
	}
}

// A helper that calls a locking helper.
func (q *lockedQueue) tryTake() (int, bool) { return q.pop() }

func lockedWorkerDeep(q *lockedQueue) {
	for {
		if j, ok := q.tryTake(); ok {
			process(j)
			continue
		}
		time.Sleep(30 * time.Microsecond) // want `30µs sleep`
	}
}

// Negatives.

// A sleep of 1ms or more waits rather than polls.
func (p *pool) slowPoll() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			time.Sleep(time.Millisecond)
			continue
		}
		j := p.queue[0]
		p.queue = p.queue[1:]
		p.mu.Unlock()
		j()
	}
}

// A condition variable: the worker parks until a producer signals.
func (p *pool) condWorker() {
	for {
		p.mu.Lock()
		for len(p.queue) == 0 {
			p.cond.Wait()
		}
		j := p.queue[0]
		p.queue = p.queue[1:]
		p.mu.Unlock()
		if j == nil {
			time.Sleep(10 * time.Microsecond)
			continue
		}
		j()
	}
}

// A channel wait on the idle path: the loop waits on the channel.
func (p *pool) chanWorker() {
	for {
		p.mu.Lock()
		empty := len(p.queue) == 0
		p.mu.Unlock()
		if empty {
			j := <-p.ch
			j()
			time.Sleep(10 * time.Microsecond)
			continue
		}
	}
}

// A lock held across a blocking call: the loop waits in the call.
func (p *pool) heldAcrossBlocking(get func() bool) {
	for {
		p.mu.Lock()
		ok := get()
		p.mu.Unlock()
		if !ok {
			time.Sleep(10 * time.Microsecond)
			continue
		}
		process(1)
	}
}

// The lock is taken but released by someone else (a lock used as a
// signal): the loop waits on the lock.
func (p *pool) lockAsSignal() {
	for !ready.Load() {
		p.mu.Lock()
		time.Sleep(10 * time.Microsecond)
	}
}

// A helper that takes a lock and keeps it: not a critical section.
func (q *lockedQueue) acquire() { q.mu.Lock() }

func acquireLoop(q *lockedQueue) {
	for !ready.Load() {
		q.acquire()
		time.Sleep(10 * time.Microsecond)
	}
}

// Pacing: sleeps every iteration forever.
func (p *pool) pacedLocked() {
	for {
		p.mu.Lock()
		n++
		p.mu.Unlock()
		time.Sleep(10 * time.Microsecond)
	}
}

// The work branch continues, but the idle path then blocks on a channel.
func (p *pool) workThenChannel(q *lockedQueue) {
	for {
		if j, ok := q.pop(); ok {
			process(j)
			continue
		}
		<-p.ch
		time.Sleep(10 * time.Microsecond)
	}
}

// A bare skip: the sleep runs on the iterations that work (pacing).
func pausedPacing() {
	for {
		if !ready.Load() {
			continue
		}
		n++
		time.Sleep(10 * time.Microsecond)
	}
}

// The condition blocks (waitReady receives): the loop waits there, and
// the sleep is not its wait.
func (p *pool) waitReady() bool { <-p.ch; return ready.Load() }

func (p *pool) waitsInCondition() {
	for !p.waitReady() {
		time.Sleep(10 * time.Microsecond)
	}
}

func (p *pool) receivesInCondition() {
	for (<-p.ch) == nil {
		time.Sleep(10 * time.Microsecond)
	}
}

// The post statement re-reads the length: the loop polls, it does not
// count (a lock-free channel's blocking receive).
func (q *lockedQueue) size() int { return q.lockedLen() }

func (q *lockedQueue) lockedLen() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

func recvPoll(q *lockedQueue) {
	for n := q.size(); n > 0 || !ready.Load(); n = q.size() {
		if n == 0 {
			time.Sleep(time.Microsecond) // want `1µs sleep`
			continue
		}
		process(1)
	}
}

// Close negatives: the post steps from the variable itself.
type node struct{ next *node }

func (n *node) Next() *node { return n.next }

func walkPaced(l *node) {
	for x := l; x != nil; x = x.Next() {
		time.Sleep(10 * time.Microsecond)
	}
}

func next(i int) int { return i + 2 }

func stepPaced(k int) {
	for i := 0; i < k; i = next(i) {
		time.Sleep(10 * time.Microsecond)
	}
}
