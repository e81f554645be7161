package finding

// Process and container rules (SD4xx), detected by `schedoctor procs`
// (package procs).
var procsRules = []Rule{
	{
		ID: "SD401", Name: "gomaxprocs-above-cpus", Severity: Critical, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "GOMAXPROCS is above the CPU quota or cpuset",
		Since: "2026-11-22",
		Explanation: "With more Ps than CPUs, runnable goroutines are spread over threads the kernel cannot run at once: " +
			"under a CFS quota the cgroup is throttled for the rest of each period, and goroutines stall while their P " +
			"is 'running'. Tail latency grows and throughput drops.",
		Detection: "The GOMAXPROCS the process runs with (read live from its memory with -pid when the binary has symbols, " +
			"else computed from its environment and Go version) above the tightest of the affinity mask, the cpuset " +
			"and every ancestor cgroup's quota, rounded up.",
		Details: "Critical at the multiple in the thresholds, a warning below it. The Go 1.25+ default's deliberate " +
			"minimum of 2 under a quota below 2 CPUs is not reported.",
		Fix: "Let Go 1.25+ pick it (go ≥ 1.25 in go.mod, GOMAXPROCS unset), or set GOMAXPROCS to the quota rounded up.",
	},
	{
		ID: "SD402", Name: "gomaxprocs-below-cpus", Severity: Warning, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title:       "GOMAXPROCS pinned below the CPUs available",
		Since:       "2026-11-22",
		Explanation: "A GOMAXPROCS below the CPUs the container may use leaves CPU unused while goroutines queue.",
		Detection: "The effective GOMAXPROCS below the CPUs available rounded down, when it comes from the GOMAXPROCS " +
			"variable, automaxprocs, or a runtime.GOMAXPROCS call (a live value that differs from the computed one), " +
			"not from the runtime's default.",
		Fix: "Remove the GOMAXPROCS setting, or raise it to the CPUs available.",
	},
	{
		ID: "SD403", Name: "container-default-off", Severity: Warning, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "the container-aware GOMAXPROCS default is off",
		Since: "2026-11-22",
		Explanation: "Go 1.25 made GOMAXPROCS follow the cgroup CPU limit, but only when the main module's go line is at " +
			"least 1.25 (GODEBUG containermaxprocs=0 and updatemaxprocs=0 otherwise), and not once GOMAXPROCS is set or " +
			"a library such as automaxprocs calls runtime.GOMAXPROCS.",
		Detection: "A leaf CPU quota that would lower the Go 1.25+ default below the affinity count, while that default is " +
			"off: a toolchain before 1.25, containermaxprocs=0 in the binary's DefaultGODEBUG or in GODEBUG, " +
			"automaxprocs linked, or GOMAXPROCS set to something else than the quota rounded up.",
		Details: "The go line, which binaries do not record, is inferred from the binary's DefaultGODEBUG.",
		Fix:     "Build with Go 1.25+ and go ≥ 1.25 in go.mod, drop automaxprocs, and leave GOMAXPROCS unset.",
	},
	{
		ID: "SD404", Name: "cfs-throttling", Severity: Warning, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "the cgroup is throttled by its CFS quota",
		Since: "2026-11-22",
		Explanation: "When a cgroup uses its quota before the period ends, all its threads stop until the next period " +
			"(100ms by default): a latency cliff that no profile shows.",
		Detection: "cpu.stat nr_throttled against nr_periods (cumulative since the cgroup was created), for the leaf and its " +
			"ancestors, once enough periods have passed; the worst level is reported.",
		Fix: "Match GOMAXPROCS to the quota, raise the limit, or remove the CPU limit and keep the request.",
	},
	{
		ID: "SD405", Name: "parent-limit-tighter", Severity: Warning, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "a parent cgroup's CPU limit is tighter than the leaf's",
		Since: "2026-11-22",
		Explanation: "The runtime (and automaxprocs) read only the leaf cgroup's quota; a tighter limit on an ancestor " +
			"(a pod or slice limit) is missed and GOMAXPROCS ends up too high.",
		Detection: "cpu.max (v2) or cfs_quota_us/cfs_period_us (v1) of every ancestor up to the mount root (inside a " +
			"private cgroup namespace, the namespace root): reported when an ancestor's limit, rounded up, is below the " +
			"default the leaf gives.",
		Fix: "Set GOMAXPROCS to the tightest limit rounded up, or put the limit on the leaf.",
	},
	{
		ID: "SD406", Name: "cpu-pressure", Severity: Warning, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "the process waits for a CPU (its own run-queue wait and its cgroup's pressure)",
		Since: "2026-11-22",
		Explanation: "Field 2 of /proc/PID/task/*/schedstat is the time each thread was runnable but waited for a CPU; " +
			"its own cgroup's cpu.pressure some avg60 is the share of time at least one of the cgroup's tasks waited. " +
			"Either one, sustained, means run-queue delay outside Go's control. The host's /proc/pressure/cpu is not " +
			"the process's: on a busy machine a process with CPU to spare waits 0 ns (measured here: host pressure " +
			"94% while a loopback server's threads waited 0 ms in 1 s), so it is shown as context only.",
		Detection: "With -pid, the share of its runnable time the process's threads waited for a CPU (schedstat), counted as " +
			"pressure when the CPUs were short, not wake-up latency; else its own cgroup's cpu.pressure. The host's " +
			"pressure alone never fires.",
		Details: "The threads' run-queue wait over the wait plus the time on a CPU, sampled over -window (see `schedoctor procs -h`) on " +
			"the live system or from the lifetime counters under -sysroot, with enough runnable time to judge, and " +
			"the CPUs short: a long wait per timeslice (field 2 over field 3, the times a thread was put on a CPU) " +
			"or, over a window, enough threads waiting on average: a warning. A large share of short waits is wake-up " +
			"latency, not pressure: a thread that blocks and wakes thousands of times a second waits 20-25 µs per " +
			"wake-up even on an idle machine (measured: nats-server, 47-62% of its runnable time, 0.13-0.17 threads " +
			"waiting, CPUs 79% idle), reported at info with the figures. Else the leaf cgroup's own cpu.pressure (v2, " +
			"or the unified hierarchy's leaf in hybrid layouts) some avg60: a warning, or info when the process's own " +
			"wait was measured under its threshold (the pressure falls on its neighbours) or as wake-up latency. A " +
			"cgroup file equal to /proc/pressure/cpu (the hierarchy's root) counts as the host's. The report notes " +
			"when only host-wide pressure was available.",
		Fix: "Give the workload more CPU, or reduce what shares the CPUs with it; when only its cgroup neighbours wait, " +
			"or the wait is the latency of many short wake-ups, more CPU does not help (batch work per wake-up instead).",
	},
	{
		ID: "SD407", Name: "no-gomemlimit", Severity: Info, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyMemory,
		Title: "no GOMEMLIMIT under a memory limit",
		Since: "2026-11-22",
		Explanation: "Without GOMEMLIMIT the GC paces only by GOGC; near the container's memory limit the process is " +
			"OOM-killed instead of collecting harder.",
		Detection: "The tightest memory.max (v2) or memory.limit_in_bytes (v1) over the memory cgroup's levels, and " +
			"GOMEMLIMIT unset in the process's environment (a Go target, or none given).",
		Fix: "Set GOMEMLIMIT to about 90% of the memory limit.",
	},
	{
		ID: "SD408", Name: "old-runtime", Severity: Info, Sources: []Source{SourceProcs}, Status: Implemented, Family: FamilyRuntime,
		Title: "an old Go runtime that misses scheduler fixes",
		Since: "2026-11-22",
		Explanation: "Async preemption arrived in 1.14, the timer rewrite in 1.14 and 1.23, container-aware GOMAXPROCS in " +
			"1.25; a binary built with an older toolchain lacks them.",
		Detection: "The toolchain version recorded in the binary (debug/buildinfo) before go1.25.",
		Fix:       "Rebuild with a current Go release.",
	},
}
