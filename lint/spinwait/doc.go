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
// another goroutine can change (an atomic Load, of sync/atomic or of a
// package whose path ends in /atomic such as go.uber.org/atomic, not the
// runtime's own; a package-level variable or a field reached through a
// pointer; len of a channel; ctx.Err; Mutex.TryLock; a helper
// that never blocks and polls shared state, by its lint/blocking facts),
// or that calls runtime.Gosched, and whose every statement only reads:
// comparisons, atomic loads, re-reading a value into a variable (gate =
// upstream.Load()), runtime.Gosched, a counter increment, break,
// continue, return. An atomic write or CAS behind a condition (claim the
// slot only when the reader has made room) does not make the loop honest.
// A tagless switch with an init (switch dif := seq - pos; {) is walked
// like an if/else chain, and a clause or if whose condition can never be
// true (an unsigned dif < 0) is dead: go-datastructures' ring put, whose
// "full" case is such a dead dif < 0, spins in the default. A timeout
// that bounds the loop only under a guard the loop does not change (if
// timeout > 0 && time.Since(start) >= timeout { return }) does not make
// it a timed busy delay: with timeout <= 0 it spins unbounded.
// A compare-and-swap from a fixed state, tried blindly as the loop's
// condition or as its first statement (for !atomic.CompareAndSwapInt32(
// &q.state, committed, reading) { runtime.Gosched() }: old and new values
// constants, the old one not the zero value, and nothing else in the body
// but yields and counters), is a wait for another
// goroutine to put the word in that state, not a retry: on an idle queue
// every CAS fails and the loop spins. A busy wait on the clock alone (for
// time.Now().Before(deadline) {}, for !t.After(time.Now()) {}, or an if
// on the clock that breaks out, with nothing in the body but yields and
// counters) is reported with the fix of sleeping until the deadline.
// It also reports for {} and for true {}, with the fix select {}.
//
// It also reports, at the caller's loop, a consumer's retry around a
// non-blocking take:
//
//	for {
//		v := q.Dequeue() // returns nil at once when the queue is empty
//		if v == nil {
//			continue
//		}
//		work(v)
//	}
//
// The path that found an item works, so the loop as a whole is no flag
// spin; the path that found nothing goes round again at once and holds a
// core for as long as the queue stays empty. The call is one whose
// lint/blocking facts say it never blocks and polls shared state (a
// lock-free pop), or whose only wait is a mutex it takes and releases
// itself (a pop under the queue's lock, Fact.Locks); the facts of
// another package flow in as go vet's facts do. Its result is tested for
// nothing (v == nil, err != nil, !ok, ok == false, a false result of the
// call itself, a switch case on those; if v, ok := q.Pop(); ok { ... }
// with no else, or with an else that continues), and that path runs
// nothing but stop checks that leave (if stop.Load() { return }, a select
// with a default whose cases return), runtime.Gosched or a counter,
// before a continue of this loop or the end of the body. It is silent
// when that path sleeps (a short sleep is sleeppoll's SD102, a long one
// a real backoff), blocks (a channel receive, a select without default,
// cond.Wait, a blocking call), works, returns or breaks (a drain loop);
// when the call may block or is unknown (an interface method, a func
// value, another package read without its facts, as lint/inspect's
// lenient read does: a miss, never a guess), or only writes through a
// pointer without polling (the goroutine's own input); when the call's
// only result is a boolean and it runs a CAS (false is a lost race:
// contention, not a wait); and for counted loops and loops whose exits
// read a counter the loop steps (a bounded number of attempts).
//
// It stays silent when an atomic write or CAS runs on every iteration
// (retry until my CAS wins: each failure means another goroutine won; a
// CAS spinlock is such a loop), when every path that goes round again has
// just run a CAS, in the loop or in a never-blocking helper whose
// lint/blocking fact says it swaps (a lock-free tree's root swap or
// commit: each round follows a CAS that lost a race, every other path
// returns), when the only path that goes round without a CAS re-reads
// the word the CAS swaps after finding the position stale (Dmitry
// Vyukov's bounded queue: dif == 0 claims with a CAS, dif < 0 leaves as
// full or empty, dif > 0 re-reads the tail another goroutine moved on),
// or finds a snapshot inconsistent (a Michael–Scott queue's tail ==
// q.tail.Load() failing: another goroutine's CAS moved the tail between
// the two loads; var x = e reads like x := e), when a CAS from the zero
// value is a lock's acquire (for !CompareAndSwap(0, 1) {}), when a fixed
// state is CAS'd only after a fresh load showed it (a state transition),
// when an assignment advances (l = l.next),
// when a helper is called for its effect (work), or read for its value
// while it writes through a pointer without touching another goroutine's
// state (in.readRune() consumes the input: the loop advances), when the
// value an exit tests is computed from a counter the loop steps (p :=
// parent(tile, k); if _, ok := order[p]; ok { break } with k++), for any sleep (sleeppoll
// and timerloop report those), a channel operation or select
// (busyselect), or a call it does not know; for busy delays measured from
// a start read just before the loop (start := time.Now(); for
// time.Since(start) < d {}), which burn CPU on purpose, and for loops that
// read the clock while they do work or poll another goroutine's state (a
// deadline-bounded loop, a flag polled with a timeout); for loops on
// runtime.NumGoroutine (goroutinethrottle); for a counter that decides
// when the loop ends; and in _test.go files, where spinning goroutines are
// how scheduler behaviour is exercised.
package spinwait
