// Package cli is the schedoctor command line: one FlagSet per subcommand,
// the output flags every diagnosing subcommand shares, and the exit-code
// contract (docs/contract.md: 0 clean, 1 findings at or above -fail, 2 usage or
// input error). cmd/schedoctor only calls Run.
//
// Each subcommand lives in its own file and registers itself in init, so
// that the layers can be added without touching one another.
package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Exit codes.
const (
	ExitClean    = 0 // ran, nothing at or above -fail
	ExitFindings = 1 // findings at or above -fail
	ExitError    = 2 // usage or input error
)

// Env is what a subcommand may touch of the outside world, injectable for tests.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Terminal reports whether Stdout is a terminal (for colour).
	Terminal bool
	// VetTool is the path of this program when it also serves as go vet's
	// -vettool (cmd/schedoctor does; see lint/driver.IsVetTool): lint then runs
	// through go vet, package by package with its build cache. Empty: lint
	// loads and analyzes every package in this process.
	VetTool string

	cmd string // the running subcommand, for messages

	// Set by Run: the unescaped standard output (for JSON, escaped its
	// own way), the safe writers to flush, and what the run is doing.
	rawStdout io.Writer
	mu        *sync.Mutex
	flushers  []*textsafe.Writer
	st        *runState
}

// runState is what a run shares with the goroutine its command runs in.
type runState struct {
	ctx      context.Context
	mu       sync.Mutex
	doing    string // "reading standard input": for the message on a signal
	reported bool   // the interruption was already printed
}

func (e *Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// command is one subcommand.
type command struct {
	name  string
	short string // one line in the list of commands
	order int    // position in the list: the layers from the code outwards
	run   func(ctx context.Context, e *Env, args []string) int
}

var commands []*command

func register(c *command) {
	commands = append(commands, c)
	slices.SortStableFunc(commands, func(a, b *command) int {
		return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.name, b.name))
	})
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Run runs schedoctor with args (without the program name) and returns the
// exit code. It never panics: a bug surfaces as a message and exit 2.
//
// Everything it writes goes through textsafe writers: control characters
// from input are escaped even where a renderer forgot to (stdout keeps its
// colour sequences on a terminal; JSON is escaped as JSON). A signal
// (NotifyContext) cancels ctx: the command's readers and children stop, the
// message says what was interrupted, and the exit status is 128+N.
func Run(ctx context.Context, e *Env, args []string) (code int) {
	e = e.safe(ctx)
	defer e.flush()
	if len(args) == 0 {
		usage(e.Stderr)
		return ExitError
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				e.cmd = c.name
				return c.run(ctx, e, []string{"-h"})
			}
			fmt.Fprintf(e.Stderr, "schedoctor help: unknown command %q\n", args[1])
			if s := suggestCommand(args[1]); s != "" {
				fmt.Fprintf(e.Stderr, "%s\n", s)
			}
			return ExitError
		}
		usage(e.Stdout)
		return ExitClean
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(e.Stderr, "schedoctor: unknown command %q\n", name)
		if s := suggestCommand(name); s != "" {
			// The suggestion alone: the list of every command would push
			// it off the screen.
			fmt.Fprintf(e.Stderr, "%s\nRun 'schedoctor help' for the list of commands.\n", s)
			return ExitError
		}
		fmt.Fprintln(e.Stderr)
		usage(e.Stderr)
		return ExitError
	}
	e.cmd = c.name
	return e.runCommand(ctx, c, args[1:])
}

// safe returns a copy of e whose writers escape what they are given and
// may be used from the command's goroutine and Run's at once.
func (e *Env) safe(ctx context.Context) *Env {
	c := *e
	c.mu = new(sync.Mutex)
	c.st = &runState{ctx: ctx}
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	out := textsafe.NewWriter(e.Stdout, textsafe.Options{KeepSGR: e.color()})
	errw := textsafe.NewWriter(e.Stderr, textsafe.Options{})
	c.flushers = []*textsafe.Writer{out, errw}
	c.rawStdout = &lockedWriter{mu: c.mu, w: e.Stdout}
	c.Stdout = &lockedWriter{mu: c.mu, w: out}
	c.Stderr = &lockedWriter{mu: c.mu, w: errw}
	return &c
}

func (e *Env) flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range e.flushers {
		f.Flush()
	}
}

// jsonOut is standard output for a JSON document: encoding/json escapes C0
// controls but lets DEL, C1 and the bidi controls through, which this
// escapes as JSON (\u009b) so the document stays valid.
func (e *Env) jsonOut() *textsafe.Writer {
	e.flush() // what text went before, in order
	return textsafe.NewWriter(e.rawStdout, textsafe.Options{JSON: true})
}

// lockedWriter serializes writes: after an interrupt, Run prints its
// message while the abandoned command may still be writing.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// runCommand runs c in a goroutine, so that a signal can end the run even
// when the command is blocked somewhere the context does not reach. It
// never panics: a bug surfaces as a message and exit 2.
func (e *Env) runCommand(ctx context.Context, c *command, args []string) int {
	e.doing("running schedoctor " + c.name)
	done := make(chan int, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(e.Stderr, "schedoctor: internal error: %v\n(this is a bug in schedoctor; please report it with the command and input)\n", r)
				if e.getenv("SCHEDOCTOR_DEBUG") != "" {
					fmt.Fprintf(e.Stderr, "%s", debug.Stack())
				}
				done <- ExitError
			}
		}()
		done <- c.run(ctx, e, args)
	}()
	var code int
	select {
	case code = <-done:
	case <-ctx.Done():
		if interrupted(ctx) == nil {
			code = <-done // cancelled by the caller, not a signal: its business
			break
		}
		select {
		case code = <-done:
		case <-time.After(interruptGrace):
		}
	}
	if in := interrupted(ctx); in != nil {
		e.reportInterrupt()
		return in.ExitCode()
	}
	return code
}

