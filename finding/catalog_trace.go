package finding

// Trace rules (SD3xx), detected by `schedoctor trace` (package exectrace)
// and, where the schedtrace output shows it, by `schedoctor schedtrace`.
var traceRules = []Rule{
	{
		ID: "SD301", Name: "sched-latency", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLatency,
		Title: "goroutines wait long between runnable and running",
		Since: "2026-11-22",
		Explanation: "Time from GoRunnable to GoRunning is time a ready goroutine spends in a run queue. It adds directly " +
			"to request latency and grows with CPU saturation, too few Ps or long non-preemptible work.",
		Detection: "Scheduling latency (runnable to running) from the trace, overall, by wake reason and by creation site; " +
			"reported when enough starts after a wait (unblocked by a channel, lock, timer, network or syscall) have " +
			"a high p99, naming the measured cause.",
		Details: "Preemptions, yields and creations do not count as starts after a wait. A thinner tail is reported at " +
			"info. The message lists the longest waits with their time in the trace and names the measured cause: " +
			"goroutines that run until preempted holding most of the Ps' busy time (a spin, or compute when the " +
			"source shows it; see SD308), the host withholding CPU (see SD303), or else busy Ps; it points at the " +
			"spinning line, then the creation site with the worst p99 and the lines the longest waiters waited at.",
		Fix: "Reduce CPU saturation (less work, more CPUs), make GOMAXPROCS match the CPUs available, and split long " +
			"CPU-bound work so latency-sensitive goroutines get a P. When the message names a spin, fix the spin first.",
	},
	{
		ID: "SD302", Name: "runnable-backlog", Severity: Warning, Sources: []Source{SourceTrace, SourceSchedtrace}, Status: Implemented, Family: FamilyLatency,
		Title: "runnable goroutines pile up in run queues (CPU saturation)",
		Since: "2026-11-22",
		Explanation: "When every P is busy, new work waits in the local and global run queues. A sustained backlog means the " +
			"process needs more CPU than it has.",
		Detection: "Trace: more runnable goroutines than GOMAXPROCS for much of the time, with the cause measured. " +
			"Schedtrace: queued goroutines per P sustained over the ticks. A warning when goroutines that wait for " +
			"something queue; info when only preempted CPU-bound goroutines do.",
		Details: "Trace: the time-weighted number of runnable goroutines against GOMAXPROCS; a warning when the queueing " +
			"starts are ones something waits for (starts after a wait with a high p99, or creations with a high " +
			"median before the first run). The cause is measured: goroutines that run until preempted holding most of " +
			"the Ps' busy time (named, with their line; the advice is to fix the spin, not to add CPU, unless the " +
			"source shows plain computation), a lock convoy (a lock SD309 reports while sync wake-ups hold most of " +
			"the time spent runnable after a wake-up: the lock is named and its fix given, never more CPU), a sleep " +
			"poll (SD307's site, while wakes from sleeps hold most of that time: named, with its fix), the host " +
			"withholding CPU (SD303, only when the process CPU was measured), or the wake reason that accounts for " +
			"most of the time spent runnable (preemption, creation, or a wake-up and its kind).\n\nSchedtrace: the " +
			"runqueue and per-P queue lengths in GODEBUG=schedtrace output, at least one goroutine queued per P " +
			"behind the one running, in a share of the ticks; a warning when the estimated run-queue wait (queued per " +
			"P times the time each goroutine start ran, from schedticks) reaches a time slice (docs/schedtrace.md).",
		Fix: "Add CPU, reduce work per request, or shed load; check that GOMAXPROCS is not below the CPUs available. " +
			"First rule out a spin (SD308, SD101, SD106): a busy wait takes the Ps the others queue for.",
	},
	{
		ID: "SD303", Name: "ps-above-cpus", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "more Ps running at once than CPUs available",
		Since: "2026-11-22",
		Explanation: "The trace shows Ps in the running state whose threads the kernel has descheduled: GOMAXPROCS is above " +
			"the CPUs really available (quota, cpuset, other processes), so goroutines stall while 'running'.",
		Detection: "The time-weighted mean of busy Ps in the trace against the CPUs available (given with -cpus; a trace " +
			"does not record them), or against the CPU the process really got (the trace's CPU samples, else " +
			"-process-cpu); reported when the Ps were busier.",
		Details: "A P whose goroutine waited in a syscall that lost its P, or lasted long (see the thresholds), is not " +
			"counted busy: a P whose goroutine waits in epoll_wait runs no Go code. The check against -cpus " +
			"(Options.CPUs) is skipped without it. The process's CPU comes from the trace's CPU samples when a CPU " +
			"profile ran during tracing and its samples spread over most of the trace, else from -process-cpu (rusage " +
			"of the same window); when the Ps were busy beyond it, the host withheld the CPU.",
		Fix: "Set GOMAXPROCS to the CPUs available (schedoctor procs computes it); when the host withheld the CPU, " +
			"find what takes it (schedoctor procs: throttling SD404, pressure SD406; other processes).",
	},
	{
		ID: "SD304", Name: "goroutine-migration", Severity: Info, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyScheduler,
		Title: "goroutines migrate between Ps and threads at a high rate",
		Since: "2026-11-22",
		Explanation: "A goroutine that resumes on another P or M loses its cache and its runnext affinity; sleep-polling " +
			"and handoffs through idle Ps make most resumptions migrate.",
		Detection: "At each start, the goroutine's P and thread compared with its previous ones; reported (info) for a " +
			"creation site with enough starts, a high rate of thread migrations and a large share of its starts on " +
			"another thread.",
		Fix: "Block on the event instead of sleeping, keep producer and consumer on one goroutine or batch their handoffs.",
	},
	{
		ID: "SD305", Name: "syscall-handoff", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilySyscall,
		Title: "syscalls lose their P (handoff) and goroutines wait to get one back",
		Since: "2026-11-22",
		Explanation: "A syscall that blocks longer than sysmon's check (20µs-10ms) has its P handed to another thread; on " +
			"return the goroutine must queue for a P.",
		Detection: "Syscalls whose goroutine came back without its P (GoSyscall → GoRunnable) against those that kept it, by " +
			"the syscall's user call site; reported for a site with enough such returns at a high rate. Calls that " +
			"waited (a long median) are info.",
		Details: "When the Ps were busy far beyond the CPU the process got (SD303), the host is named as the cause and " +
			"batching is not advised. Calls that lost their P after a long median time are waits (an event loop's " +
			"epoll_wait, a blocking read; quick calls that lose it take about as long as sysmon's least retake time): " +
			"handing their P away is the runtime's design, so they are info; so are sites where few quick calls lost " +
			"it. A site making very many calls a second is advised to batch whatever the share that lost the P, and " +
			"warns when the calls themselves cost enough CPU (the lab's syscallheavy: 491,809 writes of 351ns a " +
			"second; an echo server's reads, 10–11k/s of 1.4–6µs, are the price of its traffic).",
		Fix: "Buffer and batch syscalls; move long blocking syscalls off latency-sensitive goroutines.",
	},
	{
		ID: "SD306", Name: "gc-stw-assist", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyGC,
		Title: "GC stop-the-world pauses and mark assists take a large share of time",
		Since: "2026-11-22",
		Explanation: "Stop-the-world phases stall every goroutine; mark assists make allocating goroutines do GC work " +
			"inline, adding to their latency.",
		Detection: "The trace's stop-the-world ranges as a share of wall time, and the running time in GC mark assists as a " +
			"share of the Ps' time (duration × GOMAXPROCS), by allocation site; collections forced by runtime.GC are " +
			"told apart; long single pauses are listed.",
		Details: "Collections forced by runtime.GC or debug.FreeOSMemory are seen in the stack that began the pause or the " +
			"mark phase: when they hold half the pause time the message names the caller, at info when it is the " +
			"testing harness or the runtime. Long stop-the-world pauses are reported (info) with their durations and " +
			"times.",
		Fix: "Allocate less, set GOMEMLIMIT and raise GOGC where memory allows.",
	},
	{
		ID: "SD307", Name: "short-sleep-churn", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLoop,
		Title: "one call site sleeps for tiny durations at a high rate",
		Since: "2026-11-22",
		Explanation: "Each short sleep parks and wakes a goroutine and usually a thread; thousands per second from one " +
			"site is polling.",
		Detection: "Sleeps per call site (GoBlock with reason sleep): how often the same goroutine sleeps there again with " +
			"no other block in between (back to back), and the time asleep; reported for many short back-to-back " +
			"sleeps at a high rate.",
		Details: "Many goroutines that each sleep once do not count.",
		Fix:     "Block on the event instead of polling (see SD102).",
	},
	{
		ID: "SD308", Name: "never-blocks", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLoop,
		Title: "a goroutine never blocks: it runs until preempted or only yields",
		Since: "2026-11-22",
		Explanation: "A goroutine that only ever leaves the CPU by preemption or Gosched is spinning (or doing long " +
			"CPU-bound work); it holds a P and pushes others into run queues.",
		Detection: "Per creation site, how goroutines leave the CPU (yields, preemptions, blocks) and the running time by " +
			"how stretches end, with the trace's CPU samples; a site that mostly yields or is preempted, or whose " +
			"samples are in select or yield code, spins or computes, and the source decides which.",
		Details: "Warning for a site with many yields a second, many yields per block and yields that end most of the " +
			"running time; a syscall that waits (long, or losing its P) counts as a block: an event loop that yields " +
			"once after an empty zero-timeout poll and then waits in epoll_wait is no spin. A site whose CPU samples " +
			"(enough of them, when a CPU profile ran during the trace) are mostly in select or yield code has the " +
			"same shape however its stretches end: a spin that leaves Ps idle is never preempted. Such a site warns " +
			"by its cost (finding.SpinSeverity on the sampled share) whatever the source reads there: the samples " +
			"show the wait is the path taken; the source then only names the cause. A loop the source shows spinning " +
			"whose CPU samples are mostly in the standard-library calls it makes (a default that hashes) works: info, " +
			"not a busy wait.\n\nA site whose goroutines spend most of their running time in stretches that end in " +
			"preemption or a yield, run a share of a P on average and were stopped several times is compute or a spin " +
			"(however often it blocks between): info from the trace alone; its hot line (the trace's CPU samples, " +
			"else where preemptions hit; yields inside runtime.GC are the runtime's) is read in the source, and a " +
			"spin there (select with a default, yield or atomic spin) makes it a finding at the spinning line, with " +
			"severity by cost (finding.SpinSeverity, the same thresholds as the profile's SD204, in Ps) and both " +
			"sources' evidence; plain computation stays info.",
		Fix: "If it waits for something, block on it (SD101, SD106); if it computes, split the work.",
	},
	{
		ID: "SD309", Name: "lock-queue", Severity: Warning, Sources: []Source{SourceTrace, SourceGoroutines}, Status: Implemented, Family: FamilyLock,
		Title: "goroutines queue on one lock (sync.Mutex/RWMutex block stacks)",
		Since: "2026-11-22",
		Explanation: "Goroutines blocked with reason sync on the same Lock call site wait for one another; the lock " +
			"serialises the work.",
		Detection: "Goroutines blocked in sync.Mutex or RWMutex (not WaitGroup or Cond), grouped by the blocking user line, " +
			"with the mean number waiting there; from a trace, or from a mutex or block profile (schedoctor " +
			"goroutines, check) by the delay over its duration.",
		Details: "A profile with no samples is reported as not enabled.",
		Fix:     "Shorten or shard the critical section.",
	},
	{
		ID: "SD315", Name: "latency-spikes", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLatency,
		Title: "scheduling latency comes in spikes, each made by one burst",
		Since: "2026-11-27",
		Explanation: "A burst of goroutines made runnable at once (a fan-out of go statements, a broadcast wake-up) " +
			"queues behind itself in the run queues: for the burst's length every goroutine that wakes waits too. " +
			"A 200ms spike inside a 10s trace is 2% of its starts and disappears in the trace's p99.",
		Detection: "The trace is cut into windows (-window); a window whose starts' p99 latency (-spike-p99) or " +
			"runnable peak per P (-spike-runnable) passes a threshold and stands out from the trace's quieter windows " +
			"is marked, and adjacent marked windows merge into spikes. One finding per cause, at its line.",
		Details: "Each spike's cause is who filled the run queues: the creation site, the waker, or the preempted " +
			"goroutines whose waits make up most of the time spent runnable in it. A warning when the spikes of one cause repeat (or one lasts long) with a p99 at SD301's gate; info " +
			"otherwise. Spikes with no cause of the user's (mixed, GC pauses, the runtime's timers) are listed in " +
			"the summary's spike windows, with what became runnable and why, the GC work and the goroutines that held " +
			"the Ps, but not reported. Preempted and yielding goroutines' latency does not mark a window: CPU-bound " +
			"work waits a time slice by design.",
		Fix: "Bound the fan-out (a pool of GOMAXPROCS workers, a semaphore, errgroup's SetLimit) or wake only the " +
			"goroutines there is work for (see SD316).",
	},
	{
		ID: "SD316", Name: "heavy-unblocker", Severity: Warning, Sources: []Source{SourceTrace}, Status: Implemented, Family: FamilyLatency,
		Title: "one line wakes many goroutines at once, again and again",
		Since: "2026-11-27",
		Explanation: "A close of a channel that many goroutines wait on, a sync.Cond Broadcast or a WaitGroup release " +
			"makes them all runnable within microseconds; with a few Ps, each wake-up queues behind the rest, and " +
			"repeated many times a second this is a queue of its own.",
		Detection: "Every wake-up is charged to the goroutine running when it happened, at its innermost user frame; " +
			"wake-ups by one waker in quick succession are one burst. Reported when a line makes repeated heavy " +
			"bursts (a number of goroutines and a number per P), with the latency its wakees suffered.",
		Details: "A wake-up with no goroutine running, or none with a user frame, is the runtime's (timers, the network " +
			"poller) and never reported. Wake-ups by one waker in one running stretch, or close together (see the " +
			"thresholds), with no goroutine woken twice, are one burst. The trace records the waker's stack from " +
			"its own code down, so the operation is read from what the wakees waited on: a receive (a close or a send), a select, a sync.Cond, a WaitGroup, a lock. One " +
			"goroutine woken often is no burst. A warning when the goroutines it woke waited long for a P (p99); " +
			"info otherwise. When the waker's bursts also cause latency spikes (SD315), the finding says so.",
		Fix: "Hand the work to a pool of workers over a channel instead of broadcasting to every waiter, or shard the " +
			"waiters so that one event wakes a few.",
	},
}
