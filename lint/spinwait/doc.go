// Package spinwait defines an Analyzer that reports loops spinning on an
// atomic, a flag or runtime.Gosched with no blocking and no backoff (rule
// SD106).
//
// # Analyzer spinwait
//
// spinwait: report loops that spin on a flag or runtime.Gosched without blocking
//
// A goroutine that loops until another one changes a value holds its P the
// whole time. runtime.Gosched only moves it to the global run queue; with
// an idle P it runs again at once, so it still burns a full core, and it
// starves the goroutine it waits for when Ps are few.
//
//	// WRONG
//	for !done.Load() {
//		runtime.Gosched()
//	}
//
//	// RIGHT
//	<-doneCh // closed by the goroutine that finishes
//
// The analyzer reports a for loop (not a range loop, not a counted loop)
// that waits, through its condition or an if that leaves it, on something
// another goroutine can change (an atomic Load, a variable or field, len of
// a channel, ctx.Err), or that calls runtime.Gosched, and whose every
// statement only reads: comparisons, atomic loads, runtime.Gosched, a
// counter increment, break, continue, return. It stays silent as soon as
// the loop does anything else: an atomic Store, Add or CompareAndSwap (a
// CAS retry loop makes progress), an assignment, any sleep (sleeppoll and
// timerloop report those), a channel operation or select (busyselect), or
// a call it does not know; for loops timed with time.Now or time.Since,
// which burn CPU on purpose; for an empty for {}; for loops on
// runtime.NumGoroutine (goroutinethrottle); and in _test.go files, where
// spinning goroutines are how scheduler behaviour is exercised.
package spinwait
