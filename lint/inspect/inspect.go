// Package inspect reads the Go source at a line that a runtime source (a
// CPU profile, an execution trace) found hot, and says what the code there
// is: the loop that encloses the line, what that loop waits on, and what
// the schedoctor analyzers report inside it.
//
// It is the code layer's answer to the runtime layers' "compute or spin?":
// a profile sees selectgo at 0.95 cores under main.go:37 and cannot tell a
// select with a default in a loop from a blocking select whose channel is
// always ready; the source can.
//
// CONTRACT (fixed; implementation in progress): the types and the signature
// of (*Resolver).At are what package diagnose builds on.
package inspect

import (
	"errors"

	"github.com/schedoctor/schedoctor/finding"
)

// ErrNoSource is returned (wrapped) when no readable Go file answers to the
// path a profile or trace recorded, neither as recorded nor under any of
// the Resolver's SrcDirs.
var ErrNoSource = errors.New("source not found")

// Kind is what the loop around a hot line does between iterations.
type Kind string

const (
	NotInLoop     Kind = "not-in-loop"    // the line is in no for statement of its function
	SelectDefault Kind = "select-default" // a select with a default that neither blocks nor leaves the loop (SD101)
	YieldSpin     Kind = "yield-spin"     // runtime.Gosched, time.Sleep(0) or a zero timer as the only wait (SD106)
	AtomicSpin    Kind = "atomic-spin"    // re-reads an atomic or a flag another goroutine moves, with no blocking (SD106)
	SleepPoll     Kind = "sleep-poll"     // polls with a time.Sleep below the SD102 threshold
	TimerPerIter  Kind = "timer-per-iter" // makes a timer every iteration (SD104)
	Blocking      Kind = "blocking"       // the loop blocks honestly (a blocking channel op or select, a lock, I/O, a long sleep)
	Compute       Kind = "compute"        // no wait and no spin operation: plain computation
	RetryCAS      Kind = "retry-cas"      // retries a compare-and-swap until it wins (bounded by contention, not a wait)
)

// Spin reports whether the loop burns CPU waiting for something rather than
// computing or blocking.
func (k Kind) Spin() bool {
	switch k {
	case SelectDefault, YieldSpin, AtomicSpin:
		return true
	}
	return false
}

// Loop is what the source shows around one line.
type Loop struct {
	// Path is the file that was read (after remapping); Line the line asked.
	Path string
	Line int
	// Function is the enclosing function as pprof names it ("main.bad.func1"
	// is not reconstructed: the declared name, "bad" or "(*ring).put").
	Function string
	// Start and End are the lines of the innermost for or range statement
	// that encloses Line (0 when Kind is NotInLoop). Outer holds the
	// enclosing loops' ranges, innermost first, when loops nest.
	Start, End int
	Outer      [][2]int
	Kind       Kind
	// Detail says in a few words what made the verdict ("select at line 37
	// has a default and cases on done, ctx.Done()"; "time.Sleep(5µs) at
	// line 12").
	Detail string
	// SpinLine is the line of the operation that spins or polls (the select,
	// the Gosched call, the atomic load, the sleep), 0 when none.
	SpinLine int
	// Findings are the SD1xx diagnostics the analyzers report between Start
	// and End (from the whole package when it loads, from the file alone
	// otherwise; Typed says which).
	Findings []finding.Finding
	Typed    bool
}

// Resolver finds and reads source files; it caches what it has read and
// parsed, so asking about many lines of one file parses it once. The zero
// value reads paths as recorded.
type Resolver struct {
	// SrcDirs are roots to try when the recorded path does not exist (a
	// binary built elsewhere or with -trimpath): the recorded path's
	// suffixes are looked up under each, longest first.
	SrcDirs []string
}

// At reports the loop that encloses file:line. file is as the profile or
// trace recorded it. The error wraps ErrNoSource when the file cannot be
// found; other errors name the file and what is wrong with it.
func (r *Resolver) At(file string, line int) (*Loop, error) {
	return nil, ErrNoSource // replaced by the implementation
}
