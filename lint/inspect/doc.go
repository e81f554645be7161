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
// # What it reads
//
// (*Resolver).At takes a file as a profile or trace recorded it. It reads
// that path when it names a regular file; otherwise, for each of the
// Resolver's SrcDirs in order, it tries the recorded path's suffixes under
// the directory, longest first: "/home/ci/src/proj/pkg/x.go" is tried as
// DIR/home/ci/src/proj/pkg/x.go, DIR/ci/src/proj/pkg/x.go, ...,
// DIR/pkg/x.go and last DIR/x.go; a -trimpath path
// "github.com/org/proj/pkg/x.go" the same way. The first regular file
// found wins. Files larger than MaxFileSize and anything that is not a
// regular file (a directory, a FIFO, a device) are refused with an error
// naming the file; an absent file is ErrNoSource.
//
// # How a loop is classified
//
// The innermost for or range statement around the line, inside the
// innermost function (a declared function or a closure), is walked along
// its "idle path": the statements that run when nothing the loop waits for
// has happened. Operations in a select case that fired, and in branches
// that leave the loop (return, break, panic, a flag the loop condition
// reads), are off that path. Calls to functions of the same package are
// followed (a few levels deep) to see whether they block, yield or only
// read. Then, in this order: a timer made per iteration is TimerPerIter; a
// blocking operation (channel operation, select without default, lock,
// I/O, a sleep of 1ms or more) makes the loop Blocking; a select whose
// default neither blocks nor leaves is SelectDefault; a sleep below 1ms
// is SleepPoll; a sleep of a length the source does not fix
// (time.Sleep(*retry), whose flag may be 0) is SleepUnknown, which only
// runtime figures can settle; runtime.Gosched,
// time.Sleep(0) or time.After(0) in a loop that waits on shared state is
// YieldSpin, unless the yield only follows a failed compare-and-swap that
// the loop leaves when it wins (RetryCAS); a loop that waits on shared
// state (an atomic, a flag, a helper's result) and does nothing else is
// AtomicSpin; anything else is Compute. A variable the loop moves from its
// own value (x = x[n:], p = p.next, n = n - k, like x -= k) is progress,
// whatever the step is computed from: `for len(buf) > 0 { ...; buf =
// buf[n:] }` works its way out and is Compute, while a variable that any
// pass re-reads from shared state (p = *head.Load()) still waits. A loop
// that drains the very
// channel it tries to send to is a bounded retry too (RetryCAS).
// Unknown calls count as work, never as a spin: a miss is preferred to a
// false alarm.
//
// # Typed and untyped
//
// The classification reads one package's files with a lenient type check
// (the standard library imported from export data, other imports left
// empty, errors ignored), so it works on a lone file of a binary built
// elsewhere. The Findings come from the schedoctor analyzers
// (lint.Analyzers, run by lint.Run) on the package that holds the file,
// loaded with go/packages: Typed is true then. When that package does not
// load (no go.mod, missing dependencies, a lone file, a load that takes
// longer than LoadTimeout) the analyzers run on the leniently typed files
// instead and Typed is false: they may miss what needs types from other
// packages. Loads run the go command with GOPROXY=off and
// GOTOOLCHAIN=local, so they never reach the network.
//
// NoFindings skips the analyzers altogether (the kind does not need
// them; diagnose.Profile reads every frame of the hot stacks and uses the
// kind alone). VetTool runs them through `go vet -vettool`, whose results
// and dependency facts the build cache keeps across runs.
//
// Findings are located by absolute path (Loop.Path is the path as
// resolved). SpinIn applies At to a stack's frames and returns the first
// that lies in a spinning loop: a hot helper inlined into a wait loop is
// compute where it is and a spin one frame up.
//
// A Resolver is safe for concurrent use. It caches parsed files by path and
// package loads by directory, for its lifetime.
package inspect
