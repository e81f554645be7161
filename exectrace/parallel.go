package exectrace

import (
	"context"
	"sync"

	"golang.org/x/exp/trace"
)

// This file decodes the generations of a Go 1.26+ trace in parallel and
// hands their events to the analysis in trace order, on the calling
// goroutine: the analysis stays one sequential pass (analyzer.handle sees
// the events the reader of the whole trace would give, stitch.go).
//
// A dispatcher cuts the generations out of the input (split.go) and starts
// a decoder per generation, at most jobs at once: each holds its
// generation's reader (about 2.5 times the generation's bytes, as the
// sequential read does) and sends its events in chunks on its own channel.
// The consumer drains the channels in order. The decoder of the generation
// being consumed keeps pace with it; the others run ahead until their
// channel is full: what they decoded ahead is the speed-up, and is bounded
// (aheadFactor), so memory is a few generations whatever the trace's length.

// aheadFactor sets how many decoded events a generation decoded ahead may
// hold: its chunks' memory (80 bytes an event) up to aheadFactor times the
// previous generation's bytes. Events decoded ahead spare the consumer a
// wait only where decoding is slower than the analysis
// (docs/PERFORMANCE.md: not so in its measurements); this bounds what
// that costs in memory.
const aheadFactor = 3

// genTask is one generation on its way to the consumer.
type genTask struct {
	p     *piece
	index int         // 0 for the first generation read
	ch    chan *chunk // its events, in order; closed after the last chunk
	// pEnd is each P's state after the generation, as its reader saw
	// it; set before ch is closed.
	pEnd map[trace.ProcID]trace.ProcState
}

// pdecoder is the dispatcher and decoders of one parallel read.
type pdecoder struct {
	tasks chan *genTask  // the generations, in order
	slots chan struct{}  // one per generation between the splitter and the consumer's end of it
	free  chan *chunk    // chunks the consumer is done with
	wg    sync.WaitGroup // every goroutine started
}

// parallelDecode starts the dispatcher and the decoders; the consumer
// reads the tasks, in order, and their chunks, calls done after each task
// and recycle after each chunk; after cancelling ctx, wg.Wait returns once
// every goroutine has ended.
func parallelDecode(ctx context.Context, sp *splitter, lim *genLimiter, jobs int) *pdecoder {
	d := &pdecoder{
		tasks: make(chan *genTask, jobs),
		slots: make(chan struct{}, jobs),
		free:  make(chan *chunk, 64),
	}
	d.wg.Go(func() {
		defer close(d.tasks)
		size := int64(16 << 20) // the last generation's bytes, for the first a guess
		for i := 0; ; i++ {
			select {
			case d.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			p, err := sp.start()
			if err != nil {
				return // io.EOF: the end between generations
			}
			ahead := max(4, int(int64(aheadFactor)*size/int64(parallelChunk*80)))
			t := &genTask{p: p, index: i, ch: make(chan *chunk, ahead)}
			select {
			case d.tasks <- t:
			case <-ctx.Done():
				return
			}
			d.wg.Go(func() { d.decodeGen(ctx, t, lim) })
			begin := sp.off
			sp.fill(ctx, p)
			size = sp.off - begin
			if p.rest != nil || ctx.Err() != nil {
				return
			}
		}
	})
	return d
}

// done frees the slot of a generation the consumer is done with.
func (d *pdecoder) done() { <-d.slots }

// recycle hands a chunk back to the decoders.
func (d *pdecoder) recycle(c *chunk) {
	c.evs, c.review = c.evs[:0], c.review[:0]
	select {
	case d.free <- c:
	default:
	}
}

func (d *pdecoder) chunk() *chunk {
	select {
	case c := <-d.free:
		c.err = nil // a generation's last chunk is recycled too
		return c
	default:
		return &chunk{evs: make([]trace.Event, 0, parallelChunk)}
	}
}

// parallelChunk is the events of a chunk in a parallel read (a variable
// for the tests, which make many chunks of small traces).
var parallelChunk = chunkSize

// decodeGen decodes one generation into t.ch. The limiter's cut (lim)
// concerns only the tail: a generation before it ends before the cut.
func (d *pdecoder) decodeGen(ctx context.Context, t *genTask, lim *genLimiter) {
	defer close(t.ch)
	defer t.p.drain() // a reader that failed stops reading: let the splitter go on
	pr := &pieceReader{p: t.p}
	rd, err := newReader(pr)
	t.pEnd = map[trace.ProcID]trace.ProcState{}
	if err != nil {
		select {
		case t.ch <- &chunk{err: err}:
		case <-ctx.Done():
		}
		return
	}
	for {
		c := d.chunk()
		c.err = fill(rd, func() error {
			if !pr.inRest {
				return nil // the cut, if any, is after this generation
			}
			return lim.cut()
		}, c)
		t.review(c)
		// Once sent, c is the consumer's: it may be recycled to another
		// decoder (which resets its err) before this one looks again.
		last := c.err != nil
		select {
		case t.ch <- c:
		case <-ctx.Done():
			return
		}
		if last {
			return
		}
	}
}

// review notes, in c, the events the stitcher must look at: every P's last
// state, and after the first generation the statuses that open it (from
// an unknown state) and the steals of Ps it saw abandoned in a syscall.
func (t *genTask) review(c *chunk) {
	for i := range c.evs {
		ev := &c.evs[i]
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceProc:
			from, to := st.Proc()
			t.pEnd[st.Resource.Proc()] = to
			if t.index > 0 && (from == trace.ProcUndetermined || (from == trace.ProcIdle && to == trace.ProcIdle)) {
				c.review = append(c.review, int32(i))
			}
		case trace.ResourceGoroutine:
			if from, _ := st.Goroutine(); t.index > 0 && from == trace.GoUndetermined {
				c.review = append(c.review, int32(i))
			}
		}
	}
}
