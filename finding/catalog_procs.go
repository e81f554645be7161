package finding

// Process and container rules (SD4xx), detected by `schedoctor procs`
// (package procs).
var procsRules = []Rule{
	{
		ID: "SD401", Name: "gomaxprocs-above-cpus", Severity: Critical, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "GOMAXPROCS is above the CPU quota or cpuset",
		Explanation: "With more Ps than CPUs, runnable goroutines are spread over threads the kernel cannot run at once: " +
			"under a CFS quota the cgroup is throttled for the rest of each period, and goroutines stall while their P " +
			"is 'running'. Tail latency grows and throughput drops.",
		Detection: "The GOMAXPROCS the process runs with (live, from its environment, or computed from its Go version's " +
			"rules) against the tightest of: affinity, cpuset, and every ancestor cgroup's CPU quota.",
		Fix: "Let Go 1.25+ pick it (go ≥ 1.25 in go.mod, GOMAXPROCS unset), or set GOMAXPROCS to the quota rounded up.",
	},
	{
		ID: "SD402", Name: "gomaxprocs-below-cpus", Severity: Warning, Sources: []Source{SourceProcs}, Status: Planned,
		Title:       "GOMAXPROCS pinned below the CPUs available",
		Explanation: "A GOMAXPROCS below the CPUs the container may use leaves CPU unused while goroutines queue.",
		Detection: "The effective GOMAXPROCS against the CPUs available, when it comes from the environment or a " +
			"library call rather than the runtime's default.",
		Fix: "Remove the GOMAXPROCS setting, or raise it to the CPUs available.",
	},
	{
		ID: "SD403", Name: "container-default-off", Severity: Warning, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "the container-aware GOMAXPROCS default is off",
		Explanation: "Go 1.25 made GOMAXPROCS follow the cgroup CPU limit, but only when the main module's go line is at " +
			"least 1.25 (GODEBUG containermaxprocs=0 and updatemaxprocs=0 otherwise), and not once GOMAXPROCS is set or " +
			"a library such as automaxprocs calls runtime.GOMAXPROCS.",
		Detection: "The binary's Go version, go line and DefaultGODEBUG (debug/buildinfo), its GODEBUG and GOMAXPROCS " +
			"environment, and whether it links go.uber.org/automaxprocs, under a CPU limit.",
		Fix: "Build with Go 1.25+ and go ≥ 1.25 in go.mod, drop automaxprocs, and leave GOMAXPROCS unset.",
	},
	{
		ID: "SD404", Name: "cfs-throttling", Severity: Warning, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "the cgroup is throttled by its CFS quota",
		Explanation: "When a cgroup uses its quota before the period ends, all its threads stop until the next period " +
			"(100ms by default): a latency cliff that no profile shows.",
		Detection: "cpu.stat nr_throttled against nr_periods, and throttled time, for the leaf and its ancestors.",
		Fix:       "Match GOMAXPROCS to the quota, raise the limit, or remove the CPU limit and keep the request.",
	},
	{
		ID: "SD405", Name: "parent-limit-tighter", Severity: Warning, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "a parent cgroup's CPU limit is tighter than the leaf's",
		Explanation: "The runtime (and automaxprocs) read only the leaf cgroup's quota; a tighter limit on an ancestor " +
			"(a pod or slice limit) is missed and GOMAXPROCS ends up too high.",
		Detection: "cpu.max (v2) or cfs_quota_us/cfs_period_us (v1) of every ancestor up to the mount root.",
		Fix:       "Set GOMAXPROCS to the tightest limit rounded up, or put the limit on the leaf.",
	},
	{
		ID: "SD406", Name: "cpu-pressure", Severity: Warning, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "tasks wait for CPU (pressure stall information)",
		Explanation: "cpu.pressure's some avg10/avg60 is the share of time at least one task waited for a CPU; sustained " +
			"pressure means run-queue delay outside Go's control.",
		Detection: "cpu.pressure of the cgroup (or /proc/pressure/cpu) above a threshold.",
		Fix:       "Give the workload more CPU, or reduce what shares the CPUs with it.",
	},
	{
		ID: "SD407", Name: "no-gomemlimit", Severity: Info, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "no GOMEMLIMIT under a memory limit",
		Explanation: "Without GOMEMLIMIT the GC paces only by GOGC; near the container's memory limit the process is " +
			"OOM-killed instead of collecting harder.",
		Detection: "memory.max (v2) or memory.limit_in_bytes (v1) set, and GOMEMLIMIT unset in the environment.",
		Fix:       "Set GOMEMLIMIT to about 90% of the memory limit.",
	},
	{
		ID: "SD408", Name: "old-runtime", Severity: Info, Sources: []Source{SourceProcs}, Status: Planned,
		Title: "an old Go runtime that misses scheduler fixes",
		Explanation: "Async preemption arrived in 1.14, the timer rewrite in 1.14 and 1.23, container-aware GOMAXPROCS in " +
			"1.25; a binary built with an older toolchain lacks them.",
		Detection: "The Go version recorded in the binary (debug/buildinfo).",
		Fix:       "Rebuild with a current Go release.",
	},
}
