package finding

// Live rules (SD7xx), detected in process by the live monitor and from a
// running service's /debug/pprof by `schedoctor check`.
var liveRules = []Rule{
	{
		ID: "SD701", Name: "goroutine-growth", Severity: Warning, Sources: []Source{SourceLive, SourceCheck}, Status: Planned,
		Title:       "the goroutine count keeps growing (a leak)",
		Explanation: "Goroutines blocked forever keep their stacks and everything they reference.",
		Detection: "/sched/goroutines:goroutines sampled over time with a sustained upward trend; the goroutine profile " +
			"grouped by stack names where they wait.",
		Fix: "Give every goroutine a way to end (context cancellation, closing its channel).",
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
