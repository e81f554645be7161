package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Interrupted is the cause of the run's context when a signal ended it
// (context.Cause). The exit status is the shell's convention, 128 + the
// signal number: 130 for SIGINT (Ctrl-C), 143 for SIGTERM, so that a
// script can tell "stopped" from "the input was bad" (2).
type Interrupted struct {
	Signal os.Signal
}

func (i *Interrupted) Error() string { return "interrupted by " + signalName(i.Signal) }

// ExitCode is 128 + the signal number.
func (i *Interrupted) ExitCode() int {
	if s, ok := i.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptGrace is how long Run waits, after the first signal, for the
// command to notice the cancelled context, stop its children and return;
// after it Run returns anyway (a reader the context cannot reach, such as a
// blocking open, is abandoned: the process is about to exit).
const interruptGrace = 3 * time.Second

// NotifyContext returns a context cancelled with an *Interrupted cause on
// the first SIGINT or SIGTERM. A second signal exits the process at once
// (with the same 128+N status), for when the first one is not enough.
// stop releases the signals.
func NotifyContext(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case s := <-ch:
				n++
				in := &Interrupted{Signal: s}
				if n == 1 {
					cancel(in)
					continue
				}
				fmt.Fprintf(stderr, "schedoctor: second %s: exiting at once\n", signalName(s))
				os.Exit(in.ExitCode())
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// interrupted returns the signal that cancelled ctx, or nil.
func interrupted(ctx context.Context) *Interrupted {
	if ctx.Err() == nil {
		return nil
	}
	var in *Interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// cancelReader makes a blocking reader (standard input, a pipe, a FIFO)
// return as soon as ctx is cancelled: each read runs in a goroutine, which
// is abandoned on cancel. The process exits soon after, so the abandoned
// read costs nothing; after a cancel every read fails at once.
type cancelReader struct {
	ctx  context.Context
	r    io.Reader
	what string // "reading standard input", for the error
	buf  []byte
	dead bool
}

func newCancelReader(ctx context.Context, r io.Reader, what string) *cancelReader {
	return &cancelReader{ctx: ctx, r: r, what: what}
}

type readResult struct {
	n   int
	err error
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if c.dead || c.ctx.Err() != nil {
		c.dead = true
		return 0, c.cancelErr()
	}
	if len(p) == 0 {
		return 0, nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	ch := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		ch <- readResult{n, err}
	}()
	select {
	case res := <-ch:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		// The goroutine still owns buf: never reuse it.
		c.dead, c.buf = true, nil
		return 0, c.cancelErr()
	}
}

func (c *cancelReader) cancelErr() error {
	return fmt.Errorf("%s: %w", c.what, context.Cause(c.ctx))
}

// openInput opens a command's input argument, "-" meaning standard input,
// as a reader a signal interrupts. Opening runs in a goroutine too: opening
// a FIFO blocks until a writer comes. A regular file never blocks, so it
// only checks the context between reads.
func (e *Env) openInput(ctx context.Context, name string) (io.Reader, func(), error) {
	if name == "-" {
		e.doing("reading standard input")
		return newCancelReader(ctx, e.Stdin, "reading standard input"), func() {}, nil
	}
	if isURL(name) {
		// Commands that fetch URLs handle them before: this one reads
		// files only, and "no such file" would hide why.
		return nil, nil, fmt.Errorf("%s: schedoctor %s reads a file or - (stdin), not a URL", redactedURL(name), e.cmd)
	}
	e.doing("reading " + name)
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		ch <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-ch:
	case <-ctx.Done():
		go func() { // close what the abandoned open returns, if it ever does
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, nil, fmt.Errorf("opening %s: %w", name, context.Cause(ctx))
	}
	if o.err != nil {
		return nil, nil, o.err
	}
	closeFn := func() { o.f.Close() }
	if st, err := o.f.Stat(); err == nil && st.Mode().IsRegular() {
		return &ctxReader{ctx: ctx, r: o.f, f: o.f, what: "reading " + name}, closeFn, nil
	}
	return newCancelReader(ctx, o.f, "reading "+name), closeFn, nil
}

// ctxReader stops a read of a regular file at the next call after ctx is
// cancelled: the reads themselves do not block.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	f    *os.File // the regular file r reads, for SizeHint; nil if none
	what string
}

// SizeHint is how many bytes of the file remain to be read, -1 when that
// is unknown (sysread.SizeHinter). The wrapper hides the *os.File that
// sysread.Reader would stat itself, so without it a bounded read of a
// 40 MB file grows its buffer by doubling and holds about twice the file.
func (c *ctxReader) SizeHint() int64 {
	if c.f == nil {
		return -1
	}
	st, err := c.f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	off, err := c.f.Seek(0, io.SeekCurrent)
	if err != nil || off > st.Size() {
		return -1
	}
	return st.Size() - off
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, fmt.Errorf("%s: %w", c.what, context.Cause(c.ctx))
	}
	return c.r.Read(p)
}
