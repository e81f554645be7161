package spinwait

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	uatomic "go.uber.org/atomic"

	"flags"
)

// Shapes from real code: CAS loops that wait for another goroutine,
// helpers that poll without blocking, re-read values, TryLock, and
// third-party atomic types.

const size = 8

type ring struct {
	read, write atomic.Uint64
	slots       [size]int
}

// push claims a slot only when the reader has made room: the iteration
// that finds the ring full writes nothing and waits for the reader.
func (q *ring) push(v int) {
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		w := q.write.Load()
		r := q.read.Load()
		if w-r < size {
			if q.write.CompareAndSwap(w, w+1) {
				q.slots[w%size] = v
				return
			}
		}
		runtime.Gosched()
	}
}

var sequence uint64

func claimWhenBelow(limit uint64) {
	for { // want `loop spins with nothing that blocks`
		cur := atomic.LoadUint64(&sequence)
		if cur < limit {
			if atomic.CompareAndSwapUint64(&sequence, cur, cur+1) {
				break
			}
		}
	}
}

func isDone(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

func waitDone(done chan struct{}) {
	for !isDone(done) { // want `loop spins while !isDone\(done\)`
	}
}

var upstream atomic.Int64

func waitGate(x int64) int64 {
	var gate int64
	for { // want `loop spins with nothing that blocks`
		gate = upstream.Load()
		if gate >= x {
			break
		}
	}
	return gate
}

func waitIfInit(x int64) {
	for { // want `loop spins with nothing that blocks`
		if g := upstream.Load(); g >= x {
			return
		}
		runtime.Gosched()
	}
}

var mu sync.Mutex

func tryLockSpin() {
	for !mu.TryLock() { // want `loop spins while !mu.TryLock\(\)`
	}
	mu.Unlock()
}

func tryLockGosched() {
	for !mu.TryLock() { // want `loop spins while !mu.TryLock\(\): runtime.Gosched does not park, so it keeps a P`
		runtime.Gosched()
	}
	mu.Unlock()
}

var (
	uready uatomic.Bool
	ucount uatomic.Int64
)

func uberBool() {
	for !uready.Load() { // want `loop spins while !uready.Load\(\)`
		runtime.Gosched()
	}
}

func uberCompare(n int64) {
	for ucount.Load() < n { // want `loop spins while ucount.Load\(\) < n`
	}
}

func uberSnapshot() {
	for { // want `loop spins with nothing that blocks`
		if v, ok := ucount.Snapshot(); ok && v > 0 {
			return
		}
	}
}

func otherPackageHelper(g *flags.Gate) {
	for !g.IsOpen() { // want `loop spins while !g.IsOpen\(\)`
		runtime.Gosched()
	}
}

// Negatives.

// Retry until my CAS wins: every failure means another goroutine's CAS
// won, so the loop is bounded by contention.
func casIncrement(v *atomic.Int64) {
	for {
		old := v.Load()
		if v.CompareAndSwap(old, old+1) {
			break
		}
	}
}

func casUber() {
	for {
		old := ucount.Load()
		if ucount.CAS(old, old+1) {
			return
		}
	}
}

func casMax(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if old >= n {
			return
		}
		if v.CompareAndSwap(old, n) {
			return
		}
	}
}

// An unconditional increment on every iteration is progress.
func uberInc() {
	for ucount.Load() < 10 {
		ucount.Inc()
	}
}

func lockWaits() {
	for !ready.Load() {
		mu.Lock()
		spins++
		mu.Unlock()
	}
}

type stack struct{ items []int }

// A pure helper reads no shared state: nothing to wait for.
func (s *stack) empty() bool { return len(s.items) == 0 }

func localHelper(s *stack) {
	for !s.empty() {
		s.items = s.items[1:]
	}
}

func helperWork(step func() bool) {
	for !ready.Load() {
		work()
	}
}

func work() { spins++ }

func advances(l *list) {
	var cur *list
	for cur = l; cur != nil; {
		cur = cur.next
	}
}

func blockingHelper(done chan struct{}) {
	for !waitFor(done) {
	}
}

func waitFor(done chan struct{}) bool {
	<-done
	return true
}

var slot unsafe.Pointer

var inProgress byte

