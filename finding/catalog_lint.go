package finding

// Code rules (SD1xx), detected by `schedoctor lint` (package lint/...).
var lintRules = []Rule{
	{
		ID: "SD101", Name: "busy-select", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented, Family: FamilyLoop,
		Title: "loop around a select whose default neither blocks nor leaves the loop",
		Explanation: "A select with a default case never parks the goroutine: when no other case is ready it runs the default " +
			"and returns at once, and selectgo has no backoff. Inside a loop that default is taken again and again, so the " +
			"goroutine holds its P at 100% of a core until async preemption (about every 10ms) takes it away. With no other " +
			"case the compiler turns the select into a plain jump; with cases it is selectgo, sellock and runtime locks.",
		Detection: "A select with a default clause inside a for loop (for {}, for cond {}, for i := 0; ; i++ {}, labelled, in a " +
			"method or a goroutine closure; directly or under if/switch) that is not a counted loop (for i := 0; i < n; i++), " +
			"where nothing on the path that takes the default can block: the default is empty, continues, breaks only the " +
			"select, changes variables or counters, calls runtime.Gosched or an atomic operation, only tries a channel " +
			"operation (a nested select with default), sleeps less than 1ms (a constant), or calls functions that never block " +
			"by their per-function facts (computed bottom-up for the package, exported across packages, a curated table for " +
			"the standard library: strconv, strings, fmt.Sprintf, sync/atomic, ...), and the loop's condition and other " +
			"statements are of the same kind. Silent when the default or a statement after the select leaves the loop " +
			"(return, labelled break, goto, panic, os.Exit, log.Fatal), when the default changes a variable the loop's " +
			"condition reads (for done := false; !done; { ... default: done = true }), for the bounded \"replace the pending " +
			"value\" loop (a case sends and leaves, the default drains that same channel), when anything on that path may " +
			"block or is a call without a never-blocks fact (a channel operation, time.Sleep of 1ms or more or of a computed " +
			"duration, Lock, Wait, I/O, an interface method, a func value), for range loops, and for a select with default " +
			"outside any loop (try-send).",
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
		Explanation: "Each time.Sleep parks the goroutine on a timer, and each expiry wakes a thread (wakep → startm → futex) " +
			"to run it again. A tiny sleep therefore buys two context switches per iteration, not precision: time.Sleep(1µs) " +
			"really sleeps about 0.4ms. CPU profiles of such programs show runtime.futex at half the samples although the " +
			"process uses little CPU in total.",
		Detection: "A call of time.Sleep (by type identity, whatever the import name) whose duration is above 0 and below " +
			"1ms: a constant (literal, named constant or constant expression), or an unexported variable or struct field that " +
			"is only ever given constants in the package (d := 100 * time.Microsecond never reassigned, a package-level var, " +
			"a field set by a constructor's literal; the largest value is reported), in a for loop that waits: it has a " +
			"condition, an if in its body leaves it, or the sleep runs only on some iterations (inside an if or a case). When " +
			"the sleep is in an if that ends with continue (the worker that sleeps when its queue is empty), only the " +
			"statements up to that if are the idle path. The mutex-guarded queue poll (lock, check the queue, unlock, sleep) " +
			"is reported: a sync.Mutex or RWMutex taken and released on the idle path, or a call of a function whose only " +
			"wait is a mutex it releases itself (a queue's pop under its lock), is a critical section, not the wait. Silent " +
			"for counted and range loops (pacing, not polling), for loops " +
			"that never end and sleep on every iteration, when anything else on the idle path may block or is a call without " +
			"a never-blocks fact (a channel operation, a sync.Cond wait, a func value, a lock kept or released by another " +
			"goroutine), when the loop's condition blocks, for variables that are parameters, reassigned " +
			"from computed values, changed with an operator (backoff) or whose address is taken, for exported variables and " +
			"fields, for sleeps in a select's default (SD101) and for Sleep(0) (SD104).",
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
		Explanation: "runtime.NumGoroutine counts every goroutine in the process, including the runtime's and every library's, " +
			"so a limit on it is wrong as soon as anything else starts one; and waiting for it to drop means polling, usually " +
			"with a sleep. It walks allglen under no lock and returns a racy count.",
		Detection: "A call of runtime.NumGoroutine whose value (directly, through local variables assigned from it or from " +
			"values computed from it such as busy := n > limit, or through an unexported struct field every assignment of which " +
			"holds it) is a for loop's condition, or decides an if or switch one of whose branches starts a goroutine, calls " +
			"time.Sleep, or continues or breaks a loop that starts goroutines or sleeps; in a tagless switch (reject / wait / " +
			"spawn) a case decides the clauses after it and the default. Silent when the count is only logged, exported, " +
			"returned, or compared in a branch that does none of these (a health check that rejects), and in _test.go files " +
			"(leak checks count goroutines on purpose).",
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
		Explanation: "time.After, time.NewTimer and time.Tick inside a loop allocate a timer each iteration (3 allocations, " +
			"248 B, about 150 ns more than resetting one timer, measured with go1.26 on amd64), only for most of them to be " +
			"dropped. Under a module go line below 1.23 every dropped timer also stays on the timer heap until it fires, and " +
			"every ticker of time.Tick runs forever: memory and timer work that grow with the loop's rate times the duration. " +
			"From go 1.23 a timer's channel is synchronous: the timer is on a heap only while a goroutine is blocked on it, " +
			"and an unreferenced timer or ticker is collected, so the waste is the allocation. time.After(0) and " +
			"time.Sleep(0) are not yields: since Go 1.23 an expired timer's send happens inline in selectgo, so the " +
			"goroutine never parks (measured: 106% CPU and 750 MB/s of garbage), and Sleep(0) returns at once.",
		Detection: "In an unbounded loop of the same function (for {}, a for cond {} that is not counted, a range over a " +
			"channel or a function; not in a function literal started there): a timer's channel received in a select case " +
			"when another case can let the loop go on (it continues, or neither leaves nor is followed by statements that " +
			"leave) — written inline (time.After(d), time.NewTimer(d).C), made by a function of the package that returns " +
			"one (case <-randomTimeout(d)), or kept in a variable by a statement of the loop's body (timeout := time.After(d), " +
			"t := time.NewTimer(d) then t.C, in a select of that loop, not of an inner loop that keeps it until it fires), " +
			"or re-armed in a branch (a case's body, an if) while the previous timer may be pending (idle = time.After(d) " +
			"on every message, received as case <-idle later; not when the branch is the case that received it, when an " +
			"if around it reads the variable, or when the old timer is stopped). In any loop, time.Tick. Anywhere, time.Sleep or <-time.After with a constant " +
			"duration of 0 or less (a yield, in a loop or in a helper a loop calls). Silent for a timer made before the " +
			"loop and Reset in it; for selects whose other cases all leave (through if/else and switch too) or that a return " +
			"follows; for a case <-ctx.Done() of a loop that ends once ctx is done (for ctx.Err() == nil {...}, or a first " +
			"if ctx.Err() != nil { return }); for a duration computed per iteration (a call returning it: backoff, jitter; a config getter's field " +
			"counts as fixed); for loops bounded by a count or a collection (i < n with i++ in the post or the body, a range " +
			"over a config's entries: at most that many timers per call) unless an unbounded loop encloses them; for heartbeat = " +
			"time.After(0) assigned to a variable (a blocking select's next round fires at once, on purpose); and for a zero " +
			"sleep in a select's default inside a for loop, which SD101 reports (in a range or counted loop SD104 reports it). " +
			"For time.Sleep(0) a fix to runtime.Gosched() is offered when the file already imports runtime and still uses " +
			"time elsewhere. Severity: a timer or ticker dropped per iteration is info when the package's module go line is " +
			"1.23 or later (the go command makes the main module's line at least as high, so the runtime collects it: an " +
			"allocation per iteration) and a warning below 1.23 or when the go line is unknown (it stays on the timer heap " +
			"until it fires, a ticker forever); the message names the go line and the cost. Zero-duration yields are " +
			"warnings under any go line.",
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
		Explanation: "Before Go 1.23 the runtime keeps every started ticker on a timer heap until Stop is called, so a ticker " +
			"(or time.Tick) that is dropped without Stop is never collected and keeps firing. From 1.23 unreferenced timers " +
			"and tickers are collected, but only when the main module's go line is at least 1.23 (GODEBUG asynctimerchan).",
		Detection: "Only where the package's module declares a go line before 1.23 (silent at 1.23+ and when the module " +
			"is unknown), outside _test.go files: time.NewTicker assigned to a local variable only ever read for C or Reset " +
			"(never stopped, returned, passed, stored or compared) in a function that can return, or whose C alone is kept; " +
			"time.NewTicker stored in an unexported field of a type with a Close, Stop or Shutdown method when no code of " +
			"the package stops it and the field is only read for C or Reset; time.Tick in a function that can return, other " +
			"than main and init; and t := time.NewTimer(d) used as a select's timeout case, not stopped by a defer, when a " +
			"return is reached neither through the t.C case nor after t.Stop() (the success path, or a watchdog Reset on " +
			"each kick and left running), unless d is a constant under 1s. A function ending in a loop it never leaves — for " +
			"{}, or a range over a ticker's own channel — keeps its ticker for life; a range over any other channel ends " +
			"when it is closed (tick := time.Tick(d); for j := range jobs leaks, as staticcheck's SA1015 says).",
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
		Explanation: "A goroutine that loops until another one changes a value holds its P the whole time. runtime.Gosched " +
			"only moves it to the global run queue; with an idle P it runs again at once, so it still burns a full core, " +
			"and it starves the goroutine it waits for when Ps are few. How long it waits the code does not show: a wait " +
			"for another goroutine's operation of a few instructions (a ring slot freed between its owner's CAS and its " +
			"store) costs nothing until that goroutine is descheduled mid-operation, a wait for an idle consumer costs a " +
			"core; the finding says so and leaves the cost to the runtime layers, which measure it.",
		Detection: "A for loop (not range, not counted) that waits, through its condition or an if or switch case that " +
			"leaves it, on something another goroutine can change (an atomic Load, also of go.uber.org/atomic-like types of " +
			"packages whose path ends in /atomic, not the runtime's internal/runtime/atomic; a package-level variable or a " +
			"field reached through a pointer; len of a channel; ctx.Err; Mutex.TryLock; a function " +
			"whose per-function facts say it never blocks and polls shared state, such as a helper doing a non-blocking " +
			"receive), or calls runtime.Gosched, and whose every statement only reads: comparisons, atomic loads, re-reading " +
			"a value into a variable (gate = upstream.Load()), runtime.Gosched, counter increments, break, continue, return. " +
			"An atomic write or CAS behind a condition (claim the slot only when the reader has made room, then Gosched) " +
			"does not make the loop honest: the iteration that finds the condition false writes nothing. A tagless switch " +
			"with an init (switch dif := seq - pos; {) is read like an if/else chain, and a case that can never be true (an " +
			"unsigned dif < 0) is dead code: a ring whose \"full\" case is dead spins in its default. A timeout applied " +
			"only under a guard the loop does not change (if timeout > 0 && time.Since(start) >= timeout) leaves the loop " +
			"unbounded when the guard is false, so it is reported. A blind compare-and-swap from a fixed non-zero state as " +
			"the loop's condition, with a body that only yields (for !CompareAndSwap(committed, reading) { Gosched() }), " +
			"waits for another goroutine and is reported; so is a busy wait on the clock alone (for time.Now().Before(d) " +
			"{}, for !t.After(time.Now()) {}), with the fix of sleeping until the deadline. Also reported: " +
			"an empty for {} or for true {}, with the fix select {}. Silent on an atomic write or CAS that runs on every " +
			"iteration (retry until my CAS wins: a failure means another goroutine won, so the loop is bounded by " +
			"contention; this includes a CAS spinlock from the zero value), a loop whose every path that goes round again " +
			"ran a CAS, found a snapshot inconsistent (a Michael-Scott queue's tail == q.tail.Load() failing), or, in " +
			"Dmitry Vyukov's bounded queue, re-reads the word the CAS swaps after a live dif < 0 case has left on a full or " +
			"empty ring (the position moved on: a contention retry), an assignment that advances (l = l.next), a counter " +
			"that the value an exit tests is computed from (p := parent(tile, k) with k++), a never-blocking helper that " +
			"writes through a pointer without polling (in.readRune() consumes input), a helper called for its " +
			"effect (work), any sleep (SD102/SD104), a channel operation or select (SD101), an unknown call, a busy delay " +
			"from start := time.Now() just before the loop (deliberate), a loop that reads the clock while it works or " +
			"polls, runtime.NumGoroutine (SD103), a counter that decides when the loop ends, " +
			"and _test.go files. Also reported, at the caller's loop: a consumer's retry around a non-blocking take " +
			"(v := q.Dequeue(); if v == nil { continue }; work(v)), where the call never blocks and polls shared state, or " +
			"its only wait is a mutex it takes and releases itself (a pop under the queue's lock, by the facts of its " +
			"package), and the path on which its result says nothing (v == nil, err != nil, !ok, a false result, a switch " +
			"case on those) goes round again at once (continue, or the end of the body) with nothing but stop checks that " +
			"leave (an atomic, a select with a default), runtime.Gosched or a counter: the path that found an item works, " +
			"the one that found nothing spins. Silent there when that path sleeps (a short sleep is SD102's), blocks, " +
			"returns or breaks (a drain), or works; when the call may block, is unknown (another package read without " +
			"its facts, a func value), is the goroutine's own input (writes through a pointer without polling), or " +
			"returns a lone boolean after a CAS (a lost race); for counted loops and a counter that bounds the attempts.",
		Fix: "Block on what you wait for: a channel that the other goroutine closes, a sync.Cond, a WaitGroup. Spinning is " +
			"only worth it for nanoseconds, inside a lock implementation.",
		Wrong: `for !done.Load() {
	runtime.Gosched()
}`,
		Right:  `<-doneCh`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: a runtime.Gosched loop uses a full core.",
	},
}
