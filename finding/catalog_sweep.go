package finding

// Sweep rules (SD5xx), produced by `schedoctor sweep` (package sweep).
var sweepRules = []Rule{
	{
		ID: "SD501", Name: "recommended-gomaxprocs", Severity: Info, Sources: []Source{SourceSweep}, Status: Planned,
		Title: "the GOMAXPROCS at the knee of measured throughput or latency",
		Explanation: "Beyond the parallelism a workload really has, more Ps add preemption, stealing and contention and no " +
			"throughput. The knee is the smallest GOMAXPROCS within a tolerance of the best measured result.",
		Detection: "The command run as a fresh process at each GOMAXPROCS, several times in interleaved order; medians " +
			"and confidence intervals per value; the smallest value within the tolerance (default 5%) of the best.",
		Fix: "Run with GOMAXPROCS at the knee, or give the workload only that many CPUs.",
	},
	{
		ID: "SD502", Name: "negative-scaling", Severity: Warning, Sources: []Source{SourceSweep}, Status: Planned,
		Title:       "throughput falls (or latency rises) as GOMAXPROCS grows",
		Explanation: "Lock contention, false sharing and cross-P handoffs can make more Ps slower than fewer.",
		Detection:   "A higher GOMAXPROCS whose result is worse than a lower one beyond both confidence intervals.",
		Fix:         "Find the contended resource (schedoctor profile, the mutex profile) and shard it; until then cap GOMAXPROCS.",
	},
}
