// Package goroutines reads goroutine dumps and the goroutine leak profile
// and finds goroutine leaks (SD701). Its entry points are those of every
// source (docs/HACKING.md, "Sources"): Read(ctx, name, r, ReadOptions) or
// ReadFile(ctx, name, ReadOptions), bounded by ReadOptions, return a *Dump;
// Analyze(dumps, Options) (*Result, error) compares the dumps of one program.
//
// # Formats
//
// Read accepts every form /debug/pprof/goroutine and
// /debug/pprof/goroutineleak serve, and tells them apart by their first
// bytes:
//
//   - debug=2 text (also the output of an unrecovered panic or SIGQUIT):
//     one record per goroutine with its ID, state ("chan send", "select",
//     "IO wait", ...), minutes waiting (printed only from 1 minute on),
//     "locked to thread", every frame with file:line, and the "created by"
//     frame with the creating goroutine's ID. A goroutine the leak
//     detector proved unreachable is marked "(leaked)" (Go 1.26 with
//     GOEXPERIMENT=goroutineleakprofile, goroutineleak?debug=2).
//   - debug=1 text: identical stacks counted together. No IDs, no states,
//     no wait times, no creators, and the runtime's own frames are left
//     out, so a channel operation cannot be told from a select.
//   - the protobuf profile (debug=0): like debug=1 but with the runtime
//     frames, from which the state is inferred (runtime.chansend1 is
//     "chan send"); still no IDs, wait times or creators.
//
// A "goroutineleak profile" (debug=0 or 1) lists only the goroutines the
// garbage collector proved blocked forever on a channel or lock that no
// running goroutine can reach.
//
// # Leaks
//
// Analyze groups goroutines by state, the line where they wait (the first
// user frame, finding.UserFunction, with the standard-library frame that
// parks them as context) and the line that created them, and reports SD701
// by three methods, strongest first: goroutines the leak profile marked;
// groups that grew between two dumps with their first-dump goroutines still
// parked at the same place; groups in one dump parked on a send, a nil
// channel or a lock for longer than the window. What each method cannot see
// is in docs/goroutines.md.
//
// Everything is bounded (ReadOptions); malformed records are skipped and
// counted in Dump.Skipped, and no input makes the package panic. Functions
// are safe for concurrent use; a Dump is not modified after Read returns.
package goroutines
