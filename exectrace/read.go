package exectrace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/viz"
)

// Options tune the analysis. The zero value is the default.
type Options struct {
	// CPUs is the number of CPUs the traced process could really use (its
	// cgroup quota or cpuset, or the machine's). A trace does not record
	// it, so rule SD303 (Ps busier than CPUs) is checked only when it is
	// set; utilisation is otherwise measured against GOMAXPROCS.
	CPUs float64
	// ProcessCPU is the CPU time the traced process really got during the
	// trace (user + system, from rusage of the same window); 0: unknown.
	// The trace's own CPU samples, when a CPU profile ran during it, take
	// precedence. Compared with the Ps' busy time it tells "the host took
	// the CPU" from "Go queued work".
	ProcessCPU time.Duration
}

// ReadOptions bound the cost of reading one trace. The zero value is the
// default.
type ReadOptions struct {
	// MaxGeneration bounds the bytes of one generation (see
	// DefaultMaxGeneration; 0 means it). A generation over it is not read:
	// the generations before it are analysed and Summary.Truncated says
	// where the trace was cut. At least MinMaxGeneration.
	MaxGeneration int64
	// Spikes cut the trace into windows and mark the spikes (the zero
	// value: the defaults); they are measured while the events stream by.
	Spikes SpikeOptions
	// Jobs is how many generations are decoded at once (0 or 1: one
	// decoder, pipelined with the analysis). Above 1, a Go 1.26 trace is
	// cut into its generations, each decoded by a reader of its own, and
	// their events reach the analysis in trace order, the same events as
	// from one reader (stitch.go). Memory grows with Jobs: each generation
	// in flight holds its reader (about 2.5 times its bytes) and what its
	// decoder ran ahead (up to about three times its bytes). It pays only
	// where decoding, not the analysis, is the slower of the two: not so
	// in docs/PERFORMANCE.md's measurements, hence the default of one.
	// Older formats are read by one decoder.
	Jobs int
	// NoTimeline leaves out the HTML report's P timeline (Trace's
	// Summary.Visual keeps its latency histogram, Timeline is nil). It is
	// followed on every state transition, about a fifth of the analysis'
	// cost (docs/PERFORMANCE.md), for a picture only the HTML report
	// draws: a caller that renders no HTML sets it. Findings and figures
	// do not depend on it.
	NoTimeline bool
}

// MinMaxGeneration is the smallest ReadReadOptions.MaxGeneration: the largest
// batch the format allows (64 KB), so that the reader's read-ahead never
// reaches past a generation before the limit is known to be passed.
const MinMaxGeneration = 64 << 10

// Trace is what one pass over an execution trace measured: the figures of
// every site, P and goroutine, folded as the events streamed by (the events
// themselves are not kept). Analyze turns it into a Summary and findings.
type Trace struct {
	// Name is the name given to Read, for messages.
	Name  string
	a     *analyzer
	bytes int64
	trunc *Truncation
	vis   *viz.Set
}

// Result is what an analysis found.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// ErrNoEvents is returned for an input that holds a valid header but no
// event the analysis could read.
var ErrNoEvents = errors.New("no events")

// Truncation says where a trace that could not be read to its end broke,
// or where it was cut because a generation was over the limit.
type Truncation struct {
	// Offset is how many bytes had been consumed from the input when the
	// reader failed: the break lies in the generation that ends there.
	Offset int64 `json:"offset_bytes"`
	// Generation is the number of the generation that could not be read
	// (1-based); the ones before it were analysed.
	Generation int `json:"generation"`
	// Partial is true when the events of that generation were analysed up
	// to the break (the reader failed part way through its events).
	Partial bool `json:"partial,omitempty"`
	// MaxGeneration is set when the generation was not read because it is
	// larger than this many bytes (ReadOptions.MaxGeneration): the rest of the
	// trace was not read either.
	MaxGeneration int64 `json:"max_generation_bytes,omitempty"`
	// Time is how far into the trace the analysis got.
	Time time.Duration `json:"time_ns"`
	// Err is the reader's error, on one line.
	Err string `json:"error"`
}

