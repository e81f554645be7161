// Package busyselect defines an Analyzer that reports loops spinning on a
// select whose default neither blocks nor leaves the loop (rule SD101).
//
// # Analyzer busyselect
//
// busyselect: report a select with a non-blocking default inside a loop
//
// A select with a default case never parks the goroutine: when no other
// case is ready it runs the default and returns at once. Inside a loop the
// goroutine holds its P at 100% of a core until async preemption (about
// every 10ms) takes it away.
//
//	// WRONG
//	for {
//		select {
//		case j := <-jobs:
//			handle(j)
//		default: // runs again at once: the loop spins
//			idle++
//		}
//	}
//
//	// RIGHT
//	for {
//		select {
//		case j := <-jobs:
//			handle(j)
//		case <-ctx.Done():
//			return
//		}
//	}
//
// The analyzer reports the select when it sits in a for loop (directly or
// under if and switch; in functions, methods and goroutine closures), the
// loop is not a counted one (for i := 0; i < n; i++), and on the path that
// takes the default nothing can block: the default is empty, continues,
// breaks only the select, changes variables, calls runtime.Gosched or an
// atomic operation, only tries a channel operation (a nested select with
// a default), sleeps less than 1ms, or calls functions that never block
// by their facts (lint/blocking: `default: metrics.inc()`, a helper that
// does nothing); the loop's condition and its other statements are of the
// same kind. It stays silent when the default or the statements after the
// select leave the loop (return, a labelled break, goto, panic, os.Exit),
// when the default changes a variable the loop's condition reads (for
// done := false; !done; { ... default: done = true }), for the bounded
// "replace the pending value" loop (a case sends and returns, the default
// drains that same channel and retries), for a loop that pops one item
// per round and leaves when none is left (w := ws.get(); if w == nil {
// break }, where get never blocks and writes through a pointer by its
// lint/blocking fact: a walk over a finite list; a helper that only reads,
// or a loop that leaves when the pop succeeds, stays reported), for the
// batch drain that runs only while a channel holds values and receives
// from it (for len(ch) > 0 && n < max { select { case r := <-ch: ...;
// default: } }: bounded by what is queued), when anything on that path may
// block (a channel operation, a sleep of 1ms or more, a call that may
// block or has no fact: an interface method, a func value), and for range
// loops, which end or block on their own.
package busyselect