// The shape of sync/atomic.Value.Store: take a one-time slot by CAS from
// nil, or wait (by design, briefly) while another goroutine fills it.
func firstStore(p unsafe.Pointer) {
	for {
		cur := atomic.LoadPointer(&slot)
		if cur == nil {
			if !atomic.CompareAndSwapPointer(&slot, nil, unsafe.Pointer(&inProgress)) {
				continue
			}
			atomic.StorePointer(&slot, p)
			return
		}
		if cur == unsafe.Pointer(&inProgress) {
			continue
		}
		return
	}
}

// Walks and searches advance local state: not waits.
func binarySearch(xs []int, x int) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		m := lo + (hi-lo)/2
		if xs[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

type node struct{ next *node }

func last(n *node) *node {
	for {
		nx := n.next
		if nx == nil {
			return n
		}
		n = nx
	}
}

// A lock-free tree's root swap (a Ctrie snapshot): the CAS is inside a
// helper, and the loop goes round only when that CAS lost a race.
type tree struct{ root unsafe.Pointer }

type tnode struct{ gen int }

func (t *tree) loadRoot() *tnode { return (*tnode)(atomic.LoadPointer(&t.root)) }

func (t *tree) swapRoot(old, n *tnode) bool {
	return atomic.CompareAndSwapPointer(&t.root, unsafe.Pointer(old), unsafe.Pointer(n))
}

func (t *tree) snapshot() *tnode {
	for {
		r := t.loadRoot()
		if t.swapRoot(r, &tnode{gen: r.gen + 1}) {
			return r
		}
	}
}

// commit goes round on two paths, each right after a CAS that lost; every
// other path returns: a retry loop bounded by contention.
type mnode struct {
	prev   unsafe.Pointer
	failed *mnode
}

func commit(slot *unsafe.Pointer, m *mnode, gen, want int) *mnode {
	for {
		prev := (*mnode)(atomic.LoadPointer(&m.prev))
		if prev == nil {
			return m
		}
		if prev.failed != nil {
			if atomic.CompareAndSwapPointer(slot, unsafe.Pointer(m), unsafe.Pointer(prev.failed)) {
				return prev.failed
			}
			m = (*mnode)(atomic.LoadPointer(slot))
			continue
		}
		if gen == want {
			if atomic.CompareAndSwapPointer(&m.prev, unsafe.Pointer(prev), nil) {
				return m
			}
			continue
		}
		atomic.CompareAndSwapPointer(&m.prev, unsafe.Pointer(prev), unsafe.Pointer(&mnode{failed: prev}))
		return nil
	}
}

// claimWhenReady calls a swapping helper only once the slot is ready: the
// rounds that find it not ready run no CAS and wait for another goroutine.
func (t *tree) claimWhenReady(ready *atomic.Bool) {
	for { // want `loop spins with nothing that blocks`
		if ready.Load() {
			r := t.loadRoot()
			if t.swapRoot(r, nil) {
				return
			}
		}
		runtime.Gosched()
	}
}

// A bounded MPMC ring in the shape of Dmitry Vyukov's queue: each slot's
// sequence says whether it is ready for this position. dif == 0: claim
// it with a CAS; dif < 0: the slot is not ready (full, or empty); dif > 0:
// another goroutine's CAS moved the position on, so re-read it.

type uslot struct {
	seq  uint64
	data int
}

type uring struct {
	disposed, queue uint64
	mask            uint64
	nodes           []uslot
}

// put is Workiva/go-datastructures' RingBuffer.put: dif is a uint64, so
// the "not ready" case dif < 0 can never be true, and a full ring falls
// into the default, which re-reads the position and goes round: it waits
// for a reader, spinning on Gosched.
func (rb *uring) put(item int) error {
	var n *uslot
	pos := atomic.LoadUint64(&rb.queue)
L:
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		if atomic.LoadUint64(&rb.disposed) == 1 {
			return errDisposed
		}
		n = &rb.nodes[pos&rb.mask]
		seq := atomic.LoadUint64(&n.seq)
		switch dif := seq - pos; {
		case dif == 0:
			if atomic.CompareAndSwapUint64(&rb.queue, pos, pos+1) {
				break L
			}
		case dif < 0:
			panic(`ring in a compromised state`)
		default:
			pos = atomic.LoadUint64(&rb.queue)
		}
		runtime.Gosched()
	}
	n.data = item
	atomic.StoreUint64(&n.seq, pos+1)
	return nil
}

var errDisposed = errors.New("disposed")

