// Variants is the runtime half of the variant corpus: each -shape is one
// waiting loop that real code writes (or a close negative of one), run
// alone for -duration under a CPU profile written to -cpuprofile (or an
// execution trace to -trace; with -pprof it serves net/http/pprof for
// check). The loops are marked: a positive's `for`
// line carries "variant:spin SDxxx" with the rule lint reports there
// (and "yield" when its only wait is runtime.Gosched), a negative's
// "variant:quiet"; TestVariantsAgree (variants_e2e_test.go)
// checks that lint, the profile joined with this source and the trace
// joined with it say the same of every loop, at every GOMAXPROCS.
//
// A positive waits for a channel or flag that is only released when the
// run ends, so it spins for the whole run; a negative waits in the way
// its shape's fix would, or does real work.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"sync/atomic"
	"time"
)

var (
	shape     = flag.String("shape", "", "the loop to run")
	duration  = flag.Duration("duration", 2*time.Second, "how long")
	cpuprof   = flag.String("cpuprofile", "", "write a CPU profile here")
	traceFile = flag.String("trace", "", "write an execution trace here")
	pprofAddr = flag.String("pprof", "", "serve net/http/pprof on this loopback address and print it (for check)")
)

var sink [32]byte

// server is the shape of a service whose handlers wait for a job.
type server struct {
	done chan struct{}
	mu   sync.Mutex
	q    []int
}

func (s *server) doneCh() <-chan struct{} { return s.done }

// ctxInline is issue 20's handler: the context's channel is read inline in
// the case, through a call on the request.
func ctxInline(r *http.Request, done <-chan struct{}) {
	for { // variant:spin SD101
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		default:
		}
	}
}

// ctxHoisted is the same with the context read before the loop.
func ctxHoisted(r *http.Request, done <-chan struct{}) {
	ctx := r.Context()
	for { // variant:spin SD101
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		default:
		}
	}
}

// getter waits on a channel that a method returns.
func (s *server) getter(ctx context.Context) {
	for { // variant:spin SD101
		select {
		case <-s.doneCh():
			return
		case <-ctx.Done():
			return
		default:
		}
	}
}

// sendFull offers a value to a channel nobody reads until the run ends.
func sendFull(ch chan int, stop *atomic.Bool) {
	for i := 0; ; i++ { // variant:spin SD101
		select {
		case ch <- i:
			return
		default:
		}
		if stop.Load() {
			return
		}
	}
}

// flagGosched yields until a flag is set.
func flagGosched(ready *atomic.Bool) {
	for !ready.Load() { // variant:spin SD106 yield
		runtime.Gosched()
	}
}

// box is a generic holder whose method spins on its flag.
type box[T any] struct {
	ready atomic.Bool
	v     T
}

func (b *box[T]) wait() T {
	for !b.ready.Load() { // variant:spin SD106
	}
	return b.v
}

// pollLocked is the polling pool: lock, look at the queue, unlock, sleep
// 50µs when it is empty.
func (s *server) pollLocked(stop *atomic.Bool) {
	for !stop.Load() { // variant:spin SD102
		s.mu.Lock()
		if len(s.q) > 0 {
			s.q = s.q[1:]
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		time.Sleep(50 * time.Microsecond)
	}
}

// defaultWork does real work in the default: its CPU is its own hashing,
// not waiting (negative of ctxInline).
func defaultWork(r *http.Request, done <-chan struct{}) {
	buf := make([]byte, 4096)
	for { // variant:quiet
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		default:
			sink = sha256.Sum256(buf)
		}
	}
}

