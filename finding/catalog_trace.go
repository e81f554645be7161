package finding

// Trace rules (SD3xx), detected by `schedoctor trace` (package exectrace)
// and, where the schedtrace output shows it, by `schedoctor schedtrace`.
var traceRules = []Rule{
	{
		ID: "SD301", Name: "sched-latency", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "goroutines wait long between runnable and running",
		Explanation: "Time from GoRunnable to GoRunning is time a ready goroutine spends in a run queue. It adds directly " +
			"to request latency and grows with CPU saturation, too few Ps or long non-preemptible work.",
		Detection: "Per transition latency from the trace, as percentiles overall, by why the goroutine became runnable " +
			"and by creation site.",
		Fix: "Reduce CPU saturation (less work, more CPUs), make GOMAXPROCS match the CPUs available, and split long " +
			"CPU-bound work so latency-sensitive goroutines get a P.",
	},
	{
		ID: "SD302", Name: "runnable-backlog", Severity: Warning, Sources: []Source{SourceTrace, SourceSchedtrace}, Status: Planned,
		Title: "runnable goroutines pile up in run queues (CPU saturation)",
		Explanation: "When every P is busy, new work waits in the local and global run queues. A sustained backlog means the " +
			"process needs more CPU than it has.",
		Detection: "The number of runnable goroutines over time in the trace, or the runqueue and per-P queue lengths in " +
			"GODEBUG=schedtrace output, sustained above the number of Ps.",
		Fix: "Add CPU, reduce work per request, or shed load; check that GOMAXPROCS is not below the CPUs available.",
	},
	{
		ID: "SD303", Name: "ps-above-cpus", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "more Ps running at once than CPUs available",
		Explanation: "The trace shows Ps in the running state whose threads the kernel has descheduled: GOMAXPROCS is above " +
			"the CPUs really available (quota, cpuset, other processes), so goroutines stall while 'running'.",
		Detection: "The time-weighted sum of running Ps against the CPUs available to the process.",
		Fix:       "Set GOMAXPROCS to the CPUs available (schedoctor procs computes it).",
	},
	{
		ID: "SD304", Name: "goroutine-migration", Severity: Info, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "goroutines migrate between Ps and threads at a high rate",
		Explanation: "A goroutine that resumes on another P or M loses its cache and its runnext affinity; sleep-polling " +
			"and handoffs through idle Ps make most resumptions migrate.",
		Detection: "At each GoRunnable → GoRunning, the P and M compared with the goroutine's previous ones; rate per second " +
			"and share of starts, by creation site.",
		Fix: "Block on the event instead of sleeping, keep producer and consumer on one goroutine or batch their handoffs.",
	},
	{
		ID: "SD305", Name: "syscall-handoff", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "syscalls lose their P (handoff) and goroutines wait to get one back",
		Explanation: "A syscall that blocks longer than sysmon's check (20µs-10ms) has its P handed to another thread; on " +
			"return the goroutine must queue for a P.",
		Detection: "GoSyscall → GoRunnable transitions (the P was taken) against GoSyscall → GoRunning, by call site.",
		Fix:       "Buffer and batch syscalls; move long blocking syscalls off latency-sensitive goroutines.",
	},
	{
		ID: "SD306", Name: "gc-stw-assist", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "GC stop-the-world pauses and mark assists take a large share of time",
		Explanation: "Stop-the-world phases stall every goroutine; mark assists make allocating goroutines do GC work " +
			"inline, adding to their latency.",
		Detection: "The 'stop-the-world' and 'GC mark assist' ranges in the trace, total and per goroutine creation site.",
		Fix:       "Allocate less, set GOMEMLIMIT and raise GOGC where memory allows.",
	},
	{
		ID: "SD307", Name: "short-sleep-churn", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "one call site sleeps for tiny durations at a high rate",
		Explanation: "Each short sleep parks and wakes a goroutine and usually a thread; thousands per second from one " +
			"site is polling.",
		Detection: "GoBlock with reason sleep followed by a wake within a short time, counted per call site of the stack.",
		Fix:       "Block on the event instead of polling (see SD102).",
	},
	{
		ID: "SD308", Name: "never-blocks", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "a goroutine never blocks: it runs until preempted or only yields",
		Explanation: "A goroutine that only ever leaves the CPU by preemption or Gosched is spinning (or doing long " +
			"CPU-bound work); it holds a P and pushes others into run queues.",
		Detection: "Per creation site: goroutines whose every stop in the trace is a preemption or a Gosched, with their " +
			"CPU time.",
		Fix: "If it waits for something, block on it (SD101, SD106); if it computes, split the work.",
	},
	{
		ID: "SD309", Name: "lock-queue", Severity: Warning, Sources: []Source{SourceTrace}, Status: Planned,
		Title: "goroutines queue on one lock (sync.Mutex/RWMutex block stacks)",
		Explanation: "Goroutines blocked with reason sync on the same Lock call site wait for one another; the lock " +
			"serialises the work.",
		Detection: "GoBlock with reason sync grouped by the blocking stack's user frame, with total and per-goroutine " +
			"wait time.",
		Fix: "Shorten or shard the critical section.",
	},
}