type cell struct {
	seq  atomic.Int64
	data int
}

type vring struct {
	tail  atomic.Int64
	cells [size]cell
}

// offer is Vyukov's enqueue with a signed difference: a full ring
// returns false, and the only path that goes round without a CAS is the
// one that found the position stale, re-reading the word the CAS swaps:
// a retry bounded by contention, not a wait.
func (q *vring) offer(v int) bool {
	pos := q.tail.Load()
	var c *cell
	for {
		c = &q.cells[pos%size]
		seq := c.seq.Load()
		dif := seq - pos
		if dif == 0 {
			if q.tail.CompareAndSwap(pos, pos+1) {
				break
			}
		} else if dif < 0 {
			return false
		} else {
			pos = q.tail.Load()
		}
	}
	c.data = v
	c.seq.Store(pos + 1)
	return true
}

var vtail int64

// offerSwitch is the same with a tagless switch and the functions of
// sync/atomic.
func (q *vring) offerSwitch(v int) bool {
	pos := atomic.LoadInt64(&vtail)
	for {
		c := &q.cells[pos%size]
		switch dif := c.seq.Load() - pos; {
		case dif == 0:
			if atomic.CompareAndSwapInt64(&vtail, pos, pos+1) {
				c.data = v
				return true
			}
		case dif < 0:
			return false
		default:
			pos = atomic.LoadInt64(&vtail)
		}
	}
}

// offerWait does not return on a full ring: it yields and goes round, so
// the re-read waits for a reader.
func (q *vring) offerWait(v int) {
	pos := q.tail.Load()
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		c := &q.cells[pos%size]
		dif := c.seq.Load() - pos
		if dif == 0 {
			if q.tail.CompareAndSwap(pos, pos+1) {
				c.data = v
				return
			}
		} else if dif < 0 {
			runtime.Gosched()
		} else {
			pos = q.tail.Load()
		}
	}
}

// offerOther re-reads a word other than the one its CAS swaps: the stale
// path does not follow another goroutine's claim, so it stays a wait.
func (q *vring) offerOther(v int, head *atomic.Int64) bool {
	pos := q.tail.Load()
	for { // want `loop spins with nothing that blocks`
		c := &q.cells[pos%size]
		dif := c.seq.Load() - pos
		if dif == 0 {
			if q.tail.CompareAndSwap(pos, pos+1) {
				c.data = v
				return true
			}
		} else if dif < 0 {
			return false
		} else {
			pos = head.Load()
		}
	}
}

var errTimeout = errors.New("timeout")

// poll is go-datastructures' RingBuffer.Poll: a timeout bounds the spin
// only when it is positive, and Get calls Poll(0), "block indefinitely".
func (rb *uring) poll(timeout time.Duration) (int, error) {
	var (
		n     *uslot
		pos   = atomic.LoadUint64(&rb.queue)
		start time.Time
	)
	if timeout > 0 {
		start = time.Now()
	}
L:
	for { // want `loop spins with nothing that blocks: runtime.Gosched does not park, so it keeps a P`
		if atomic.LoadUint64(&rb.disposed) == 1 {
			return 0, errDisposed
		}
		n = &rb.nodes[pos&rb.mask]
		seq := atomic.LoadUint64(&n.seq)
		switch dif := seq - (pos + 1); {
		case dif == 0:
			if atomic.CompareAndSwapUint64(&rb.queue, pos, pos+1) {
				break L
			}
		case dif < 0:
			panic(`ring in a compromised state`)
		default:
			pos = atomic.LoadUint64(&rb.queue)
		}
		if timeout > 0 && time.Since(start) >= timeout {
			return 0, errTimeout
		}
		runtime.Gosched()
	}
	return n.data, nil
}

// spinFor spins for at most d on every call before giving up: a
// deliberate busy delay, bounded by the clock on every iteration.
func spinFor(d time.Duration) bool {
	start := time.Now()
	for {
		if ready.Load() {
			return true
		}
		if time.Since(start) >= d {
			return false
		}
		runtime.Gosched()
	}
}

// spinForSome bounds the spin by the clock when the caller asked for a
// limit that the loop itself changes: the guard is not fixed, silent.
func spinForSome(d time.Duration) bool {
	start := time.Now()
	for {
		if ready.Load() {
			return true
		}
		if d > 0 && time.Since(start) >= d {
			return false
		}
		d++
		runtime.Gosched()
	}
}