func (t *Truncation) String() string {
	analysed := fmt.Sprintf("analysed the %s before it", plural(t.Generation-1, "generation"))
	if t.Partial {
		analysed = fmt.Sprintf("analysed the %s before it and this one up to the break", plural(t.Generation-1, "generation"))
	}
	if t.MaxGeneration > 0 {
		return fmt.Sprintf("trace cut at generation %d (within the first %d bytes): %s (the first %v) and did not read the rest: %s",
			t.Generation, t.Offset, analysed, t.Time.Round(time.Microsecond), t.Err)
	}
	return fmt.Sprintf("trace breaks in generation %d (within the first %d bytes): %s (the first %v): %s",
		t.Generation, t.Offset, analysed, t.Time.Round(time.Microsecond), t.Err)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// oneLine shortens a reader error to its first line: the trace reader's
// ordering errors append a dump of every M's and goroutine's state, one
// line each, that means nothing to a user.
func oneLine(err error) string {
	msg := err.Error()
	first, _, cut := strings.Cut(msg, "\n")
	if !cut {
		return msg
	}
	first = strings.TrimSpace(first)
	first = strings.TrimSuffix(first, ":")
	first = strings.TrimSuffix(first, ": frontier")
	return first + " (the reader's state dump left out)"
}

// lineError carries a reader error under its one-line message.
type lineError struct{ err error }

func (e lineError) Error() string { return oneLine(e.err) }
func (e lineError) Unwrap() error { return e.err }

// chunkSize is how many events the decoding goroutine hands over at once:
// big enough to make the handoff cheap, small enough to stay in cache.
const chunkSize = 2048

// oneCPUChunk is the chunk on one CPU (GOMAXPROCS=1), where the decoder
// and the analysis take turns: a few chunks of it stay in the core's
// cache between the two (2048 events are 160 KB).
const oneCPUChunk = 256

type chunk struct {
	evs []trace.Event
	// review lists the events of a generation read on its own that the
	// stitcher must look at (parallel.go).
	review []int32
	err    error // the reader's error after evs; io.EOF at the end
	off    int64 // bytes consumed when err happened
}

// countingReader counts the bytes the trace reader consumed.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Read reads an execution trace from r as a stream and measures it; name
// (a file, "-" or a URL) is used in errors.
//
// Decoding runs on its own goroutine, handing chunks of events to the
// measuring on the calling goroutine, so two cores are busy; memory is the
// reader's current generation, a few chunks, and per live goroutine state.
//
// An input that is not a trace, or in a format the reader does not know,
// is an error. A trace that breaks part way (truncated, corrupt) is
// measured up to the break: the Summary's Truncated says where, and the
// error is nil as long as some events were read.
func Read(ctx context.Context, name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	t, err := read(ctx, r, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.Name = name
	return t, nil
}

// ReadFile reads the trace in the named file. Anything but a regular file
// (a FIFO would block, /dev/zero never ends) is refused at once: give a
// pipe to Read.
func ReadFile(ctx context.Context, name string, opt ReadOptions) (*Trace, error) {
	return sysread.WithFile(name, func(f *os.File) (*Trace, error) { return Read(ctx, name, f, opt) })
}

// Analyze returns the figures and findings of a trace that Read measured.
// It may be called again on the same Trace, with other Options, but not
// concurrently.
func Analyze(t *Trace, opt Options) (*Result, error) {
	if t == nil || t.a == nil {
		return nil, errors.New("exectrace: Analyze of a Trace that Read did not return")
	}
	sum := t.a.summary(t.bytes, opt)
	sum.Truncated = t.trunc
	sum.Visual = t.vis
	return &Result{Findings: findings(sum, opt), Summary: sum}, nil
}

func read(ctx context.Context, r io.Reader, opt ReadOptions) (t *Trace, err error) {
	maxGen := opt.MaxGeneration
	if maxGen == 0 {
		maxGen = DefaultMaxGeneration
	}
	if maxGen < MinMaxGeneration {
		return nil, fmt.Errorf("the generation limit of %d bytes is below the smallest allowed, %d (one batch)", maxGen, MinMaxGeneration)
	}
	if opt.Jobs < 0 {
		return nil, fmt.Errorf("%d decoding jobs: want at least 1", opt.Jobs)
	}
	jobs := max(opt.Jobs, 1)
	lim := newGenLimiter(r, maxGen)
	cr := &countingReader{r: lim}
	var src io.Reader = cr
	var hdr []byte
	if jobs > 1 {
		// Peek at the header: only a Go 1.26 trace is split.
		hdr = make([]byte, headerLen)
		n, _ := io.ReadFull(cr, hdr)
		hdr = hdr[:n]
		src = io.MultiReader(bytes.NewReader(hdr), cr)
	}
	parallel := jobs > 1 && len(hdr) == headerLen && parseVersion(hdr) == splitVersion
	var rd *trace.Reader
	if parallel {
		_, err = newReader(bytes.NewReader(hdr))
	} else {
		rd, err = newReader(src)
	}
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	a := newAnalyzer()
	a.spk = newSpikeState(opt.Spikes)
	if !opt.NoTimeline {
		a.viz = newVizCollector()
	}
	var off int64
	var readErr error
	if parallel {
		d := parallelDecode(ctx, newSplitter(hdr, cr), lim, jobs)
		defer func() {
			cancel()
			if parent.Err() == nil {
				d.wg.Wait() // done with r before returning, as below
			}
		}()
		off, readErr = a.consumeParallel(d, newStitcher(), cr.n.Load)
	} else {
		full := make(chan *chunk, 4)
		free := make(chan *chunk, 6)
		n := chunkSize
		if runtime.GOMAXPROCS(0) == 1 {
			n = oneCPUChunk
		}
		go decode(ctx, rd, cr, lim, full, free, n)
		defer func() {
			cancel()
			if parent.Err() == nil {
				// Done with r before returning: the decoder stops within a chunk.
				// (When the caller cancelled, it may be blocked reading r; it
				// ends after that read.)
				for range full {
				}
			}
		}()
		off, readErr = a.consume(full, free)
	}
	if readErr != nil && off == 0 {
		off = cr.n.Load() // the analysis, not the reader, found the input broken
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Only sync events: nothing to analyse.
	empty := a.events <= int64(a.syncs)
	var trunc *Truncation
	if readErr != nil && readErr != io.EOF {
		var ge *GenerationError
		cutByLimit := errors.As(readErr, &ge)
		if empty {
			if cutByLimit {
				return nil, fmt.Errorf("reading the trace: nothing analysed: %w", readErr)
			}
			return nil, fmt.Errorf("reading the trace: broken before its first complete generation (within the first %d bytes): %w", off, lineError{readErr})
		}
		// The reader emits a sync event at the start of each generation,
		// and one before reporting the error of a generation it could not
		// read, so the broken generation is number a.syncs; when the last
		// event was not that sync, the reader failed among its events.
		trunc = &Truncation{Offset: off, Generation: max(a.syncs, 1), Partial: !a.lastSync,
			Time: a.last.Sub(a.first), Err: oneLine(readErr)}
		if cutByLimit {
			trunc.MaxGeneration, trunc.Partial = ge.Max, false
		}
		if trunc.Generation == 1 {
			// No generation was read whole: what was analysed is part of
			// one second, and its gaps may be what a finding would be
			// about. Saying "no findings" from it would be a guess.
			return nil, fmt.Errorf("reading the trace: broken in its first generation after %d events (within the first %d bytes), too little to analyse: %w",
				a.events-int64(a.syncs), off, lineError{readErr})
		}
	}
	if empty {
		return nil, fmt.Errorf("reading the trace: %w", ErrNoEvents)
	}
	a.finish()
	return &Trace{a: a, bytes: cr.n.Load(), trunc: trunc, vis: a.viz.build(a)}, nil
}

// consume analyses the chunks until the end or the reader's first error.
// Event accessors of the reader panic on inconsistent tables; that is the
// input's fault, so it ends the analysis like a read error.
func (a *analyzer) consume(full <-chan *chunk, free chan<- *chunk) (off int64, readErr error) {
	defer func() {
		if p := recover(); p != nil {
			readErr = fmt.Errorf("malformed trace: event %d: %v", a.events, p)
		}
	}()
	for c := range full {
		for i := range c.evs {
			a.handle(&c.evs[i])
		}
		if n := len(c.evs); n > 0 {
			a.lastSync = c.evs[n-1].Kind() == trace.EventSync
		}
		if c.err != nil {
			return c.off, c.err
		}
		c.evs = c.evs[:0]
		select {
		case free <- c:
		default:
		}
	}
	return 0, nil
}

// newReader starts the trace reader, turning a panic of the reader on a
// malformed header into an error.
func newReader(r io.Reader) (rd *trace.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed trace: reader failed: %v", p)
		}
	}()
	rd, err = trace.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a readable Go execution trace: %w", err)
	}
	return rd, nil
}

