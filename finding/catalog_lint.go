package finding

// Code rules (SD1xx), detected by `schedoctor lint` (package lint/...).
var lintRules = []Rule{
	{
		ID: "SD101", Name: "busy-select", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyLoop,
		Title: "loop around a select whose default neither blocks nor leaves the loop",
		Since: "2026-11-22",
		Explanation: "A select with a default case never parks the goroutine: when no other case is ready it runs the default " +
			"and returns at once, and selectgo has no backoff. Inside a loop that default is taken again and again, so the " +
			"goroutine holds its P at 100% of a core until async preemption (about every 10ms) takes it away. With no other " +
			"case the compiler turns the select into a plain jump; with cases it is selectgo, sellock and runtime locks.",
		Detection: "A select with a default inside a for loop that is not counted, where nothing on the path that takes the " +
			"default can block or leave the loop: an empty default, a counter, runtime.Gosched, an atomic, a try on a " +
			"channel, a sleep below the poll threshold, or calls that never block by their facts.",
		Details: "The analyzer reports the select when it sits in a for loop (directly or under if and switch; in " +
			"functions, methods and goroutine closures), the loop is not a counted one (for i := 0; i < n; i++), and " +
			"on the path that takes the default nothing can block: the default is empty, continues, breaks only the " +
			"select, changes variables, calls runtime.Gosched or an atomic operation, only tries a channel operation " +
			"(a nested select with a default), sleeps less than the poll threshold (a constant), or calls functions " +
			"that never block by their facts (lint/blocking: `default: metrics.inc()`, a helper that does nothing); " +
			"the loop's condition and its other statements are of the same kind. It stays silent when the default or " +
			"the statements after the select leave the loop (return, a labelled break, goto, panic, os.Exit), when " +
			"the default changes a variable the loop's condition reads (for done := false; !done; { ... default: done " +
			"= true }), for the bounded \"replace the pending value\" loop (a case sends and returns, the default " +
			"drains that same channel and retries), for a loop that pops one item per round and leaves when none is " +
			"left (w := ws.get(); if w == nil { break }, where get never blocks and writes through a pointer by its " +
			"lint/blocking fact: a walk over a finite list; a helper that only reads, or a loop that leaves when the " +
			"pop succeeds, stays reported), for the batch drain that runs only while a channel holds values and " +
			"receives from it (for len(ch) > 0 && n < max { select { case r := <-ch: ...; default: } }: bounded by " +
			"what is queued), when anything on that path may block (a channel operation, a sleep at or above the poll " +
			"threshold, or of a computed duration, a call that may block or has no fact: an interface method, a func " +
			"value), and for range loops, which end or block on their own." +
			"\n\nThe never-blocks facts are computed bottom-up for the package and exported across packages, with a curated table for the standard library (strconv, strings, fmt.Sprintf, sync/atomic, ...); log.Fatal leaves the loop like os.Exit.",
		Fix: "Remove the default so the select blocks until a case is ready; if the loop must also do periodic work, add a " +
			"case on a time.Ticker made once outside the loop, or a context's Done channel to stop.",
		Wrong: `for {
	select {
	case j := <-jobs:
		handle(j)
	default:
		// nothing to do yet
	}
}`,
		Right: `for {
	select {
	case j := <-jobs:
		handle(j)
	case <-ctx.Done():
		return
	}
}`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: one such loop uses a whole core and is preempted about 50 times a second.",
	},
	{
		ID: "SD102", Name: "sleep-poll", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyLoop,
		Title: "loop that polls with a time.Sleep shorter than 1ms",
		Since: "2026-11-22",
		Explanation: "Each time.Sleep parks the goroutine on a timer, and each expiry wakes a thread (wakep → startm → futex) " +
			"to run it again. A tiny sleep therefore buys two context switches per iteration, not precision: time.Sleep(1µs) " +
			"really sleeps about 0.4ms. CPU profiles of such programs show runtime.futex at half the samples although the " +
			"process uses little CPU in total.",
		Detection: "A time.Sleep shorter than the poll threshold (a constant, or a variable only ever given constants) in a " +
			"for loop that waits for something, where nothing else on the idle path blocks; a mutex taken and " +
			"released on that path is a critical section, not the wait.",
		Details: "The analyzer reports a call of time.Sleep whose duration is greater than 0 and shorter than the poll " +
			"threshold: a constant (a literal, a named constant or a constant expression such as time.Millisecond / " +
			"10), or an unexported variable or field only ever given constants in the package (d := 100 * " +
			"time.Microsecond, a package-level var, a field set in a constructor's literal; the largest value is " +
			"reported), in a for loop that waits for something: the loop has a condition, an if in its body leaves " +
			"it, or the sleep runs only on some iterations. When the sleep is in an if that ends with continue (the " +
			"worker that pops a queue and sleeps when it is empty), the idle path is the body up to that if: the work " +
			"after it does not count; likewise when the sleep follows an if whose branch does the work and continues " +
			"(if j, ok := q.pop(); ok { run(j); continue }). A critical section on the idle path is part of the poll, " +
			"not a wait: a sync.Mutex or RWMutex taken and released on it (the most common polling pool: lock, check " +
			"the queue, unlock, sleep 50µs when it is empty), or a call of a function that parks only on a mutex it " +
			"releases itself (a queue's pop under its lock, by lint/blocking's facts); the goroutine waits there only " +
			"while another one holds the lock, never until work arrives. A lock the path takes without releasing it " +
			"(kept across iterations, or released by another goroutine as a signal) is a wait, and the loop is left " +
			"alone. It stays silent for counted loops (for i := 0; i < n; i++) and range loops, which pace work " +
			"rather than poll; for endless loops that sleep on every iteration; for sleeps with a computed duration " +
			"(backoff); when anything else on the idle path may block (a channel operation, a sync.Cond wait, a call " +
			"that may block or has no fact from lint/blocking, such as a call made while holding the lock), since the " +
			"sleep is then not what the loop waits on; for sleeps in a select's default, which busyselect (SD101) " +
			"reports; and for time.Sleep(0), which timerloop (SD104) reports." +
			"\n\nCalls of time.Sleep are found by type identity, whatever the import name. Variables that are parameters, reassigned from computed values, changed with an operator (backoff) or whose address is taken are not constants; neither are exported variables and fields.",
		Fix: "Wait for the event instead of polling for it: a channel, sync.Cond, a WaitGroup, or a context. If polling is " +
			"unavoidable (an external resource), poll at 1ms or more, with backoff.",
		Wrong: `for !ready.Load() {
	time.Sleep(5 * time.Microsecond)
}`,
		Right: `<-readyCh // closed by the goroutine that sets ready`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: a 5µs sleep loop shows runtime.futex at 65% of CPU samples, " +
			"the wakep → startm → notewakeup chain at 56%, while the process uses 0.08 CPU.",
	},
	{
		ID: "SD103", Name: "goroutine-count-throttle", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyThrottle,
		Title: "runtime.NumGoroutine used to limit or wait for goroutines",
		Since: "2026-11-22",
		Explanation: "runtime.NumGoroutine counts every goroutine in the process, including the runtime's and every library's, " +
			"so a limit on it is wrong as soon as anything else starts one; and waiting for it to drop means polling, usually " +
			"with a sleep. It walks allglen under no lock and returns a racy count.",
		Detection: "A call of runtime.NumGoroutine whose value, directly or through variables and fields computed from it, " +
			"is a loop's condition or decides a branch that starts a goroutine, sleeps, or continues or breaks a loop " +
			"that does; not in _test.go files.",
		Details: "The analyzer reports a call of runtime.NumGoroutine whose value — directly, or through local variables " +
			"assigned from it or from values computed from it (n := runtime.NumGoroutine(); busy := n > limit), or " +
			"through an unexported struct field every assignment of which holds it (p.active = " +
			"runtime.NumGoroutine(), read in another method) — is the condition of a for loop, or decides an if or " +
			"switch one of whose branches starts a goroutine (go statement), sleeps, or continues or breaks a loop " +
			"that starts goroutines or sleeps. In a tagless switch (reject / wait / spawn) a case's condition decides " +
			"the clauses after it and the default too. It stays silent when the count is only logged, exported as a " +
			"metric, returned or compared in a branch that does none of these (a health check that rejects), and in " +
			"_test.go files, where counting goroutines to find leaks is the idiom.",
		Fix: "Bound concurrency with a semaphore (a buffered channel, golang.org/x/sync/semaphore, or errgroup.SetLimit) and " +
			"wait with a sync.WaitGroup.",
		Wrong: `for _, j := range jobs {
	for runtime.NumGoroutine() > 100 {
		time.Sleep(time.Millisecond)
	}
	go work(j)
}`,
		Right: `sem := make(chan struct{}, 100)
var wg sync.WaitGroup
for _, j := range jobs {
	sem <- struct{}{}
	wg.Go(func() { defer func() { <-sem }(); work(j) })
}
wg.Wait()`,
	},
	{
		ID: "SD104", Name: "timer-per-iteration", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyTimer,
		Title: "timer made anew on every loop iteration, or a zero timer used as a yield",
		Since: "2026-11-22",
		Explanation: "time.After, time.NewTimer and time.Tick inside a loop allocate a timer each iteration (3 allocations, " +
			"248 B, about 150 ns more than resetting one timer, measured with go1.26 on amd64), only for most of them to be " +
			"dropped. Under a module go line below 1.23 every dropped timer also stays on the timer heap until it fires, and " +
			"every ticker of time.Tick runs forever: memory and timer work that grow with the loop's rate times the duration. " +
			"From go 1.23 a timer's channel is synchronous: the timer is on a heap only while a goroutine is blocked on it, " +
			"and an unreferenced timer or ticker is collected, so the waste is the allocation. time.After(0) and " +
			"time.Sleep(0) are not yields: since Go 1.23 an expired timer's send happens inline in selectgo, so the " +
			"goroutine never parks (measured: 106% CPU and 750 MB/s of garbage), and Sleep(0) returns at once.",
		Detection: "In an unbounded loop: time.After or time.NewTimer made per iteration and dropped when another select " +
			"case wins, a timer re-armed while the last may be pending, or time.Tick; anywhere, time.Sleep(0) or " +
			"<-time.After(0) used as a yield. Info from go 1.23, where a dropped timer is collected; a warning below.",
		Details: "The analyzer reports, inside an unbounded loop of the same function (for {}, for cond {} that is not a " +
			"counted loop, a range over a channel or a function; not in a function literal started there):\n\n- a " +
			"timer's channel received in a select case when another case of that select can let the loop go on (so " +
			"the timer is dropped): written inline (case <-time.After(d), case <-time.NewTimer(d).C), made by a " +
			"function of the package that returns time.After(...) or time.NewTimer(...).C (case <-randomTimeout(d)), " +
			"or kept in a variable by a statement of the loop's body (timeout := time.After(d), t := time.NewTimer(d) " +
			"then case <-t.C, in a select of the loop itself: one in an inner loop goes round that loop, which keeps " +
			"the timer until it fires, as a batch window does), or by a branch of the loop, a case's body or an if, " +
			"where it replaces a timer that may still be pending (idle = time.After(d) on every message, received as " +
			"case <-idle on a later pass), unless the branch is the case that received the old timer (it fired), sits " +
			"under an if that reads the variable (if idle == nil { ... } arms one at a time), or the loop stops the " +
			"old timer;\n\nand, in any loop, every time.Tick, which starts a ticker that is never stopped; and " +
			"anywhere, time.Sleep(d) and <-time.After(d) with a constant d of 0 or less, used as a yield (in a loop, " +
			"or in a helper a loop calls).\n\nA duration is the same every iteration when it reads no variable set in " +
			"the loop and calls only conversions, or a getter read for one field (r.config().CommitTimeout); a call " +
			"that returns the duration itself is a backoff or a jitter, and is skipped. A helper may also return nil " +
			"(a nil channel never fires) on some paths.\n\nA case \"lets the loop go on\" when it continues it, or " +
			"neither leaves the loop (return, break, a call that never returns, an if/else or switch whose every " +
			"branch does) nor is followed by statements that do. A case <-ctx.Done() does not, when the loop ends " +
			"once ctx is done: its condition requires ctx.Err() == nil (for ctx.Err() == nil { ...; select { case " +
			"<-ctx.Done(): case <-time.After(d): } }), or its body starts with if ctx.Err() != nil { return }; the " +
			"timer is then dropped once, when the loop ends. So it stays silent for a timer made once before the loop " +
			"and Reset in it, for a select whose other cases all leave (a wait with a timeout, the sleep-or-cancel " +
			"idiom of a retry loop), for a select followed by a return (one timer per call), for time.After in a " +
			"select outside any loop, for a duration computed per iteration (backoff, jitter), for a time.After(0) " +
			"assigned to a variable (heartbeat = time.After(0) makes a blocking select's next round fire at once, on " +
			"purpose), and for a zero sleep in a select's default inside a for loop, which busyselect (SD101) reports " +
			"as a spinning select; in a range or counted loop, where SD101 is silent, this analyzer reports " +
			"it.\n\nLoops bounded by a count or a collection (for i := 0; i < n; i++; for received := 0; received < " +
			"sent; { ... received++ }, a wait for a known number of replies; a range over a config's entries at " +
			"reload) make at most that many timers per call, and how often the function runs is not known here: " +
			"timers made per iteration of them are not reported unless an unbounded loop of the same function " +
			"encloses them (per message, then per subscriber).\n\nSeverity follows the cost, which the module's go line " +
			"decides: from go 1.23 a timer's channel is synchronous (the timer is on a heap only while a goroutine is " +
			"blocked on it) and an unreferenced timer or ticker is collected, so a timer or ticker dropped per " +
			"iteration costs its allocation and is reported as info, with Diagnostic.Category \"SD104/info\" (the " +
			"drivers read the severity from there). Below go 1.23, or when the go line is unknown, it is a warning. " +
			"The go line is the package's module's: the main module that builds it has at least that line (the go " +
			"command requires it since Go 1.21), so the runtime's default GODEBUG asynctimerchan=0 holds. The " +
			"zero-duration yields burn a core under any go line and stay warnings.\n\nFor time.Sleep(0) it suggests " +
			"runtime.Gosched() when the file already imports runtime and still uses time elsewhere, so the edit " +
			"compiles; it offers no fix for time.After(0), whose select must be rewritten by hand.",
		Fix: "time.After or time.NewTimer in a loop: make one time.Timer before the loop and Reset it each iteration (since Go " +
			"1.23 Reset needs no drain), or use context.WithTimeout for an overall deadline. time.Tick in a loop: make one " +
			"time.Ticker before the loop and defer its Stop. To yield, block on what you wait for; runtime.Gosched only if " +
			"you must.",
		Wrong: `for {
	select {
	case m := <-in:
		handle(m)
	case <-time.After(time.Second):
		flush()
	}
}`,
		Right: `t := time.NewTimer(time.Second)
defer t.Stop()
for {
	select {
	case m := <-in:
		handle(m)
	case <-t.C:
		flush()
	}
	t.Reset(time.Second)
}`,
	},
	{
		ID: "SD105", Name: "ticker-leak", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyTimer,
		Title: "ticker never stopped in a module whose go line is before 1.23",
		Since: "2026-11-22",
		Explanation: "Before Go 1.23 the runtime keeps every started ticker on a timer heap until Stop is called, so a ticker " +
			"(or time.Tick) that is dropped without Stop is never collected and keeps firing. From 1.23 unreferenced timers " +
			"and tickers are collected, but only when the main module's go line is at least 1.23 (GODEBUG asynctimerchan).",
		Detection: "Only under a module go line before 1.23: a ticker never stopped in a function that can return (a local, " +
			"or an unexported field of a type with Close or Stop), time.Tick outside main and init, and a timeout " +
			"timer left running on a return path.",
		Details: "The analyzer runs only when the package's module declares a go version before 1.23; it is silent at 1.23 " +
			"and later and when the module is not known (GOPATH mode). It reports:\n\n- time.NewTicker assigned to a " +
			"local variable that is only read for its C field or Reset, never stopped, returned, passed on or stored, " +
			"in a function that can return; or whose C field alone is kept (time.NewTicker(d).C);\n\n- time.NewTicker " +
			"stored in an unexported struct field (s.t = ..., or &T{t: ...}) of a type with a Close, Stop or Shutdown " +
			"method, when no code of the package stops that field's ticker and the field is only read for C or Reset " +
			"(the object ends; its ticker does not);\n\n- time.Tick in a function that can return, except main and " +
			"init, and in package main a function or method that runs a bounded number of times: each of its calls is " +
			"made outside any loop, go, defer or closure in main's body or in another such function, and for an " +
			"unexported method so is each call through the package's interfaces (a command table: main calls " +
			"cmd.run(args) once); its tickers are a fixed few for the process's life, as main's own (a function used " +
			"as a value, such as a handler, and an exported method stay reported);\n\n- t := " +
			"time.NewTimer(d) used as a timeout (t.C is one case of a select), not stopped by a defer, when a return " +
			"(or the end of the function) is reached neither through the t.C case nor after a t.Stop(): the success " +
			"path, or a watchdog Reset on each kick and left running at the end. Before 1.23 such a timer stays on " +
			"the heap until it fires; a timer of a constant duration under the threshold is not reported, since it " +
			"leaves the heap soon anyway.\n\nA function that ends in a loop it never leaves — for {}, or a range over a " +
			"ticker's own channel (time.Tick, t.C of a Ticker), the only channel sure never to be closed — holds its " +
			"ticker for the life of the program. A range over any other channel (for j := range jobs) ends when the " +
			"channel is closed, and a time.Tick made before it then leaks (staticcheck's SA1015). _test.go files are " +
			"not checked.",
		Fix: "Add defer t.Stop() after creating a ticker or a timeout timer, stop a ticker kept in a field in the type's " +
			"Close, or move the module to go 1.23 or later (go mod edit -go=1.23).",
		Wrong: `func poll(ctx context.Context) {
	t := time.NewTicker(time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			check()
		}
	}
}`,
		Right: `func poll(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			check()
		}
	}
}`,
	},
	{
		ID: "SD106", Name: "spin-wait", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyLoop,
		Title: "loop spinning on an atomic, a flag or runtime.Gosched with no blocking and no backoff",
		Since: "2026-11-22",
		Explanation: "A goroutine that loops until another one changes a value holds its P the whole time. runtime.Gosched " +
			"only moves it to the global run queue; with an idle P it runs again at once, so it still burns a full core, " +
			"and it starves the goroutine it waits for when Ps are few. How long it waits the code does not show: a wait " +
			"for another goroutine's operation of a few instructions (a ring slot freed between its owner's CAS and its " +
			"store) costs nothing until that goroutine is descheduled mid-operation, a wait for an idle consumer costs a " +
			"core; the finding says so and leaves the cost to the runtime layers, which measure it.",
		Detection: "A for loop that only reads while it waits on something another goroutine changes (an atomic, a shared " +
			"variable, len of a channel, a never-blocking helper), or calls runtime.Gosched; a blind CAS from a fixed " +
			"state; a busy wait on the clock; for {}; and a consumer's retry around a non-blocking take.",
		Details: "The analyzer reports a for loop (not a range loop, not a counted loop) that waits, through its condition " +
			"or an if that leaves it, on something another goroutine can change (an atomic Load, of sync/atomic or of " +
			"a package whose path ends in /atomic such as go.uber.org/atomic, not the runtime's own; a package-level " +
			"variable or a field reached through a pointer; len of a channel; ctx.Err; Mutex.TryLock; a helper that " +
			"never blocks and polls shared state, by its lint/blocking facts), or that calls runtime.Gosched, and " +
			"whose every statement only reads: comparisons, atomic loads, re-reading a value into a variable (gate = " +
			"upstream.Load()), runtime.Gosched, a counter increment, break, continue, return. An atomic write or CAS " +
			"behind a condition (claim the slot only when the reader has made room) does not make the loop honest. A " +
			"tagless switch with an init (switch dif := seq - pos; {) is walked like an if/else chain, and a clause " +
			"or if whose condition can never be true (an unsigned dif < 0) is dead: go-datastructures' ring put, " +
			"whose \"full\" case is such a dead dif < 0, spins in the default. A timeout that bounds the loop only " +
			"under a guard the loop does not change (if timeout > 0 && time.Since(start) >= timeout { return }) does " +
			"not make it a timed busy delay: with timeout <= 0 it spins unbounded. A compare-and-swap from a fixed " +
			"state, tried blindly as the loop's condition or as its first statement (for !atomic.CompareAndSwapInt32( " +
			"&q.state, committed, reading) { runtime.Gosched() }: old and new values constants, the old one not the " +
			"zero value, and nothing else in the body but yields and counters), is a wait for another goroutine to " +
			"put the word in that state, not a retry: on an idle queue every CAS fails and the loop spins. A busy " +
			"wait on the clock alone (for time.Now().Before(deadline) {}, for !t.After(time.Now()) {}, or an if on " +
			"the clock that breaks out, with nothing in the body but yields and counters) is reported with the fix of " +
			"sleeping until the deadline. It also reports for {} and for true {}, with the fix select {}.\n\nIt also " +
			"reports, at the caller's loop, a consumer's retry around a non-blocking take:\n\n```go\nfor {\n\tv := " +
			"q.Dequeue() // returns nil at once when the queue is empty\n\tif v == nil " +
			"{\n\t\tcontinue\n\t}\n\twork(v)\n}\n```\n\nThe path that found an item works, so the loop as a whole is no flag " +
			"spin; the path that found nothing goes round again at once and holds a core for as long as the queue " +
			"stays empty. The call is one whose lint/blocking facts say it never blocks and polls shared state (a " +
			"lock-free pop), or whose only wait is a mutex it takes and releases itself (a pop under the queue's " +
			"lock, Fact.Locks); the facts of another package flow in as go vet's facts do. Its result is tested for " +
			"nothing (v == nil, err != nil, !ok, ok == false, a false result of the call itself, a switch case on " +
			"those; if v, ok := q.Pop(); ok { ... } with no else, or with an else that continues), and that path runs " +
			"nothing but stop checks that leave (if stop.Load() { return }, a select with a default whose cases " +
			"return), runtime.Gosched or a counter, before a continue of this loop or the end of the body. It is " +
			"silent when that path sleeps (a short sleep is sleeppoll's SD102, a long one a real backoff), blocks (a " +
			"channel receive, a select without default, cond.Wait, a blocking call), works, returns or breaks (a " +
			"drain loop); when the call may block or is unknown (an interface method, a func value, another package " +
			"read without its facts, as lint/inspect's lenient read does: a miss, never a guess), or only writes " +
			"through a pointer without polling (the goroutine's own input); when the call's only result is a boolean " +
			"and it runs a CAS (false is a lost race: contention, not a wait); and for counted loops and loops whose " +
			"exits read a counter the loop steps (a bounded number of attempts).\n\nIt stays silent when an atomic " +
			"write or CAS runs on every iteration (retry until my CAS wins: each failure means another goroutine won; " +
			"a CAS spinlock is such a loop), when every path that goes round again has just run a CAS, in the loop or " +
			"in a never-blocking helper whose lint/blocking fact says it swaps (a lock-free tree's root swap or " +
			"commit: each round follows a CAS that lost a race, every other path returns), when the only path that " +
			"goes round without a CAS re-reads the word the CAS swaps after finding the position stale (Dmitry " +
			"Vyukov's bounded queue: dif == 0 claims with a CAS, dif < 0 leaves as full or empty, dif > 0 re-reads " +
			"the tail another goroutine moved on), or finds a snapshot inconsistent (a Michael–Scott queue's tail == " +
			"q.tail.Load() failing: another goroutine's CAS moved the tail between the two loads; var x = e reads " +
			"like x := e), when a CAS from the zero value is a lock's acquire (for !CompareAndSwap(0, 1) {}), when a " +
			"fixed state is CAS'd only after a fresh load showed it (a state transition), when an assignment advances " +
			"(l = l.next), when a helper is called for its effect (work), or read for its value while it writes " +
			"through a pointer without touching another goroutine's state (in.readRune() consumes the input: the loop " +
			"advances), when the value an exit tests is computed from a counter the loop steps (p := parent(tile, k); " +
			"if _, ok := order[p]; ok { break } with k++), for any sleep (sleeppoll and timerloop report those), a " +
			"channel operation or select (busyselect), or a call it does not know; for busy delays measured from a " +
			"start read just before the loop (start := time.Now(); for time.Since(start) < d {}), which burn CPU on " +
			"purpose, and for loops that read the clock while they do work or poll another goroutine's state (a " +
			"deadline-bounded loop, a flag polled with a timeout); for loops on runtime.NumGoroutine " +
			"(goroutinethrottle); for a counter that decides when the loop ends; and in _test.go files, where " +
			"spinning goroutines are how scheduler behaviour is exercised.",
		Fix: "Block on what you wait for: a channel that the other goroutine closes, a sync.Cond, a WaitGroup. Spinning is " +
			"only worth it for nanoseconds, inside a lock implementation.",
		Wrong: `for !done.Load() {
	runtime.Gosched()
}`,
		Right:  `<-doneCh`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: a runtime.Gosched loop uses a full core.",
	},
}
