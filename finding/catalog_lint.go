package finding

// Code rules (SD1xx), detected by `schedoctor lint` (package lint/...).
var lintRules = []Rule{
	{
		ID: "SD101", Name: "busy-select", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "loop around a select whose default neither blocks nor leaves the loop",
		Explanation: "A select with a default case never parks the goroutine: when no other case is ready it runs the default " +
			"and returns at once, and selectgo has no backoff. Inside a loop that default is taken again and again, so the " +
			"goroutine holds its P at 100% of a core until async preemption (about every 10ms) takes it away. With no other " +
			"case the compiler turns the select into a plain jump; with cases it is selectgo, sellock and runtime locks.",
		Detection: "A for loop (any form: for {}, for cond {}, for i := 0; ; i++ {}, labelled, in a method or a goroutine closure) " +
			"that contains, directly or under if/switch, a select with a default clause whose statements neither block " +
			"(channel operation, time.Sleep of at least 1ms, a Wait or Lock call, ...) nor leave the loop (return, break or goto " +
			"out of it, panic, os.Exit). Defaults that are empty, only continue, only change a counter, call runtime.Gosched or " +
			"sleep under 1ms are reported. A select with default outside any loop (the try-send idiom) is not.",
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
		ID: "SD102", Name: "sleep-poll", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "loop that polls with a time.Sleep shorter than 1ms",
		Explanation: "Each time.Sleep parks the goroutine on a timer, and each expiry wakes a thread (wakep → startm → futex) " +
			"to run it again. A tiny sleep therefore buys two context switches per iteration, not precision: time.Sleep(1µs) " +
			"really sleeps about 0.4ms. CPU profiles of such programs show runtime.futex at half the samples although the " +
			"process uses little CPU in total.",
		Detection: "A time.Sleep inside a loop whose argument is a constant (literal, named constant or constant expression) " +
			"shorter than 1ms, and the loop waits for a condition (it has a condition, or an if that leaves it). " +
			"Sleeps with a computed, growing duration (backoff) are not reported.",
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
		ID: "SD103", Name: "goroutine-count-throttle", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "runtime.NumGoroutine used to limit or wait for goroutines",
		Explanation: "runtime.NumGoroutine counts every goroutine in the process, including the runtime's and every library's, " +
			"so a limit on it is wrong as soon as anything else starts one; and waiting for it to drop means polling, usually " +
			"with a sleep. It walks allglen under no lock and returns a racy count.",
		Detection: "A call to runtime.NumGoroutine used in a loop condition, or in the condition of an if or switch that " +
			"controls spawning (go statement), waiting (sleep, continue) or leaving a loop. Uses only in logs, metrics or " +
			"return values are not reported.",
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
		ID: "SD104", Name: "timer-per-iteration", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "timer made anew on every loop iteration, or a zero timer used as a yield",
		Explanation: "time.After, time.NewTimer and time.Tick inside a loop allocate a timer (3 allocations, 248 B measured) and " +
			"put it on the P's timer heap each iteration, only for most of them to be dropped. time.After(0) and time.Sleep(0) " +
			"are not yields: since Go 1.23 an expired timer's send happens inline in selectgo, so the goroutine never parks " +
			"(measured: 106% CPU and 750 MB/s of garbage), and Sleep(0) returns at once.",
		Detection: "A call to time.After, time.NewTimer or time.Tick lexically inside a for or range loop body (not in a " +
			"function literal started there), and any time.After(0) or time.Sleep(0) (constant zero or negative). " +
			"A timer made once outside the loop and Reset inside it is not reported.",
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
		ID: "SD105", Name: "ticker-leak", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "ticker or timer never stopped in a module whose go line is before 1.23",
		Explanation: "Before Go 1.23 the runtime keeps every started ticker on a timer heap until Stop is called, so a ticker " +
			"(or time.Tick) that is dropped without Stop is never collected and keeps firing. From 1.23 unreferenced timers " +
			"and tickers are collected, but only when the main module's go line is at least 1.23 (GODEBUG asynctimerchan).",
		Detection: "time.NewTicker or time.NewTimer whose result is assigned to a local variable that is never stopped " +
			"(no Stop call, no defer Stop, not returned or stored elsewhere), and time.Tick outside main and init, in a " +
			"package whose module declares go < 1.23. Silent for go ≥ 1.23.",
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
		ID: "SD106", Name: "spin-wait", Severity: Warning, Sources: []Source{SourceLint}, Status: Planned,
		Title: "loop spinning on an atomic, a flag or runtime.Gosched with no blocking and no backoff",
		Explanation: "A goroutine that loops until another one changes a value holds its P the whole time. runtime.Gosched " +
			"only moves it to the global run queue; with an idle P it runs again at once, so it still burns a full core, " +
			"and it starves the goroutine it waits for when Ps are few.",
		Detection: "A loop whose body does nothing but load or compare a value (atomic Load, a plain variable, a " +
			"len of a channel) and possibly call runtime.Gosched, with no blocking call, no sleep and no other side effect. " +
			"A compare-and-swap retry loop (the body does the CAS that makes progress) is not reported.",
		Fix: "Block on what you wait for: a channel that the other goroutine closes, a sync.Cond, a WaitGroup. Spinning is " +
			"only worth it for nanoseconds, inside a lock implementation.",
		Wrong: `for !done.Load() {
	runtime.Gosched()
}`,
		Right:  `<-doneCh`,
		Effect: "Measured on a 2-CPU machine with Go 1.26: a runtime.Gosched loop uses a full core.",
	},
}