// blocking waits in the same select without the default (the fix).
func blocking(r *http.Request, done <-chan struct{}) {
	for { // variant:quiet
		select {
		case <-done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// slowPoll polls a flag every 2ms: a latency choice, not a spin.
func slowPoll(ready *atomic.Bool) {
	for !ready.Load() { // variant:quiet
		time.Sleep(2 * time.Millisecond)
	}
}

// cooperative computes and yields now and then: Gosched between real work.
func cooperative(stop *atomic.Bool) {
	buf := make([]byte, 4096)
	for i := 0; !stop.Load(); i++ { // variant:quiet
		sink = sha256.Sum256(buf)
		if i%64 == 0 {
			runtime.Gosched()
		}
	}
}

// fifo is a queue under its own mutex, written as goconcurrentqueue's
// FIFO is: Dequeue takes the lock, and when the queue is empty returns at
// once with an error; DequeueWait parks on a sync.Cond until an item comes
// or the queue is closed.
type fifo struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  [][]byte
	closed bool
}

var errEmpty = errors.New("empty queue")

func newFIFO() *fifo {
	q := &fifo{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *fifo) Enqueue(v []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, v)
	q.cond.Signal()
}

func (q *fifo) Dequeue() ([]byte, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil, errEmpty
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, nil
}

func (q *fifo) DequeueWait() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return nil, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

func (q *fifo) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// retryPop is a consumer that works on each item and retries the
// non-blocking Dequeue at once when the queue is empty: the spin is the
// path that found nothing, in this loop, not in the queue's code.
func retryPop(q *fifo, stop *atomic.Bool) {
	for !stop.Load() { // variant:spin SD106
		v, err := q.Dequeue()
		if err != nil {
			continue
		}
		sink = sha256.Sum256(v)
	}
}

// waitPop is its blocking twin: DequeueWait parks until an item comes.
func waitPop(q *fifo, stop *atomic.Bool) {
	for !stop.Load() { // variant:quiet
		v, ok := q.DequeueWait()
		if !ok {
			continue
		}
		sink = sha256.Sum256(v)
	}
}

// produce adds an item every millisecond until stop.
func produce(q *fifo, stop *atomic.Bool) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !stop.Load() {
		<-t.C
		q.Enqueue(make([]byte, 256))
	}
	q.Close()
}

func main() {
	flag.Parse()
	if *pprofAddr != "" {
		ln, err := net.Listen("tcp", *pprofAddr)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("pprof http://" + ln.Addr().String())
		go http.Serve(ln, nil)
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err != nil {
			log.Fatal(err)
		}
		if err := trace.Start(f); err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		defer trace.Stop()
	}
	done := make(chan struct{})
	var stop atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/", nil)
	s := &server{done: done}
	var b box[int]
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	switch *shape {
	case "ctxInline":
		run(func() { ctxInline(r, done) })
	case "ctxHoisted":
		run(func() { ctxHoisted(r, done) })
	case "getter":
		run(func() { s.getter(ctx) })
	case "sendFull":
		ch := make(chan int)
		run(func() { sendFull(ch, &stop) })
	case "flagGosched":
		run(func() { flagGosched(&stop) })
	case "genericWait":
		run(func() { b.wait() })
	case "pollLocked":
		run(func() { s.pollLocked(&stop) })
	case "defaultWork":
		run(func() { defaultWork(r, done) })
	case "blocking":
		// A job finishes every millisecond: the loop wakes, finds nothing
		// left, and blocks again.
		tick := make(chan struct{})
		go func() {
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for !stop.Load() {
				<-t.C
				select {
				case tick <- struct{}{}:
				default:
				}
			}
		}()
		run(func() {
			for !stop.Load() {
				blocking(r, tick)
			}
		})
	case "slowPoll":
		run(func() { slowPoll(&stop) })
	case "cooperative":
		run(func() { cooperative(&stop) })
	case "retryPop", "waitPop":
		// The producer is its own go statement, as in real programs:
		// the trace groups goroutines by where they were created.
		q := newFIFO()
		wg.Add(1)
		go func() { defer wg.Done(); produce(q, &stop) }()
		if *shape == "retryPop" {
			run(func() { retryPop(q, &stop) })
		} else {
			run(func() { waitPop(q, &stop) })
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown -shape %q\n", *shape)
		os.Exit(2)
	}
	time.Sleep(*duration)
	stop.Store(true)
	b.ready.Store(true)
	close(done)
	wg.Wait()
}
