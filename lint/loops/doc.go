// Package loops gives every for and range loop of a package one verdict:
// what the loop does between iterations (spins on a select's default,
// polls with a short sleep, yields or re-reads a flag, makes a timer per
// iteration, blocks, computes, retries a compare-and-swap), where, and
// why. It is schedoctor's one judgement of the code: `schedoctor lint`
// reports rules SD101, SD102, SD104 and SD106 from the same analyzers
// whose decisions make these verdicts, and the runtime layers (profile,
// trace, check) read a hot line's loop verdict through lint/inspect,
// which asks this package and judges nothing itself.
//
// # Analyzer loops
//
// loops: give each loop of a package its verdict (spin, poll, timer, blocking, compute)
//
// The analyzer reports no diagnostic. Its result, a *Result, holds a
// Verdict for every loop of the package's files. A loop's verdict is
// decided, in this order:
//
//  1. By the rule analyzers. busyselect (SD101), spinwait (SD106),
//     sleeppoll (SD102) and timerloop (SD104) record every diagnostic
//     they report in their result (evidence.Result.Reports); the
//     diagnostic belongs to the innermost loop of its function that
//     encloses the reported node. A loop with SD101 is SelectDefault;
//     with SD106, YieldSpin when it calls runtime.Gosched and AtomicSpin
//     otherwise (a consumer's retry around a non-blocking take, SD106's
//     evidence "retried call at line", is placed at that call); with
//     SD102, SleepPoll; with SD104 on time.Sleep(0) or
//     <-time.After(0), YieldSpin, on any other timer TimerPerIter. When
//     several apply, the first of that list wins: a spin costs more than
//     a dropped timer.
//  2. Otherwise the loop is not a spin, and the verdict only says what
//     it is instead, for the message: Blocking when something on its
//     idle path surely parks the goroutine (a channel operation outside a
//     select with a default, a select without default, a range over a
//     channel, a sleep of 1ms or more, a call whose lint/blocking fact
//     says it blocks, such as sync.Mutex.Lock); SleepUnknown when its
//     only wait is a sleep of a length the source does not fix; RetryCAS
//     when it runs a compare-and-swap; Unknown when it calls code lint
//     cannot see into (an interface's method, a function of another
//     module without facts, a func value): not proven to block, wait or
//     work; Compute otherwise. A function of the standard library that
//     lint/blocking's table does not list as blocking (sha256.Sum256) is
//     the loop's work, and neither a getter such as
//     (*http.Request).Context nor the channel expression of a select's
//     case (r.Context().Done()) is a wait.
//
// The idle path is what runs when nothing the loop waits for happened:
// the bodies of a select's cases other than the default, and of branches
// that always leave the loop, are off it.
//
// # Who owns what
//
// The rules' knowledge stays where it was: which shapes are a spin is
// each rule analyzer's (lint/busyselect, lint/sleeppoll, lint/spinwait,
// lint/timerloop), what a function or a standard-library call does to the
// calling goroutine is lint/blocking's (its table and its per-function
// facts), the syntax questions they share (which loop encloses a node,
// whether code leaves it, constant durations) are lint/internal/astutil's.
// This package only maps their decisions onto loops and describes the
// loops they leave alone, with those same helpers; it holds no table of
// its own. lint/inspect finds the file and the loop around a recorded
// line and reads the verdict from here.
//
// Loops in _test.go files get a verdict, but the rule analyzers do not
// look at test files (tests spin on purpose), so none of them is a spin.
//
// A driver may run copies of the analyzers (lint/inspect wraps each one
// to turn a panic on odd input into an error): the rule analyzers'
// results are then found by name.
package loops
