package finding

// Live rules (SD7xx), detected in process by the live monitor and from a
// running service's /debug/pprof by `schedoctor check`.
var liveRules = []Rule{
	{
		ID: "SD701", Name: "goroutine-growth", Severity: Warning, Sources: []Source{SourceGoroutines, SourceLive, SourceCheck}, Status: Implemented,
		Title: "goroutines leak: parked forever on a channel, select or lock",
		Explanation: "A goroutine blocked forever keeps its stack and everything it references; the commonest case is a " +
			"goroutine sending its result on an unbuffered channel after its caller timed out and stopped receiving, " +
			"one per request, until memory runs out.",
		Detection: "`schedoctor goroutines` (goroutines package) groups a dump's goroutines by state, the first user frame " +
			"where they wait and the go statement that created them, and reports a group by three methods: the " +
			"goroutineleak profile (Go 1.26 with GOEXPERIMENT=goroutineleakprofile: the GC proved them unreachable, " +
			"any count); two dumps where a group waiting at a user frame in a channel, select or lock state grew by 10+ goroutines and 90%+ " +
			"of its first-dump goroutine IDs are still there (without IDs, debug=1 or proto, the group must also " +
			"double); one debug=2 dump with 10+ goroutines parked on a send, a nil channel or a sync.Mutex/RWMutex " +
			"for the window (default 10 minutes) or longer. IO wait, sleep and syscalls never count, and receives and " +
			"selects only by growth, so idle keep-alive connections and worker pools are not leaks. Measured: a " +
			"handler leaking one goroutine per timed-out request at 10/s grew 99 to 1298 in 120s; healthy servers " +
			"with 40 idle keep-alive connections and 64 idle workers for 2 minutes gave nothing.",
		Fix: "Give every goroutine a way to end: a buffered channel (make(chan T, 1)) for a result that may go unread, " +
			"a select with case <-ctx.Done(), closing the channel the workers range over, defer mu.Unlock().",
	},
	{
		ID: "SD702", Name: "live-sched-latency", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Planned,
		Title: "scheduling latency high in a running service",
		Explanation: "/sched/latencies:seconds is the time goroutines spent runnable before running (one transition in " +
			"eight is sampled).",
		Detection: "Deltas of the /sched/latencies histogram; a flight-recorder trace is saved when its p99 spikes.",
		Fix:       "See SD301: CPU saturation, GOMAXPROCS against CPUs, long CPU-bound work.",
	},
	{
		ID: "SD703", Name: "thread-growth", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Planned,
		Title: "OS thread count keeps growing",
		Explanation: "Blocking syscalls and cgo calls each hold a thread; threads are never released, and past " +
			"debug.SetMaxThreads (10000) the program dies.",
		Detection: "/sched/threads/total:threads (Go 1.26) or the threadcreate profile over time.",
		Fix:       "Bound concurrent blocking syscalls and cgo calls with a semaphore.",
	},
	{
		ID: "SD704", Name: "gc-cpu-share", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Planned,
		Title:       "GC pauses or GC CPU share high",
		Explanation: "GC CPU (/cpu/classes/gc/*) and stop-the-world pauses (/sched/pauses/total/gc) take time from requests.",
		Detection: "Deltas of /cpu/classes/gc/total:cpu-seconds against /cpu/classes/total (refreshed only at GC) and " +
			"/sched/pauses/total/gc:seconds percentiles.",
		Fix: "Allocate less, set GOMEMLIMIT and raise GOGC.",
	},
}