// doing records what the command is doing, for the message if a signal
// interrupts it: "reading standard input", "fetching URL".
func (e *Env) doing(what string) {
	if e.st == nil {
		return
	}
	e.st.mu.Lock()
	e.st.doing = what
	e.st.mu.Unlock()
	if doingHook != nil {
		doingHook(what)
	}
}

// doingHook, when set (by tests only), sees every change of what the run
// is doing: a test sends its signal once the command is where it wants.
var doingHook func(string)

// reportInterrupt prints, once, what the signal interrupted.
func (e *Env) reportInterrupt() {
	e.st.mu.Lock()
	if e.st.reported {
		e.st.mu.Unlock()
		return
	}
	e.st.reported = true
	doing := e.st.doing
	e.st.mu.Unlock()
	fmt.Fprintf(e.Stderr, "schedoctor %s: interrupted while %s\n", e.cmd, textsafe.String(doing))
}

// usage prints the list of commands, in 80 columns.
func usage(w io.Writer) {
	fmt.Fprintf(w, "schedoctor finds what wastes a Go program's scheduler and says how to fix it.\n\n")
	fmt.Fprintf(w, "Usage:\n\n    schedoctor <command> [flags] [arguments]\n\nCommands:\n\n")
	for _, c := range commands {
		io.WriteString(w, wrapWords(fmt.Sprintf("    %-11s ", c.name), strings.Repeat(" ", 16), c.short, helpWidth))
	}
	io.WriteString(w, "\n"+wrapWords("", "", "Run 'schedoctor help <command>' or 'schedoctor <command> -h' for a command's flags and examples.", helpWidth))
	io.WriteString(w, wrapWords("", "", "Exit status: 0 nothing at or above -fail, 1 findings, 2 usage or input error, 130 or 143 interrupted (SIGINT, SIGTERM).", helpWidth))
}

// newFlagSet makes a subcommand's FlagSet: errors and usage go to stderr,
// and the usage shows the synopsis, the flags and real examples.
func (e *Env) newFlagSet(synopsis, description, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet("schedoctor "+e.cmd, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	// Everything fits 80 columns: the synopsis and prose are wrapped, each
	// flag's usage is wrapped under it, and a long example is broken with
	// shell continuations so that it still runs when pasted.
	fs.Usage = func() {
		w := fs.Output()
		io.WriteString(w, wrapCommand("Usage: "+synopsis, helpWidth))
		io.WriteString(w, "\n"+reflow(description, helpWidth))
		if hasFlags(fs) {
			fmt.Fprintf(w, "\nFlags:\n")
			printFlags(w, fs, helpWidth)
		}
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n")
			for _, l := range strings.Split(strings.Trim(examples, "\n"), "\n") {
				io.WriteString(w, wrapCommand(l, helpWidth))
			}
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses args; it returns the exit code to return at once and false
// when parsing ended the command (-h or a bad flag).
//
// Help asked for (-h) goes to standard output, so that it can be paged;
// a bad flag's error and the usage go to standard error.
func (e *Env) parse(fs *flag.FlagSet, args []string) (int, bool) {
	var buf strings.Builder
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(e.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(e.Stdout, buf.String())
			return ExitClean, false
		}
		if s := suggestFlag(fs, err); s != "" {
			// The error and the suggestion, without the usage that would
			// scroll them away.
			fmt.Fprintf(e.Stderr, "schedoctor %s: %s\n%s\nRun 'schedoctor %s -h' for usage.\n", e.cmd, err, s, e.cmd)
			return ExitError, false
		}
		io.WriteString(e.Stderr, buf.String()) // the flag package's error and the usage
		return ExitError, false
	}
	return 0, true
}

// usageError prints a usage problem and returns ExitError.
func (e *Env) usageError(format string, args ...any) int {
	fmt.Fprintf(e.Stderr, "schedoctor %s: %s\nRun 'schedoctor %s -h' for usage.\n", e.cmd, fmt.Sprintf(format, args...), e.cmd)
	return ExitError
}

// fail prints an input or run error (it already names the file and what is
// wrong) and returns ExitError.
//
// After a signal the error is only the cancel seen from inside ("context
// canceled"): the message says what was interrupted instead.
func (e *Env) fail(err error) int {
	if e.st != nil && interrupted(e.st.ctx) != nil {
		e.reportInterrupt()
		return ExitError
	}
	if ke, ok := asKindError(err); ok {
		// The input is of another kind: say which command reads it.
		fmt.Fprintf(e.Stderr, "schedoctor %s: %s\n", e.cmd, kindMessage(ke))
		return ExitError
	}
	msg := err.Error()
	if h := e.errorHint(err); h != "" {
		msg += " (" + h + ")"
	}
	fmt.Fprintf(e.Stderr, "schedoctor %s: %s\n", e.cmd, textsafe.Text(msg))
	return ExitError
}

// warn prints a non-fatal problem: part of the input could not be used.
func (e *Env) warn(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "schedoctor %s: warning: %s\n", e.cmd, fmt.Sprintf(format, args...))
}
