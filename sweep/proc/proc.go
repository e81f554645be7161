// Package proc runs one command as a measured child process: in its own
// process group, killed with the whole group on timeout, on cancellation and
// when it ends, and measured from the kernel's accounting: wall time, user
// and system CPU, voluntary and involuntary context switches and peak RSS
// from wait4's rusage, and run-queue wait from /proc/PID/task/*/schedstat.
//
// # What the numbers cover
//
// The rusage the kernel returns when a child is reaped covers all of its
// threads, plus every descendant that the child itself waited for (go test
// waits for the compiler, the linker and the test binary, so a sweep of
// `go test -bench` counts their CPU too). Maxrss is the largest of those
// processes, not a sum.
//
// Run-queue wait (the time threads were runnable but not running, field 2
// of schedstat) has no rusage counterpart, and a thread's schedstat vanishes
// when the thread exits. The child is therefore sampled while it runs (at
// 5ms, then at intervals doubling up to SampleEvery), keeping the last value
// seen per thread, and read once more after it has exited but before it is
// reaped (waitid with WNOWAIT leaves it a zombie whose /proc entry is still
// there). By then the kernel has released every thread but the leader
// (measured: /proc/PID/task of the zombie lists the leader alone), so a
// thread loses the wait it accrued since the last sample. Go programs rarely
// end threads before exit, so in practice the figure misses at most one
// sampling interval of the non-leader threads. Descendants are not included.
//
// # Descendants
//
// A descendant that leaves the child's process group (setsid, a double
// fork) survives a group kill. Start therefore tags the child's
// environment (TagVar), makes this process a child subreaper and gives the
// child SIGKILL as its parent-death signal; the sampler records the
// child's descendants; and when the child ends, Wait kills every recorded
// descendant still running, every process with the run's tag and all
// below them, and reaps those re-parented here. StartGuard starts a guard
// process that does the same for every run of this process if it is
// killed with SIGKILL: this executable run again, entered from this
// package's init. Leftovers and ListenersOn serve the checks before a run.
//
// Only Linux is supported; elsewhere Start returns ErrUnsupported.
package proc

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrUnsupported is returned by Start where the measurements are not
// available (every OS but Linux).
var ErrUnsupported = errors.New("measuring a child process needs Linux")

// Spec says what to run.
type Spec struct {
	Path string   // the executable (resolved with exec.LookPath by the caller)
	Args []string // arguments, without the program name
	Env  []string // the whole environment
	Dir  string   // working directory; "" for the current one

	Stdout, Stderr io.Writer // nil discards

	// Guard, when not nil, is the guard that kills the run's descendants
	// if this process is killed (StartGuard).
	Guard *Guard

	// SampleEvery is the longest schedstat sampling period: sampling
	// starts at 5ms and doubles up to it. 0 means 100ms.
	SampleEvery time.Duration
}

// Usage is what one run of the child measured.
type Usage struct {
	Wall         time.Duration // from start to exit (not to reaping)
	User, System time.Duration // CPU time of all threads and waited-for descendants
	Voluntary    int64         // voluntary context switches (the thread blocked)
	Involuntary  int64         // involuntary context switches (the thread was preempted)
	RunQueueWait time.Duration // time threads were runnable but waiting for a CPU
	MaxRSS       int64         // peak resident set size, bytes
	Threads      int           // threads seen by the schedstat sampler
	ExitCode     int           // -1 when killed by a signal
	Signal       string        // the signal that ended it, "" for a normal exit
}

// ExitError is returned by Wait when the child did not exit with status 0.
// The Usage is still filled in.
type ExitError struct {
	Code   int
	Signal string
	Reason string // why schedoctor killed it ("timed out after 5s"), or ""
}

func (e *ExitError) Error() string {
	switch {
	case e.Reason != "":
		return e.Reason
	case e.Signal != "":
		return "killed by signal " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}