type input struct {
	remaining []byte
	line      int
}

// readRune consumes a byte: it writes through its receiver and touches
// nothing another goroutine changes.
func (in *input) readRune() int {
	r := in.remaining[0]
	in.remaining = in.remaining[1:]
	if r == '\n' {
		in.line++
	}
	return int(r)
}

// skipComment is x/mod's lexer: the condition consumes the input, so
// the loop advances to the end of the line (silent).
func (in *input) skipComment() {
	for len(in.remaining) > 0 && in.readRune() != '\n' {
	}
}

type tlog struct{ n int64 }

func tileParent(tile, k int, n int64) int { return tile >> k }

// firstRequested walks up parent tiles until one was requested (x/mod's
// sumdb tlog): the value tested is computed from the counter k, which
// steps towards the end (silent).
func (r *tlog) firstRequested(order map[int]int, tile int) int {
	k := 0
	for ; ; k++ {
		p := tileParent(tile, k, r.n)
		if j, ok := order[p]; ok {
			return j
		}
	}
}

// lazyNode and lazyList are a lazy skip list's node and list
// (bytedance/gopkg skipset, skipmap): a delete locks the predecessors
// and validates; the round that goes again is the one whose validation
// found the list changed by another goroutine.
type lazyNode struct {
	mu     sync.Mutex
	marked atomic.Bool
}

type lazyList struct{ head lazyNode }

func (l *lazyList) find(v int, preds *[4]*lazyNode) int {
	for i := range preds {
		preds[i] = &l.head
	}
	if l.head.marked.Load() {
		return -1
	}
	return v
}

func (l *lazyList) remove(v int) bool {
	var preds [4]*lazyNode
	for {
		found := l.find(v, &preds)
		if found != -1 {
			preds[0].mu.Lock()
			if preds[0].marked.Load() {
				preds[0].mu.Unlock()
				continue
			}
			preds[0].mu.Unlock()
			return true
		}
		return false
	}
}

// The same retry with a labelled continue.
func (l *lazyList) removeLabelled(v int) bool {
	var preds [4]*lazyNode
retry:
	for {
		found := l.find(v, &preds)
		if found != -1 {
			for i := range preds {
				preds[i].mu.Lock()
				if preds[i].marked.Load() {
					preds[i].mu.Unlock()
					continue retry
				}
				preds[i].mu.Unlock()
			}
			return true
		}
		return false
	}
}

// A branch whose only continue belongs to a loop nested in it still
// always leaves: the wait around it is reported.
func (l *lazyList) waitUnmarked(flag *atomic.Int32) bool {
	for { // want `loop spins`
		if flag.Load() != 0 {
			for i := 0; i < 4; i++ {
				if i == 2 {
					continue
				}
			}
			return true
		}
		runtime.Gosched()
	}
}

// A branch that yields and continues while the state is busy, then
// claims and leaves: still a wait.
func (l *lazyList) claimWhenFree(state *atomic.Int32) bool {
	for { // want `loop spins`
		if s := state.Load(); s != 1 {
			if s == 2 {
				runtime.Gosched()
				continue
			}
			return false
		}
		runtime.Gosched()
	}
}

// workerPool hands pending requests to idle workers (dragonboat's
// closeWorkerPool): scheduleWorker pops one request and sends it with a
// select whose default panics, an assertion that the idle worker takes
// it, not a look for work another goroutine left. The loop around it is
// a dispatch bounded by the pending list.
type workerPool struct {
	pending []int
	idle    []chan int
}

func (p *workerPool) scheduleWorker() bool {
	if len(p.pending) == 0 || len(p.idle) == 0 {
		return false
	}
	req, w := p.pending[0], p.idle[0]
	p.pending, p.idle = p.pending[1:], p.idle[1:]
	select {
	case w <- req:
	default:
		panic("worker received multiple jobs")
	}
	return true
}

func (p *workerPool) schedule() {
	for {
		if !p.scheduleWorker() {
			return
		}
	}
}

// tryHandOff's default gives up instead: a poll of whether a worker is
// ready, and the loop that retries it at once waits for one.
var handoff = make(chan int)

func tryHandOff(v int) bool {
	select {
	case handoff <- v:
		return true
	default:
		return false
	}
}

func handOffSpin(v int) {
	for !tryHandOff(v) { // want `loop spins`
	}
}