// decode reads events into chunks until the end, an error or cancellation.
func decode(ctx context.Context, rd *trace.Reader, cr *countingReader, lim *genLimiter, full chan<- *chunk, free chan *chunk, n int) {
	defer close(full)
	for {
		var c *chunk
		select {
		case c = <-free:
		default:
			c = &chunk{evs: make([]trace.Event, 0, n)}
		}
		if err := fill(rd, lim.cut, c); err != nil {
			c.err, c.off = err, cr.n.Load()
		}
		select {
		case full <- c:
		case <-ctx.Done():
			return
		}
		if c.err != nil {
			return
		}
	}
}

// fill reads events into c up to its capacity. A panic of the reader on
// corrupt input becomes an error: a library must not crash on its input.
// (The deferred recover is per chunk, not per event: it is not free.)
func fill(rd *trace.Reader, cut func() error, c *chunk) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed trace: reader failed: %v", p)
		}
	}()
	for len(c.evs) < cap(c.evs) {
		ev, err := rd.ReadEvent()
		if err != nil {
			if err := cut(); err != nil {
				return err // the reader's error is about the cut
			}
			return err
		}
		c.evs = append(c.evs, ev)
		// The limiter cut the stream inside the generation being read: the
		// reader reports it after a sync (Go 1.26), or installs the cut
		// generation as if whole (before 1.26); stop at that sync, when
		// every earlier generation has been handed out.
		if ev.Kind() == trace.EventSync && cut() != nil {
			return cut()
		}
	}
	return nil
}
