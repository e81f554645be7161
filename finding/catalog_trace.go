package finding

// Trace rules (SD3xx), detected by `schedoctor trace` (package exectrace)
// and, where the schedtrace output shows it, by `schedoctor schedtrace`.
var traceRules = []Rule{
	{
		ID: "SD301", Name: "sched-latency", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLatency,
		Title: "goroutines wait long between runnable and running",
		Explanation: "Time from GoRunnable to GoRunning is time a ready goroutine spends in a run queue. It adds directly " +
			"to request latency and grows with CPU saturation, too few Ps or long non-preemptible work.",
		Detection: "Scheduling latency (GoRunnable → GoRunning) from the trace, as a histogram and percentiles overall, by why " +
			"the goroutine became runnable and by creation site. Fires when the starts after a wait (unblocked by a " +
			"channel, lock, timer, network or syscall; not preemptions, yields or creations) number at least 500 and " +
			"their p99 is 20ms or more (warning); a tail of 100+ such starts with p99 ≥ 5ms is reported at info. The " +
			"message lists the longest waits with their time in the trace and names the measured cause: goroutines " +
			"that run until preempted holding 50%+ of the Ps' busy time (a spin, or compute when the source shows " +
			"it; see SD308), the host withholding CPU (see SD303), or else busy Ps; points at the spinning line, " +
			"then the creation site with the worst p99 and the lines the longest waiters waited at.",
		Fix: "Reduce CPU saturation (less work, more CPUs), make GOMAXPROCS match the CPUs available, and split long " +
			"CPU-bound work so latency-sensitive goroutines get a P. When the message names a spin, fix the spin first.",
	},
	{
		ID: "SD302", Name: "runnable-backlog", Severity: Warning, Sources: []Source{SourceTrace, SourceSchedtrace}, Status: Implemented, Family: FamilyLatency,
		Title: "runnable goroutines pile up in run queues (CPU saturation)",
		Explanation: "When every P is busy, new work waits in the local and global run queues. A sustained backlog means the " +
			"process needs more CPU than it has.",
		Detection: "Trace: the time-weighted number of runnable goroutines; fires when it exceeds GOMAXPROCS at least 50% of " +
			"the time, as a warning when the queueing starts are ones something waits for (500+ starts after a wait " +
			"with p99 ≥ 1ms, or 500+ creations with median ≥ 1ms before the first run) and as info when only " +
			"preempted CPU-bound goroutines queue. The cause is measured: goroutines that run until preempted " +
			"holding 50%+ of the Ps' busy time (named, with their line; the advice is to fix the spin, not to add " +
			"CPU, unless the source shows plain computation), a lock convoy (a lock SD309 reports while sync wake-ups " +
			"hold 50%+ of the time spent runnable after a wake-up: the lock is named and its fix given, never more " +
			"CPU), a sleep poll (SD307's site, while wakes from sleeps hold 50%+ of the time spent runnable after a " +
			"wake-up: named, with its fix), the host withholding CPU (SD303, only when the process CPU was measured), or the wake reason " +
			"that accounts for most of the time spent runnable (preemption, creation, or a wake-up and its kind). " +
			"Schedtrace: the runqueue and per-P queue lengths in " +
			"GODEBUG=schedtrace output, sustained above the number of Ps (thresholds in docs/schedtrace.md).",
		Fix: "Add CPU, reduce work per request, or shed load; check that GOMAXPROCS is not below the CPUs available. " +
			"First rule out a spin (SD308, SD101, SD106): a busy wait takes the Ps the others queue for.",
	},
	{
		ID: "SD303", Name: "ps-above-cpus", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "more Ps running at once than CPUs available",
		Explanation: "The trace shows Ps in the running state whose threads the kernel has descheduled: GOMAXPROCS is above " +
			"the CPUs really available (quota, cpuset, other processes), so goroutines stall while 'running'.",
		Detection: "The time-weighted mean of busy Ps in the trace (ProcRunning, less the time a goroutine waited in a " +
			"syscall that lost its P or lasted 500µs or more: a P whose goroutine waits in epoll_wait runs no Go code) " +
			"against the CPUs available, which a trace does not " +
			"record: given with -cpus (Options.CPUs). Fires when busy Ps ≥ 1.25 × CPUs; skipped without -cpus. Also " +
			"fires when the Ps were busy ≥ 150% of the CPU the process really got (and by 0.25 P or more): the trace's " +
			"CPU samples × 10ms when a CPU profile ran during tracing (20+ samples spread over 80% of the trace), " +
			"else -process-cpu (rusage of the same window); then the host withheld the CPU.",
		Fix: "Set GOMAXPROCS to the CPUs available (schedoctor procs computes it); when the host withheld the CPU, " +
			"find what takes it (schedoctor procs: throttling SD404, pressure SD406; other processes).",
	},
	{
		ID: "SD304", Name: "goroutine-migration", Severity: Info, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyScheduler,
		Title: "goroutines migrate between Ps and threads at a high rate",
		Explanation: "A goroutine that resumes on another P or M loses its cache and its runnext affinity; sleep-polling " +
			"and handoffs through idle Ps make most resumptions migrate.",
		Detection: "At each GoRunnable → GoRunning, the P and thread compared with the goroutine's previous ones. Fires (info) " +
			"for a creation site with 100+ starts, 1000+ thread migrations a second and at least 50% of its starts " +
			"on another thread.",
		Fix: "Block on the event instead of sleeping, keep producer and consumer on one goroutine or batch their handoffs.",
	},
	{
		ID: "SD305", Name: "syscall-handoff", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilySyscall,
		Title: "syscalls lose their P (handoff) and goroutines wait to get one back",
		Explanation: "A syscall that blocks longer than sysmon's check (20µs-10ms) has its P handed to another thread; on " +
			"return the goroutine must queue for a P.",
		Detection: "GoSyscall → GoRunnable transitions (the P was taken while the goroutine was in the syscall) against " +
			"GoSyscall → GoRunning, by the syscall's user call site. Fires for a site with 20+ such returns at 20+ a " +
			"second. When the Ps were busy far beyond the CPU the process got (SD303), the host is named as the cause " +
			"and batching is not advised. Calls that lost their P after 500µs or more at the median are waits (an " +
			"event loop's epoll_wait, a blocking read; quick calls that lose it take about 20µs): handing their P " +
			"away is the runtime's design, so they are info.",
		Fix: "Buffer and batch syscalls; move long blocking syscalls off latency-sensitive goroutines.",
	},
	{
		ID: "SD306", Name: "gc-stw-assist", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyGC,
		Title: "GC stop-the-world pauses and mark assists take a large share of time",
		Explanation: "Stop-the-world phases stall every goroutine; mark assists make allocating goroutines do GC work " +
			"inline, adding to their latency.",
		Detection: "The 'stop-the-world' ranges of the trace (share of wall time) and the running time inside 'GC mark " +
			"assist' ranges (share of the Ps' time, duration × GOMAXPROCS), by allocation site. Fires when " +
			"stop-the-world is ≥ 5% of the time or assists ≥ 5% of the Ps' time. Collections forced by runtime.GC " +
			"(or debug.FreeOSMemory; seen in the stack that began the pause or the mark phase) are told apart: when " +
			"they hold half the pause time the message names the caller, at info when it is the testing harness or " +
			"the runtime. Stop-the-world pauses of 10ms or more are reported (info) with their durations and times.",
		Fix: "Allocate less, set GOMEMLIMIT and raise GOGC where memory allows.",
	},
	{
		ID: "SD307", Name: "short-sleep-churn", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLoop,
		Title: "one call site sleeps for tiny durations at a high rate",
		Explanation: "Each short sleep parks and wakes a goroutine and usually a thread; thousands per second from one " +
			"site is polling.",
		Detection: "GoBlock with reason sleep, per call site: how often the same goroutine sleeps there again with no other " +
			"block in between (back to back), and the time asleep. Fires for 100+ back-to-back sleeps at 100+ a " +
			"second with a median sleep of 2ms or less; many goroutines that each sleep once do not count.",
		Fix: "Block on the event instead of polling (see SD102).",
	},
	{
		ID: "SD308", Name: "never-blocks", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLoop,
		Title: "a goroutine never blocks: it runs until preempted or only yields",
		Explanation: "A goroutine that only ever leaves the CPU by preemption or Gosched is spinning (or doing long " +
			"CPU-bound work); it holds a P and pushes others into run queues.",
		Detection: "Per creation site, how goroutines leave the CPU: yields (GoStop runtime.Gosched), preemptions and blocks, " +
			"and the running time of the stretches by how they end. Warning for 1000+ yields a second, 100+ " +
			"yields per block (a syscall that waits, 500µs or more or losing its P, counts as a block: an event loop " +
			"that yields once after an empty zero-timeout poll and then waits in epoll_wait is no spin) and yields " +
			"that end 50%+ of the running time. A site whose CPU samples (20 or more, when a CPU profile ran during the " +
			"trace) are 50%+ in select or yield code has the same shape however its stretches end: a spin that leaves Ps " +
			"idle is never preempted. Such a site whose samples are mostly in select or yield code warns by its cost " +
			"(finding.SpinSeverity on the sampled share) whatever the source reads there: the samples show the wait is " +
			"the path taken; the source then only names the cause. A loop the source shows spinning whose CPU samples are 50%+ in the standard-library " +
			"calls it makes (a default that hashes) works: info, not a busy wait. A site whose goroutines spend 80%+ of their running time in stretches that end in " +
			"preemption or a yield, run 0.1 P or more on average and were stopped 10+ times is compute or a spin " +
			"(however often it blocks between): info from the trace alone; its hot line (the trace's CPU samples, " +
			"else where preemptions hit; yields inside runtime.GC are the runtime's) is read in the source, and a " +
			"spin there (select with a default, yield or atomic spin) makes it a warning at the spinning line " +
			"(severity by cost, finding.SpinSeverity: warning from 0.05 P, critical from 0.95 P that are also 60% of the Ps' busy time; info below 0.05 P), with both sources' evidence; plain computation stays info.",
		Fix: "If it waits for something, block on it (SD101, SD106); if it computes, split the work.",
	},
	{
		ID: "SD309", Name: "lock-queue", Severity: Warning, Sources: []Source{SourceTrace, SourceGoroutines}, Status: Implemented, Family: FamilyLock,
		Title: "goroutines queue on one lock (sync.Mutex/RWMutex block stacks)",
		Explanation: "Goroutines blocked with reason sync on the same Lock call site wait for one another; the lock " +
			"serialises the work.",
		Detection: "GoBlock with reason sync whose stack is in sync.(*Mutex) or sync.(*RWMutex) (not WaitGroup or Cond), " +
			"grouped by the blocking user line, with the mean number of goroutines waiting there. Fires for 20+ waits " +
			"and 0.25+ goroutines waiting on average. From a mutex or block profile (schedoctor goroutines, check): a " +
			"sync.Mutex/RWMutex site whose delay over the profile's duration is 0.25+ waiters on average, with 20+ " +
			"contentions; a profile with no samples is reported as not enabled.",
		Fix: "Shorten or shard the critical section.",
	},
}
