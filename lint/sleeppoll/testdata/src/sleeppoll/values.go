package sleeppoll

import (
	"sync"
	"time"
)

// Sleep durations held in variables and fields, and the queue-polling
// worker whose helpers never block.

var pollEvery = 50 * time.Microsecond // one constant assignment, unexported

var PollExported = 50 * time.Microsecond // another package may set it

const idleWait = 200 * time.Microsecond

type queue struct {
	items []int
}

func (q *queue) pop() (int, bool) {
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func process(v int) { n += v }

type worker struct {
	q    *queue
	idle time.Duration
	wait time.Duration
}

func newWorker(q *queue) *worker {
	return &worker{q: q, idle: 20 * time.Microsecond, wait: time.Millisecond}
}

// Positives.

func localVar() {
	d := 100 * time.Microsecond
	for !ready.Load() {
		time.Sleep(d) // want `loop polls with a 100µs sleep \(held in d\)`
	}
}

func packageVar() {
	for !ready.Load() {
		time.Sleep(pollEvery) // want `50µs sleep \(held in pollEvery\)`
	}
}

func (w *worker) field() {
	for !ready.Load() {
		time.Sleep(w.idle) // want `20µs sleep \(held in w.idle\)`
	}
}

// The queue-polling worker: pop never blocks, so the iteration that
// finds nothing does only the pop and the sleep.
func (w *worker) run() {
	for {
		j, ok := w.q.pop()
		if !ok {
			time.Sleep(100 * time.Microsecond) // want `100µs sleep`
			continue
		}
		process(j)
	}
}

func pollWorker(q *queue) {
	for {
		j, ok := q.pop()
		if !ok {
			time.Sleep(idleWait) // want `200µs sleep`
			continue
		}
		go process(j) // the work is off the idle path
	}
}

func conditionalSleep(q *queue) {
	for {
		if len(q.items) == 0 {
			time.Sleep(10 * time.Microsecond) // want `10µs sleep`
		}
		process(1)
	}
}

// Negatives.

func (w *worker) slowField() {
	for !ready.Load() {
		time.Sleep(w.wait) // 1ms: waiting, not polling
	}
}

func exportedVar() {
	for !ready.Load() {
		time.Sleep(PollExported)
	}
}

func reassigned(slow bool) {
	d := 10 * time.Microsecond
	if slow {
		d = computeDelay()
	}
	for !ready.Load() {
		time.Sleep(d)
	}
}

func computeDelay() time.Duration { return time.Duration(n) }

func addressTaken() {
	d := 10 * time.Microsecond
	adjust(&d)
	for !ready.Load() {
		time.Sleep(d)
	}
}

func adjust(d *time.Duration) { *d *= 100 }

func param(d time.Duration) {
	d = 10 * time.Microsecond
	_ = d
	for !ready.Load() {
		time.Sleep(d) // d is a parameter: callers set it too
	}
}

var mu sync.Mutex

type lockedQueue struct {
	mu    sync.Mutex
	items []int
}

func (q *lockedQueue) pop() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func pacedForever(q *queue) {
	for {
		q.pop()
		time.Sleep(100 * time.Microsecond) // every iteration: pacing
	}
}

func externalPop(pop func() (int, bool)) {
	for {
		j, ok := pop()
		if !ok {
			time.Sleep(100 * time.Microsecond)
			continue
		}
		process(j)
	}
}
