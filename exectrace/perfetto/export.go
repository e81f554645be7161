package perfetto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/internal/sysread"
)

// Window is the part of a trace to export, as time since the trace's
// first event (the offsets `schedoctor trace` prints).
type Window struct {
	Start time.Duration
	// End of the window; 0: the end of the trace.
	End time.Duration
}

// Around is the window of length span centred on at, moved to start at 0
// when at is nearer the start than half of it.
func Around(at, span time.Duration) Window {
	start := max(at-span/2, 0)
	return Window{Start: start, End: start + span}
}

func (w Window) String() string {
	end := "the end"
	if w.End > 0 {
		end = w.End.String()
	}
	return fmt.Sprintf("%v to %s", w.Start, end)
}

// DefaultMaxBytes bounds the file written when Options.MaxBytes is 0.
// The export writes about 30–60 bytes per scheduling event (a slice's
// begin and end, a counter sample), so 32 MiB holds roughly half a
// million of them, which the Perfetto UI opens in a few seconds; a
// 100 ms spike of a busy service fits many times over, a whole trace of
// a busy service does not, and is cut where the limit is reached.
const DefaultMaxBytes = 32 << 20

// MinMaxBytes is the smallest Options.MaxBytes: room for the track
// descriptors of a few dozen Ps and goroutines and the note of a cut.
const MinMaxBytes = 16 << 10

// DefaultGoroutines is how many goroutines get a state track when
// Options.Goroutines is 0: more tracks than a screen shows.
const DefaultGoroutines = 32

// Options tune an export. The zero value exports the whole trace, bounded
// by DefaultMaxBytes.
type Options struct {
	Window Window
	// MaxBytes bounds the file (0: DefaultMaxBytes; at least
	// MinMaxBytes). The window is cut where the next packet would pass
	// it: every open slice is ended there and an instant on the
	// "schedoctor" track says so; Stats.Cut is set.
	MaxBytes int64
	// Goroutines is how many goroutines get a state track (0:
	// DefaultGoroutines; negative: none).
	Goroutines int
	// Read bounds the reading of the trace as exectrace.Read does.
	Read exectrace.ReadOptions
}

// Stats says what an export wrote.
type Stats struct {
	// Window is what was exported: the window asked for, its end moved to
	// where the trace ended or where the size limit cut it.
	Window Window
	// TraceEnd is the time of the last event read: the end of the trace
	// when the window reached it (a cut window stops reading).
	TraceEnd time.Duration
	Bytes    int64
	Packets  int
	// Ps, Goroutines: tracks of each kind; Slices, Flows and Counters:
	// slices begun, unblocker→unblocked flows begun, counter samples.
	Ps, Goroutines, Slices, Flows, Counters int
	// Cut is set when the size limit ended the window before its end.
	Cut bool
	// MaxBytes is the limit the export ran under.
	MaxBytes int64
	// Broken is how the reading of the trace broke (a cut or corrupt
	// trace, a generation over the limit), on one line; "" when it was
	// read to its end or to the window's end. The events before the break
	// are exported.
	Broken string
}

// ErrWindow is wrapped by the error for a window that holds no event of
// the trace.
var ErrWindow = errors.New("the window holds no event of the trace")

// ExportFile exports the trace in the named file to w. The file is read
// twice (the first pass picks the goroutines that matter in the window
// and names them, the second writes), so it must be a regular file, opened
// as exectrace.ReadFile opens it.
func ExportFile(ctx context.Context, w io.Writer, name string, opt Options) (*Stats, error) {
	st, err := Export(ctx, w, func() (io.ReadCloser, error) {
		f, _, err := sysread.Open("", name)
		return f, err
	}, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return st, nil
}

// Export reads the trace that open opens, twice, and writes the window
// of opt to w as a Perfetto trace (TrackEvent protobuf): a track per P
// with a slice per goroutine run, state tracks for the goroutines that
// matter, counters of runnable goroutines, heap and GOMAXPROCS, the GC
// and stop-the-world ranges, and a flow from each unblocker's slice to
// the slice where the goroutine it unblocked next runs.
func Export(ctx context.Context, w io.Writer, open func() (io.ReadCloser, error), opt Options) (*Stats, error) {
	maxBytes := opt.MaxBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxBytes < MinMaxBytes {
		return nil, fmt.Errorf("the size limit of %d bytes is below the smallest allowed, %d", maxBytes, MinMaxBytes)
	}
	win := opt.Window
	if win.Start < 0 || win.End < 0 || (win.End > 0 && win.End <= win.Start) {
		return nil, fmt.Errorf("window %v: want 0 ≤ start < end", win)
	}
	ngo := opt.Goroutines
	if ngo == 0 {
		ngo = DefaultGoroutines
	}

	s := newScan(win, max(ngo, 0))
	// Alongside the scan, the export without state tracks, written
	// nowhere: where the size limit cuts it, the real export (which writes
	// the same and the state tracks) is cut at the latest. The scan stops
	// there, so that the goroutines picked are those that mattered in what
	// is written, and a whole trace is not read twice for 32 MB of it.
	var dry *exporter
	scanAndSize := func(ev *trace.Event) bool {
		if !s.visit(ev) {
			return false
		}
		if dry == nil {
			dry = newExporter(s, io.Discard, maxBytes, nil)
		}
		if !dry.visit(ev) && dry.cut {
			s.reachedEnd = true // the export ends here or before
			return false
		}
		return true
	}
	if err := pass(ctx, open, opt.Read.MaxGeneration, scanAndSize, &s.readErr); err != nil {
		return nil, err
	}
	if s.events == 0 {
		if s.readErr != nil {
			return nil, fmt.Errorf("reading the trace: broken before its first event: %w", s.readErr)
		}
		return nil, fmt.Errorf("reading the trace: %w", exectrace.ErrNoEvents)
	}
	s.finish()
	if !s.reachedEnd && s.rel(s.last) < win.Start {
		return nil, fmt.Errorf("%w: it starts at %v, after the last event read, at %v", ErrWindow, win.Start, s.rel(s.last))
	}

	e := newExporter(s, w, maxBytes, s.pick(max(ngo, 0)))
	var readErr error
	if err := pass(ctx, open, opt.Read.MaxGeneration, e.visit, &readErr); err != nil {
		return nil, err
	}
	if readErr == nil {
		readErr = s.readErr // both passes read the same bytes: the second stops earlier or at the same break
	}
	e.close(readErr)
	if err := e.w.flush(); err != nil {
		return nil, fmt.Errorf("writing: %w", err)
	}
	return e.stats(readErr), nil
}

// pass runs one walk over a fresh reader. A break of the trace is no
// error (the events before it are exported): it is left in *broken. The
// error is the opening's, the context's, or a trace that is not one.
func pass(ctx context.Context, open func() (io.ReadCloser, error), maxGen int64, visit func(*trace.Event) bool, broken *error) error {
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := walk(ctx, r, maxGen, visit)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case n == 0:
		return fmt.Errorf("reading the trace: %w", err)
	default:
		*broken = err
	}
	return nil
}
