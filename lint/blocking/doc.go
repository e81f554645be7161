// Package blocking defines an Analyzer that computes, for every function
// and method of a package, whether a call of it can park the goroutine,
// and exports the answer as an analysis fact so that the analyzers of
// packages that import it see it too.
//
// # Analyzer blocking
//
// blocking: compute per-function facts: never blocks, may block, blocks
//
// A function never blocks when nothing it runs can park the calling
// goroutine: no channel operation outside a select with a default, no
// select without a default, no range over a channel, no lock, wait or
// sleep, no system call, and only calls of functions that never block
// themselves. Calls of the standard library are answered from a curated
// table (strings, strconv, sort, math, sync/atomic, fmt.Sprintf, ... never
// block; time.Sleep, Mutex.Lock, WaitGroup.Wait, ... block); calls of other
// packages from their exported facts; anything else (an interface method,
// a func value, a function without a body, an external function without a
// fact) may block. Facts are computed bottom-up within the package, to a
// fixed point, so recursion is handled: a cycle of functions that block
// nowhere never blocks.
//
// A function blocks when one of its top-level statements always parks:
// a bare channel operation, a select without default, a call of a function
// that blocks. A function that never blocks also records whether it polls
// state another goroutine changes (a non-blocking channel operation, an
// atomic operation, a TryLock, len of a channel; not a select whose
// default only panics, which asserts a hand-off to a goroutine known to
// be ready rather than looking for work), which is what a spin
// loop's condition calls, whether it (or a callee) runs an atomic
// compare-and-swap (swaps: spinwait's retry-until-my-CAS-wins loops through
// a helper), and whether it writes through a pointer (mutates: a queue's
// pop, which consumes what it returns). A function whose only possible
// wait is a sync.Mutex or RWMutex that it takes and releases itself (Lock
// with Unlock of the same mutex, in its body or a defer) is marked as
// locking: its goroutine waits only while another holds the lock, so a
// poll around it still polls (sleeppoll).
//
// The analyzer reports nothing; busyselect (SD101), sleeppoll (SD102) and
// spinwait (SD106) require it, and the drivers run it for them.
package blocking
