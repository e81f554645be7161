package finding

// Live rules (SD7xx), detected in process by the live monitor and from a
// running service's /debug/pprof by `schedoctor check`.
var liveRules = []Rule{
	{
		ID: "SD701", Name: "goroutine-growth", Severity: Warning, Sources: []Source{SourceGoroutines, SourceLive, SourceCheck}, Status: Implemented, Family: FamilyLeak,
		Title: "goroutines leak: parked forever on a channel, select or lock",
		Since: "2026-11-22",
		Explanation: "A goroutine blocked forever keeps its stack and everything it references; the commonest case is a " +
			"goroutine sending its result on an unbuffered channel after its caller timed out and stopped receiving, " +
			"one per request, until memory runs out.",
		Detection: "`schedoctor goroutines` groups a dump's goroutines by state, waiting frame and creating go statement, " +
			"and reports a group the leak profile proves unreachable, that grows between two dumps, or that stays " +
			"parked on a send, nil channel or lock; the live monitor reports waiting goroutines rising over its " +
			"window.",
		Details: "Three methods from dumps: the goroutineleak profile (Go 1.26 with GOEXPERIMENT=goroutineleakprofile: the " +
			"GC proved them unreachable, any count); two dumps where a group waiting at a user frame in a channel, " +
			"select or lock state grew and most of its first-dump goroutine IDs are still there (without IDs, debug=1 " +
			"or proto, the group must also grow by the factor in the thresholds); one debug=2 dump with goroutines " +
			"parked on a send, a nil channel or a sync.Mutex/RWMutex for the window or longer. IO wait, sleep and " +
			"syscalls never count, and receives and selects only by growth, so idle keep-alive connections and worker " +
			"pools are not leaks. Measured: a handler leaking one goroutine per timed-out request at 10/s grew 99 to " +
			"1298 in 120s; healthy servers with 40 idle keep-alive connections and 64 idle workers for 2 minutes gave " +
			"nothing.\n\nThe live monitor, which has counts but no stacks, cuts its window into quarters and reports " +
			"when the lowest /sched/goroutines/waiting:goroutines of each quarter rises strictly, by the growth " +
			"threshold and a quarter of the first low in all: load bursts that drain and a pool that grew once to a " +
			"plateau are not growth (tested close negatives); the finding has no location and tells how to get one.",
		Fix: "Give every goroutine a way to end: a buffered channel (make(chan T, 1)) for a result that may go unread, " +
			"a select with case <-ctx.Done(), closing the channel the workers range over, defer mu.Unlock().",
	},
	{
		ID: "SD702", Name: "live-sched-latency", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Implemented, Family: FamilyLatency,
		Title: "scheduling latency high in a running service",
		Since: "2026-11-22",
		Explanation: "/sched/latencies:seconds is the time goroutines spent runnable before a P ran them. The runtime " +
			"samples one transition in eight, and its histogram's buckets are a quarter of a power of two wide, so a " +
			"p99 from a few hundred samples is uncertain by a bucket or more. High scheduling latency delays every " +
			"request: more runnable goroutines than Ps, GC stop-the-world pauses, or Ps whose threads the host does " +
			"not run (a CPU quota below GOMAXPROCS, throttling).",
		Detection: "The live monitor's /sched/latencies histogram over a recent span: reported when the span holds enough " +
			"sampled transitions and the whole 95% confidence interval of the p99 lies above the threshold; the " +
			"because is computed from the Ps' queues and GC pauses.",
		Details: "The difference of two readings the span apart; the runtime samples one transition in eight, so the " +
			"sampled transitions needed stand for about eight times as many scheduled. The interval is the order statistics at ranks n·0.99 ± " +
			"1.96·√(n·0.99·0.01), widened to their buckets' bounds; critical when its low end is a multiple of the " +
			"threshold (see the thresholds). A p99 in the histogram's open top bucket is given as \"at least\" its " +
			"lower bound. The because: runnable goroutines per P averaged over the span (one or more: more work than " +
			"Ps), else the GC pauses' p99 (at least half the threshold), else short bursts or a host that does not " +
			"run the Ps. The same condition triggers a flight-recorder snapshot, whose trace analysis " +
			"(SD301/SD302/SD308) names the goroutines and lines; when that snapshot was taken within the span, the " +
			"finding names it and carries its user lines, with sources live and trace. Close negatives tested: a high " +
			"p99 from too few samples, a tail thinner than 1%, an interval that reaches below the threshold.",
		Fix: "Open the snapshot with `schedoctor trace FILE`: it names whose goroutines queued. Then: fix a spin " +
			"(SD101/SD308), bound the goroutines doing CPU work to GOMAXPROCS, set GOMAXPROCS to the CPUs really " +
			"available (SD401), or add CPU.",
	},
	{
		ID: "SD703", Name: "thread-growth", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Implemented, Family: FamilyThreads,
		Title: "OS thread count keeps growing",
		Since: "2026-11-22",
		Explanation: "Blocking syscalls and cgo calls each hold a thread; threads are never released, and past " +
			"debug.SetMaxThreads (10000) the program dies.",
		Detection: "The live monitor cuts its window into four quarters and takes the lowest /sched/threads/total:threads " +
			"(Go 1.26) of each; it reports when the four lows rise strictly, by the growth threshold and a quarter of " +
			"the first low in all.",
		Details: "Lows ignore bursts; four rising lows rule out a pool that grew once to a plateau (tested close negative, " +
			"as are a steady count and a single step). The evidence adds goroutines not in Go (in syscalls or cgo) " +
			"now.",
		Fix: "Bound concurrent blocking syscalls and cgo calls with a semaphore; use the netpoller (net, os " +
			"pipes and files opened non-blocking) rather than blocking reads on raw descriptors.",
	},
	{
		ID: "SD704", Name: "gc-cpu-share", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Implemented, Family: FamilyGC,
		Title:       "GC pauses or GC CPU share high",
		Since:       "2026-11-22",
		Explanation: "GC CPU (/cpu/classes/gc/*) and stop-the-world pauses (/sched/pauses/total/gc) take time from requests.",
		Detection: "Over the live monitor's window, with at least two GC cycles: GC's share of the CPU the process used, or " +
			"the p99 of GC stop-the-world pauses; the because names slow stopping, forced cycles or the allocation " +
			"rate.",
		Details: "GC's share is Δ/cpu/classes/gc/total over Δ(/cpu/classes/total − /cpu/classes/idle) (the runtime " +
			"refreshes /cpu/classes only at GC, so the span is between GCs); the pause p99 is of " +
			"/sched/pauses/total/gc differences, two pauses or more. The because, for long pauses: the time to stop " +
			"the world (/sched/pauses/stopping/gc p99 at least half the pause: goroutines slow to reach a preemption " +
			"point, or threads the host did not run) or the pause's own work; for GC CPU: the forced cycles " +
			"(/gc/cycles/forced) when they are half or more, else the allocation rate (/gc/heap/allocs). Close " +
			"negatives tested: 3% GC CPU with short pauses, no GC in the window.",
		Fix: "Allocate less (reuse buffers, sync.Pool for short-lived objects, fewer pointers), set GOMEMLIMIT and " +
			"raise GOGC; remove runtime.GC and debug.FreeOSMemory calls from request paths.",
	},
}
