package finding

// Schedtrace rules (SD310–SD319), detected only from GODEBUG=schedtrace
// output by `schedoctor schedtrace` (package schedtrace). SD302 is shared
// with the trace source and lives in catalog_trace.go.
//
// A schedtrace line is a snapshot taken by sysmon, read without stopping the
// world, so one line proves nothing: every rule asks for a condition held in
// a share of the ticks. The thresholds are constants of package schedtrace;
// the lab runs that justify them are in docs/schedtrace.md.
var schedtraceRules = []Rule{
	{
		ID: "SD310", Name: "spinning-without-work", Severity: Info, Sources: []Source{SourceSchedtrace}, Status: Implemented, Family: FamilyLoop,
		Title: "threads keep spinning for work while every run queue is empty",
		Since: "2026-11-22",
		Explanation: "When a goroutine becomes runnable and a P is idle, the runtime wakes a thread that spins in " +
			"findRunnable, stealing from other Ps, polling timers and the network, before it parks again. Seeing " +
			"spinning threads in most snapshots while all queues are empty means work arrives in pieces so small that " +
			"threads are woken, find nothing left to steal, and park: CPU spent searching instead of working.",
		Detection: "Ticks with spinning threads while nothing is queued (the global run queue plus the per-P queues is 0), " +
			"in a share of the ticks.",
		Fix: "Hand work over in batches instead of one goroutine wake-up per item, replace sleep-polling by blocking, and " +
			"if the process has fewer busy goroutines than Ps lower GOMAXPROCS; a CPU profile (schedoctor profile, " +
			"SD201/SD202) shows the cost.",
	},
	{
		ID: "SD311", Name: "idle-ps-with-queued-work", Severity: Warning, Sources: []Source{SourceSchedtrace}, Status: Implemented, Family: FamilyScheduler,
		Title: "Ps sit idle while goroutines wait in run queues",
		Since: "2026-11-22",
		Explanation: "A runnable goroutine queued while a P is idle should be picked up within microseconds: readying it " +
			"wakes a spinning thread that steals it. When snapshots keep showing both at once, the threads that would " +
			"run it are not getting the CPU (CFS throttling under a container quota, an overloaded host, GOMAXPROCS " +
			"above the CPUs really available), so goroutines wait although the runtime thinks it has room.",
		Detection: "Ticks with an idle P while at least one goroutine is queued (global run queue plus per-P queues), in a " +
			"share of the ticks; a warning when more goroutines are queued at those ticks or the condition holds in " +
			"most ticks.",
		Fix: "Check the CPU quota and throttling (schedoctor procs: SD401, SD404) and set GOMAXPROCS to the CPUs " +
			"available; on a shared host, give the process dedicated CPUs.",
	},
	{
		ID: "SD312", Name: "threads-climbing", Severity: Warning, Sources: []Source{SourceSchedtrace}, Status: Implemented, Family: FamilyThreads,
		Title: "the number of OS threads keeps growing",
		Since: "2026-11-22",
		Explanation: "The runtime needs about GOMAXPROCS threads plus a few; it makes another each time a goroutine blocks " +
			"in a syscall or a cgo call while the others are busy, or locks itself to a thread. Threads are almost " +
			"never freed, and the runtime aborts at 10,000 (debug.SetMaxThreads). A count that climbs for the whole run " +
			"means unbounded blocking calls.",
		Detection: "The thread count at the last tick against the highest of the first quarter of the ticks: well above it, " +
			"by a margin of at least GOMAXPROCS when that is larger, and still rising in the last quarter (its " +
			"maximum above the third quarter's).",
		Fix: "Bound the goroutines that make blocking syscalls or cgo calls (a semaphore or a worker pool sized to the " +
			"I/O the system can take), use non-blocking I/O the netpoller handles, and pair runtime.LockOSThread with " +
			"UnlockOSThread.",
	},
	{
		ID: "SD313", Name: "park-wake-churn", Severity: Info, Sources: []Source{SourceSchedtrace}, Status: Implemented, Family: FamilyScheduler,
		Title: "mostly idle Ps schedule thousands of goroutines a second (park/wake churn)",
		Since: "2026-11-22",
		Explanation: "schedtick counts the goroutines a P starts on a fresh time slice. A P that is idle in most snapshots " +
			"yet starts thousands of goroutines a second runs them for microseconds each, then parks its thread, and " +
			"is woken again: every unit of work pays a futex wake, a context switch and a search for work. This is the " +
			"signature of sleep-polling and of one goroutine per tiny task.",
		Detection: "Between consecutive ticks with per-P schedticks: most Ps idle, yet many goroutine starts per second per " +
			"P, in a share of the intervals. Always info: schedtrace cannot tell a sleep-poll loop from a server " +
			"woken once per request; a profile or a trace decides.",
		Details: "Needs per-P schedticks (recent releases print schedticks=[...], seen in Go 1.25 and 1.26 output; older " +
			"ones only in the P lines of scheddetail=1). A healthy server woken once per request has the same shape " +
			"(a loopback echo server measured 4,752 starts per second per P at 9,600 messages/s and 14,708 at 29,000, " +
			"Ps 88-97% idle, against 4,322 for the lab's 5µs sleep-poller), so schedtrace reports the figures and " +
			"says it cannot tell them apart; a profile (SD201, SD203) or a trace (SD307) of the same process decides.",
		Fix: "First find what wakes the goroutines (schedoctor profile or trace of the same process): a server woken " +
			"once per request needs no change; a sleep loop should block on the event instead (SD102); one goroutine " +
			"per tiny task should become a small pool of long-lived goroutines fed in batches.",
	},
	{
		ID: "SD314", Name: "yield-storm", Severity: Warning, Sources: []Source{SourceSchedtrace}, Status: Implemented, Family: FamilyLoop,
		Title: "busy Ps switch goroutines over 100,000 times a second (yield or spin loop)",
		Since: "2026-11-22",
		Explanation: "A goroutine that runs until preempted switches about 100 times a second (the 10ms slice), and a " +
			"channel handoff through runnext does not count at all. Hundreds of thousands of fresh schedules a second " +
			"on busy Ps means goroutines give the P back at once, over and over: runtime.Gosched in a wait loop, or " +
			"a loop that blocks and is readied again immediately.",
		Detection: "Between consecutive ticks with per-P schedticks: busy Ps (fewer than half idle) that start goroutines at " +
			"a very high rate per P, in a share of the intervals: goroutines give the P back at once, over and over.",
		Details: "Needs per-P schedticks (recent releases print schedticks=[...], seen in Go 1.25 and 1.26 output; older " +
			"ones only in the P lines of scheddetail=1). The lab's Gosched spinner makes 2-4 million starts a second " +
			"per P; a channel ping-pong under 1,000. A run-queue backlog (SD302) seen in the same capture is reported " +
			"inside this finding, not as a CPU shortage: yielding goroutines go back to the run queue at once and " +
			"fill it.",
		Fix: "Replace the Gosched or polling loop by blocking on a channel, sync.Cond or WaitGroup (SD106, SD204); a " +
			"trace (schedoctor trace, SD308) names the goroutine.",
	},
}
