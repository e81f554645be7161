// Package timerloop defines an Analyzer that reports timers made anew on
// every loop iteration, and zero timers used as a yield (rule SD104).
//
// # Analyzer timerloop
//
// timerloop: report timers made on every loop iteration and zero-length waits used as yields
//
// time.After, time.NewTimer and time.Tick inside a loop allocate a timer
// and put it on the P's timer heap on every iteration, only for it to be
// dropped when another case wins. time.After(0) and time.Sleep(0) are not
// yields: an expired timer fires inside select without parking the
// goroutine, and Sleep(0) returns at once.
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
// The analyzer reports, inside a for or range loop of the same function
// (not in a function literal started there):
//
//   - time.After(d) received from in a select case, when another case of
//     that select can let the loop go on (so the timer is dropped);
//   - t := time.NewTimer(d) whose t.C is received from in such a select in
//     the same loop;
//   - every time.Tick, which starts a ticker that is never stopped;
//   - time.After(d) and time.Sleep(d) with a constant d of 0 or less.
//
// It stays silent for a timer made once before the loop and Reset in it,
// for a select whose other cases all leave the loop (a wait with a timeout,
// or the sleep-or-cancel idiom of a retry loop), for time.After in a
// select outside any loop, and for sleeps of zero in a select's default,
// which busyselect (SD101) reports.
//
// For time.Sleep(0) it suggests runtime.Gosched() when the file already
// imports runtime and still uses time elsewhere, so the edit compiles; it
// offers no fix for time.After(0), whose select must be rewritten by hand.
package timerloop
