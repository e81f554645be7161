package finding

// Code rules (SD1xx), detected by `schedoctor lint` (package lint/...).
var lintRules = []Rule{
	{
		ID: "SD101", Name: "busy-select", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "loop around a select whose default neither blocks nor leaves the loop",
		Explanation: "A select with a default case never parks the goroutine: when no other case is ready it runs the default " +
			"and returns at once, and selectgo has no backoff. Inside a loop that default is taken again and again, so the " +
			"goroutine holds its P at 100% of a core until async preemption (about every 10ms) takes it away. With no other " +
			"case the compiler turns the select into a plain jump; with cases it is selectgo, sellock and runtime locks.",
		Detection: "A select with a default clause inside a for loop (for {}, for cond {}, for i := 0; ; i++ {}, labelled, in a " +
			"method or a goroutine closure; directly or under if/switch) that is not a counted loop (for i := 0; i < n; i++), " +
			"where nothing on the path that takes the default can block: the default is empty, continues, breaks only the " +
			"select, changes variables or counters, calls runtime.Gosched or an atomic operation, or sleeps less than 1ms (a " +
			"constant), and the loop's condition and other statements are of the same kind. Silent when the default or a " +
			"statement after the select leaves the loop (return, labelled break, goto, panic, os.Exit, log.Fatal), when " +
			"anything on that path may block or is an unknown call (a channel operation, time.Sleep of 1ms or more or of a " +
			"computed duration, Lock, Wait, I/O), for range loops, and for a select with default outside any loop (try-send).",
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
		ID: "SD102", Name: "sleep-poll", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "loop that polls with a time.Sleep shorter than 1ms",
		Explanation: "Each time.Sleep parks the goroutine on a timer, and each expiry wakes a thread (wakep → startm → futex) " +
			"to run it again. A tiny sleep therefore buys two context switches per iteration, not precision: time.Sleep(1µs) " +
			"really sleeps about 0.4ms. CPU profiles of such programs show runtime.futex at half the samples although the " +
			"process uses little CPU in total.",
		Detection: "A call of time.Sleep (by type identity, whatever the import name) whose argument is a constant (literal, " +
			"named constant or constant expression) above 0 and below 1ms, in a for loop that waits: it has a condition, or " +
			"an if in its body leaves it. Silent for counted and range loops (pacing, not polling), for loops that never " +
			"end, when anything else in the body may block or is an unknown call, for computed durations (backoff), for " +
			"sleeps in a select's default (SD101) and for Sleep(0) (SD104).",
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
		ID: "SD103", Name: "goroutine-count-throttle", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "runtime.NumGoroutine used to limit or wait for goroutines",
		Explanation: "runtime.NumGoroutine counts every goroutine in the process, including the runtime's and every library's, " +
			"so a limit on it is wrong as soon as anything else starts one; and waiting for it to drop means polling, usually " +
			"with a sleep. It walks allglen under no lock and returns a racy count.",
		Detection: "A call of runtime.NumGoroutine whose value, directly or through a local variable assigned from it, is " +
			"a for loop's condition, or decides an if or switch one of whose branches starts a goroutine, calls time.Sleep, or " +
			"continues or breaks a loop that starts goroutines or sleeps. Silent when the count is only logged, exported, returned, or compared in a branch " +
			"that does none of these, and in _test.go files (leak checks count goroutines on purpose).",
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
		ID: "SD104", Name: "timer-per-iteration", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "timer made anew on every loop iteration, or a zero timer used as a yield",
		Explanation: "time.After, time.NewTimer and time.Tick inside a loop allocate a timer (3 allocations, 248 B measured) and " +
			"put it on the P's timer heap each iteration, only for most of them to be dropped. time.After(0) and time.Sleep(0) " +
			"are not yields: since Go 1.23 an expired timer's send happens inline in selectgo, so the goroutine never parks " +
			"(measured: 106% CPU and 750 MB/s of garbage), and Sleep(0) returns at once.",
		Detection: "In a for or range loop of the same function (not in a function literal started there): time.After " +
			"received from in a select case when another case of that select can let the loop go on; t := time.NewTimer " +
			"whose t.C is received from in such a select; any time.Tick; and time.After or time.Sleep with a constant " +
			"duration of 0 or less. Silent for a timer made before the loop and Reset in it, for selects whose other cases " +
			"all leave the loop (wait with timeout, sleep-or-cancel in a retry loop), outside loops, and in a select's " +
			"default (SD101). For time.Sleep(0) a fix to runtime.Gosched() is offered when the file already imports runtime " +
			"and still uses time elsewhere.",
		Fix: "Make one time.Timer before the loop and Reset it each iteration (since Go 1.23 Reset needs no drain), or use " +
			"context.WithTimeout for an overall deadline. To yield, block on what you wait for; runtime.Gosched only if you must.",
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
		ID: "SD105", Name: "ticker-leak", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "ticker never stopped in a module whose go line is before 1.23",
		Explanation: "Before Go 1.23 the runtime keeps every started ticker on a timer heap until Stop is called, so a ticker " +
			"(or time.Tick) that is dropped without Stop is never collected and keeps firing. From 1.23 unreferenced timers " +
			"and tickers are collected, but only when the main module's go line is at least 1.23 (GODEBUG asynctimerchan).",
		Detection: "Only where the package's module declares a go line before 1.23 (silent at 1.23+ and when the module " +
			"is unknown): time.NewTicker assigned to a local variable only ever read for C or Reset (never stopped, " +
			"returned, passed, stored or compared) in a function that can return, or whose C alone is kept; and time.Tick in a function that can return, " +
			"other than main, init and _test.go files (a function ending in a loop it never leaves keeps its ticker for " +
			"life). time.NewTimer is not reported: a timer leaves the heap when it fires.",
		Fix: "Add defer t.Stop() after creating it, or move the module to go 1.23 or later (go mod edit -go=1.23).",
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
		ID: "SD106", Name: "spin-wait", Severity: Warning, Sources: []Source{SourceLint}, Status: Implemented,
		Title: "loop spinning on an atomic, a flag or runtime.Gosched with no blocking and no backoff",
		Explanation: "A goroutine that loops until another one changes a value holds its P the whole time. runtime.Gosched " +
			"only moves it to the global run queue; with an idle P it runs again at once, so it still burns a full core, " +
			"and it starves the goroutine it waits for when Ps are few.",
		Detection: "A for loop (not range, not counted) that waits, through its condition or an if or switch case that " +
			"leaves it, on something another goroutine can change (an atomic Load, a variable or field, len of a channel, " +
			"ctx.Err), or calls runtime.Gosched, and whose every statement only reads: comparisons, atomic loads, " +
			"runtime.Gosched, counter increments, break, continue, return. Silent on any atomic write (CAS retry loops make " +
			"progress), assignment, sleep (SD102/SD104), channel operation or select (SD101), unknown call, time.Now or " +
			"time.Since (deliberate busy delays), runtime.NumGoroutine (SD103), an empty for {}, and in _test.go files.",
		Fix: "Block on what you wait for: a channel that the other goroutine closes, a sync.Cond, a WaitGroup. Spinning is " +
			"only worth it for nanoseconds, inside a lock implementation.",
		Wrong: `for !done.Load() {
	runtime.Gosched()
}`,
		Right:  `<-doneCh`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: a runtime.Gosched loop uses a full core.",
	},
}
