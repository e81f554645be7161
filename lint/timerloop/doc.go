// Package timerloop defines an Analyzer that reports timers made anew on
// every loop iteration, and zero timers used as a yield (rule SD104).
//
// # Analyzer timerloop
//
// timerloop: report timers made on every loop iteration and zero-length waits used as yields
//
// time.After, time.NewTimer and time.Tick inside a loop allocate a timer
// on every iteration (3 allocations, 248 B), only for it to be dropped
// when another case wins; under a module go line below 1.23 each dropped
// timer also stays on the timer heap until it fires, and each ticker of
// time.Tick forever. time.After(0) and time.Sleep(0) are not yields: an
// expired timer fires inside select without parking the goroutine, and
// Sleep(0) returns at once.
//
//	// WRONG
//	for {
//		select {
//		case m := <-in:
//			handle(m)
//		case <-time.After(time.Second):
//			flush()
//		}
//	}
//
//	// RIGHT
//	t := time.NewTimer(time.Second)
//	defer t.Stop()
//	for {
//		select {
//		case m := <-in:
//			handle(m)
//		case <-t.C:
//			flush()
//		}
//		t.Reset(time.Second)
//	}
//
// The analyzer reports, inside an unbounded loop of the same function
// (for {}, for cond {} that is not a counted loop, a range over a channel
// or a function; not in a function literal started there):
//
//   - a timer's channel received in a select case when another case of
//     that select can let the loop go on (so the timer is dropped): written
//     inline (case <-time.After(d), case <-time.NewTimer(d).C), made by a
//     function of the package that returns time.After(...) or
//     time.NewTimer(...).C (case <-randomTimeout(d)), or kept in a
//     variable by a statement of the loop's body (timeout :=
//     time.After(d), t := time.NewTimer(d) then case <-t.C, in a select
//     of the loop itself: one in an inner loop goes round that loop,
//     which keeps the timer until it fires, as a batch window does), or by a
//     branch of the loop, a case's body or an if, where it replaces a
//     timer that may still be pending (idle = time.After(d) on every
//     message, received as case <-idle on a later pass), unless the
//     branch is the case that received the old timer (it fired), sits
//     under an if that reads the variable (if idle == nil { ... } arms
//     one at a time), or the loop stops the old timer;
//
// and, in any loop, every time.Tick, which starts a ticker that is never
// stopped; and anywhere, time.Sleep(d) and <-time.After(d) with a constant
// d of 0 or less, used as a yield (in a loop, or in a helper a loop calls).
//
// A duration is the same every iteration when it reads no variable set in
// the loop and calls only conversions, or a getter read for one field
// (r.config().CommitTimeout); a call that returns the duration itself is
// a backoff or a jitter, and is skipped. A helper may also return nil (a
// nil channel never fires) on some paths.
//
// A case "lets the loop go on" when it continues it, or neither leaves the
// loop (return, break, a call that never returns, an if/else or switch
// whose every branch does) nor is followed by statements that do. A case
// <-ctx.Done() does not, when the loop ends once ctx is done: its
// condition requires ctx.Err() == nil (for ctx.Err() == nil { ...;
// select { case <-ctx.Done(): case <-time.After(d): } }), or its body
// starts with if ctx.Err() != nil { return }; the timer is then dropped
// once, when the loop ends. So it
// stays silent for a timer made once before the loop and Reset in it, for
// a select whose other cases all leave (a wait with a timeout, the
// sleep-or-cancel idiom of a retry loop), for a select followed by a
// return (one timer per call), for time.After in a select outside any
// loop, for a duration computed per iteration (backoff, jitter), for a
// time.After(0) assigned to a variable (heartbeat = time.After(0) makes a
// blocking select's next round fire at once, on purpose), and for a zero
// sleep in a select's default inside a for loop, which busyselect (SD101)
// reports as a spinning select; in a range or counted loop, where SD101
// is silent, this analyzer reports it.
//
// Loops bounded by a count or a collection (for i := 0; i < n; i++; for
// received := 0; received < sent; { ... received++ }, a wait for a known
// number of replies; a range over a config's entries at reload) make at
// most that many timers
// per call, and how often the function runs is not known here: timers made
// per iteration of them are not reported unless an unbounded loop of the
// same function encloses them (per message, then per subscriber).
//
// Severity follows the cost, which the module's go line decides: from go
// 1.23 a timer's channel is synchronous (the timer is on a heap only while
// a goroutine is blocked on it) and an unreferenced timer or ticker is
// collected, so a timer or ticker dropped per iteration costs its
// allocation and is reported as info, with Diagnostic.Category
// "SD104/info" (the drivers read the severity from there). Below go 1.23,
// or when the go line is unknown, it is a warning. The go line is the
// package's module's: the main module that builds it has at least that
// line (the go command requires it since Go 1.21), so the runtime's
// default GODEBUG asynctimerchan=0 holds. The zero-duration yields burn a
// core under any go line and stay warnings.
//
// For time.Sleep(0) it suggests runtime.Gosched() when the file already
// imports runtime and still uses time elsewhere, so the edit compiles; it
// offers no fix for time.After(0), whose select must be rewritten by hand.
package timerloop
