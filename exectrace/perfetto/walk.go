package perfetto

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
)

// errStop ends a walk early: the visitor has all it needs.
var errStop = errors.New("stop")

// walk reads the events of the trace in r, in order, through exectrace's
// generation limit (the reader holds no more of one generation than the
// analysis does), and hands each to visit until visit returns false. It
// returns the number of events read and how the reading ended: nil at the
// end of the trace or when visit stopped it; otherwise the error that
// broke it (a generation over the limit, a corrupt or cut trace). The
// reader and the event accessors panic on inconsistent input: that ends
// the walk with an error, never the program.
func walk(ctx context.Context, r io.Reader, maxGen int64, visit func(*trace.Event) bool) (n int64, err error) {
	lim, err := exectrace.NewGenerationLimiter(r, maxGen)
	if err != nil {
		return 0, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed trace: event %d: %v", n, p)
		}
	}()
	rd, err := trace.NewReader(lim)
	if err != nil {
		return 0, fmt.Errorf("not a readable Go execution trace: %w", err)
	}
	for {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		ev, err := rd.ReadEvent()
		if err != nil {
			if cut := lim.Cut(); cut != nil {
				return n, cut // the reader's error is about the cut
			}
			if err == io.EOF {
				return n, nil
			}
			return n, oneLine(err)
		}
		n++
		if !visit(&ev) {
			return n, nil
		}
		// As exectrace.Read: the limiter cut the generation being read;
		// every earlier one has been handed out at its sync.
		if cut := lim.Cut(); cut != nil && ev.Kind() == trace.EventSync {
			return n, cut
		}
	}
}

// oneLine keeps the first line of a reader error: its ordering errors
// append a dump of every goroutine's state.
func oneLine(err error) error {
	msg := err.Error()
	first, _, cut := strings.Cut(msg, "\n")
	if !cut {
		return err
	}
	return fmt.Errorf("%s (the reader's state dump left out)", strings.TrimSuffix(strings.TrimSpace(first), ":"))
}

// funcName names a goroutine by its stack: the outermost frame of the
// user's code (finding.UserFunction), so that a goroutine the standard
// library started (net/http's conn.serve) is named after the handler it
// runs; user reports whether it is one. With no user frame, the outermost
// frame: runtime workers have only the runtime's.
func funcName(s trace.Stack) (name string, user bool) {
	if s == trace.NoStack {
		return "", false
	}
	for f := range s.Frames() {
		if finding.UserFunction(f.Func) {
			name, user = f.Func, true // the last one seen is the outermost
		} else if !user {
			name = f.Func
		}
	}
	return name, user
}
