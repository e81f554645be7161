// Package sleeppoll defines an Analyzer that reports loops polling with a
// time.Sleep shorter than 1ms (rule SD102).
//
// # Analyzer sleeppoll
//
// sleeppoll: report polling loops that sleep less than 1ms
//
// Each time.Sleep parks the goroutine on a timer and each expiry wakes a
// thread to run it again. A tiny sleep buys two context switches per
// iteration, not precision: time.Sleep(1µs) really sleeps about 0.4ms, and
// CPU profiles show runtime.futex at half the samples.
//
//	// WRONG
//	for !ready.Load() {
//		time.Sleep(5 * time.Microsecond)
//	}
//
//	// RIGHT
//	<-readyCh // closed by the goroutine that sets ready
//
// The analyzer reports a call of time.Sleep whose duration is greater than
// 0 and shorter than 1ms: a constant (a literal, a named constant or a
// constant expression such as time.Millisecond / 10), or an unexported
// variable or field only ever given constants in the package (d := 100 *
// time.Microsecond, a package-level var, a field set in a constructor's
// literal), in a for loop that waits for something: the loop has a
// condition, an if in its body leaves it, or the sleep runs only on some
// iterations. When the sleep is in an if that ends with continue (the
// worker that pops a queue and sleeps when it is empty), the idle path is
// the body up to that if: the work after it does not count; likewise when
// the sleep follows an if whose branch does the work and continues (if j,
// ok := q.pop(); ok { run(j); continue }). A critical section on the idle
// path is part of the poll, not a wait: a sync.Mutex or RWMutex taken and
// released on it (the most common polling pool: lock, check the queue,
// unlock, sleep 50µs when it is empty), or a call of a function that parks
// only on a mutex it releases itself (a queue's pop under its lock, by
// lint/blocking's facts); the goroutine waits there only while another
// one holds the lock, never until work arrives. A lock the path takes
// without releasing it (kept across iterations, or released by another
// goroutine as a signal) is a wait, and the loop is left alone. It stays
// silent for counted loops (for i := 0; i < n; i++) and range loops, which
// pace work rather than poll; for endless loops that sleep on every
// iteration; for sleeps with a computed duration (backoff); when anything
// else on the idle path may block (a channel operation, a sync.Cond wait,
// a call that may block or has no fact from lint/blocking, such as a call
// made while holding the lock), since the sleep is
// then not what the loop waits on; for sleeps in a select's default, which
// busyselect (SD101) reports; and for time.Sleep(0), which timerloop
// (SD104) reports.
package sleeppoll
