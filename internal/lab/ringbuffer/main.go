// Ringbuffer is a disruptor: producers claim sequence numbers of a
// lock-free ring by compare-and-swap on its cursor and every consumer
// sees every item (a multicast, as in the LMAX disruptor and its Go
// ports). Both sides wait for the other by spinning with runtime.Gosched:
// a producer whose next slot the slowest consumer has not passed rescans
// the consumers' sequences and yields, a consumer whose next sequence is
// not yet published yields. By default three producers, which hash a
// little per item, feed one consumer that hashes more: the ring is full,
// and while the consumer works on one P the producers spin in put on the
// others (measured on 2 CPUs: put's loop 37–43% of the CPU, 2 cores used
// where the fixed twin does the same items per second with 1.2–1.35).
// With as many consumers as Ps the consumers keep the Ps and the
// producers seldom run, so the spin costs little. It prints "ops N ops/s
// R" (items consumed by every consumer). The fixed twin multicasts over
// one buffered channel per consumer, of the ring's capacity, where a
// full or empty queue parks the goroutine.
//
// Four goroutines that never block share two Ps, so async preemption may
// cross SD208's threshold on a busy machine: lab:may SD208
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab/labrun"
)

var (
	producers = flag.Int("producers", 3, "producer goroutines")
	consumers = flag.Int("consumers", 1, "consumer goroutines, each of which sees every item")
	produce   = flag.Int("produce", 2, "SHA-256 rounds a producer spends per item")
	consume   = flag.Int("consume", 10, "SHA-256 rounds a consumer spends per item")
)

const size = 64 // slots

// seq is a sequence number alone on its cache line, as disruptors pad
// them: producers and consumers on other cores read it all the time.
type seq struct {
	v atomic.Int64
	_ [56]byte
}

type ring struct {
	cursor    seq       // the last sequence claimed by a producer
	gates     []seq     // the last sequence each consumer has processed
	published [size]seq // the sequence whose item each slot holds
	slots     [size][32]byte
}

func newRing(consumers int) *ring {
	r := &ring{gates: make([]seq, consumers)}
	r.cursor.v.Store(-1)
	for i := range r.gates {
		r.gates[i].v.Store(-1)
	}
	for i := range r.published {
		r.published[i].v.Store(-1)
	}
	return r
}

// minGate is the sequence the slowest consumer has reached.
func (r *ring) minGate() int64 {
	m := int64(math.MaxInt64)
	for i := range r.gates {
		if g := r.gates[i].v.Load(); g < m {
			m = g
		}
	}
	return m
}

// spinsPerYield is how many times a waiting side re-checks before it
// yields: the LMAX disruptor's YieldingWaitStrategy spins 100 times.
const spinsPerYield = 100

// put claims the next sequence by CAS on the cursor. While the slowest
// consumer has not freed the slot a lap behind it, it rescans the
// consumers' sequences, yielding every spinsPerYield scans.
func (r *ring) put(v [32]byte) {
	spins := 0
	for { // lab:SD106
		cur := r.cursor.v.Load()
		next := cur + 1
		if next-size > r.minGate() {
			spins++
			if spins%spinsPerYield == 0 {
				runtime.Gosched() // full: wait for the slowest consumer lab:SD204 lab:SD308
			}
			continue
		}
		if r.cursor.v.CompareAndSwap(cur, next) {
			r.slots[next%size] = v
			r.published[next%size].v.Store(next)
			return
		}
	}
}

// get returns consumer c's next item, spinning and yielding until a
// producer has published it; false when ctx is done first.
func (r *ring) get(ctx context.Context, c int) ([32]byte, bool) {
	next := r.gates[c].v.Load() + 1
	spins := 0
	for r.published[next%size].v.Load() != next { // lab:SD106
		spins++
		if spins%spinsPerYield == 0 {
			if ctx.Err() != nil {
				return [32]byte{}, false
			}
			runtime.Gosched() // empty: wait for a producer to publish lab:SD204 lab:SD308
		}
	}
	v := r.slots[next%size]
	r.gates[c].v.Store(next)
	return v, true
}

func main() { labrun.Main(bad, fixed) }

// hash spends n rounds of SHA-256 on b: the work around queue operations.
func hash(b [32]byte, n int) [32]byte {
	for i := 0; i < n; i++ {
		b = sha256.Sum256(b[:])
	}
	return b
}

// pipeline runs the producers and the consumers over put and get until
// ctx is done and reports the items every consumer processed.
func pipeline(ctx context.Context, put func([32]byte), get func(context.Context, int) ([32]byte, bool)) {
	start := time.Now()
	var pwg, cwg sync.WaitGroup
	for p := 0; p < *producers; p++ {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			b := [32]byte{byte(p)}
			for ctx.Err() == nil {
				b = hash(b, *produce)
				put(b)
			}
		}()
	}
	counts := make([]int64, *consumers)
	for c := 0; c < *consumers; c++ {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			var sink byte
			for {
				v, ok := get(ctx, c)
				if !ok {
					break
				}
				sink ^= hash(v, *consume)[0]
				counts[c]++
			}
			_ = sink
		}()
	}
	cwg.Wait()
	elapsed := time.Since(start)
	// Producers waiting on a full queue need consumers to finish their put.
	drain, stopDrain := context.WithCancel(context.Background())
	for c := 0; c < *consumers; c++ {
		go func() {
			for {
				if _, ok := get(drain, c); !ok {
					return
				}
			}
		}()
	}
	pwg.Wait()
	stopDrain()
	least := counts[0]
	for _, n := range counts {
		least = min(least, n)
	}
	labrun.Report(least, elapsed)
}

func bad(ctx context.Context) {
	r := newRing(*consumers)
	pipeline(ctx, r.put, r.get)
}

func fixed(ctx context.Context) {
	chans := make([]chan [32]byte, *consumers)
	for i := range chans {
		chans[i] = make(chan [32]byte, size)
	}
	put := func(v [32]byte) {
		for _, ch := range chans {
			ch <- v
		}
	}
	get := func(ctx context.Context, c int) ([32]byte, bool) {
		select {
		case v := <-chans[c]:
			return v, true
		case <-ctx.Done():
			return [32]byte{}, false
		}
	}
	pipeline(ctx, put, get)
}
