// Package inspect reads the Go source at a line that a runtime source (a
// CPU profile, an execution trace) found hot, and says what the code there
// is: the loop that encloses the line, what that loop waits on, and what
// the schedoctor analyzers report inside it.
//
// It brings the runtime layers the code layer's answer, lint/loops', to
// "compute or spin?": a profile sees selectgo at 0.95 cores under
// main.go:37 and cannot tell a select with a default in a loop from a
// blocking select whose channel is always ready; the source can.
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
// # How a loop is judged
//
// Not here. The innermost for or range statement around the line, inside
// the innermost function (a declared function or a closure), is found
// here; its verdict comes from lint/loops, schedoctor's one judgement of
// the code, the same analysis whose rule analyzers `schedoctor lint`
// reports. The verdict is the loop's, not the line's: every line of a
// loop, whichever a profile found hottest, gets the same Kind, SpinLine
// and Detail. Rule names the lint rule that decided a spin (SD101 for
// SelectDefault, SD106 for YieldSpin and AtomicSpin, SD102 for
// SleepPoll, SD104 for TimerPerIter or a zero timer's YieldSpin); a loop
// no rule reports is no spin, and lint/loops says what it is instead
// (Blocking, SleepUnknown, RetryCAS, Unknown, Compute). This package holds no
// table of calls and no rule: when a verdict is wrong, the fix belongs in
// the analyzer that made it, and lint and the runtime layers change
// together (TestLintAgrees holds them to it on every loop of the
// analyzers' testdata).
//
// Which package owns which knowledge:
//
//   - lint/busyselect, lint/sleeppoll, lint/spinwait, lint/timerloop:
//     which loop shapes are a spin, a poll or a timer per iteration;
//   - lint/blocking: what a call does to the calling goroutine (the
//     standard library's table and per-function facts);
//   - lint/internal/astutil: the syntax questions they share;
//   - lint/loops: the mapping of their findings onto loops, and the
//     description of the loops they leave alone;
//   - lint/inspect (this package): finding the file a profile or trace
//     recorded, the loop around a line, and loading its package.
//
// # Typed and untyped
//
// The verdicts come from running the analyzers and lint/loops on one
// package's files with a lenient type check (the standard library
// imported from export data, other imports left empty, errors ignored),
// so they work on a lone file of a binary built elsewhere. A call into a
// package that is left empty has no facts: the analyzers see an unknown
// call and stay silent there (a miss, never a false alarm). A consumer
// that retries another package's non-blocking Dequeue is a spin only to a
// typed load.
//
// Findings come from the schedoctor analyzers (lint.Analyzers, run by
// driver.Run) on the package that holds the file, loaded with go/packages:
// Typed is true then, and a loop rule's finding there decides the loop's
// kind the way lint/loops does (lint/loops.FromDiagnostic; a spin seen
// only with every package typed is the loop's verdict). When that
// package does not load (no go.mod, missing dependencies, a lone file, a
// load that takes longer than LoadTimeout) the findings are those of the
// leniently typed run and Typed is false. Loads run the go command with
// GOPROXY=off and GOTOOLCHAIN=local, so they never reach the network.
//
// NoFindings skips the package load (diagnose.Profile reads every frame
// of the hot stacks and uses the kind alone), except for a loop whose
// lenient kind is Unknown because it calls another package (a call the
// lenient types could not type; an interface's method or a func value
// costs no load): that loop's package is loaded typed once (unless
// NoLoad), so that a consumer's
// retry around a library's non-blocking Dequeue is named by the
// library's facts (measured on goconcurrentqueue's consumer: the whole
// profile command in 5 s on a busy 2-core machine). VetTool runs the analyzers
// through `go vet -vettool`, whose results and dependency facts the
// build cache keeps across runs.
//
// A frame in a file that is not Go (a .s file of assembly) is refused
// with ErrNoSource without being read.
//
// Findings are located by absolute path (Loop.Path is the path as
// resolved). SpinIn applies At to a stack's frames and returns the first
// that lies in a spinning loop: a hot helper inlined into a wait loop is
// compute where it is and a spin one frame up, and a library's
// non-blocking call is compute in the library and a spin in the caller's
// retry loop. Frames of the standard library and the runtime (mcall and
// gosched_m around a Gosched under LockOSThread) are skipped: their loops
// are not the user's to fix.
//
// A Resolver is safe for concurrent use. It caches parsed files by path and
// package loads by directory, for its lifetime.
package inspect
