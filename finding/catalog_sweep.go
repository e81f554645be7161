package finding

// Sweep rules (SD5xx), produced by `schedoctor sweep` (package sweep).
var sweepRules = []Rule{
	{
		ID: "SD501", Name: "recommended-gomaxprocs", Severity: Info, Sources: []Source{SourceSweep}, Status: Implemented, Family: FamilyCPUQuota,
		Title: "the GOMAXPROCS at the knee of measured throughput or latency",
		Since: "2026-11-22",
		Explanation: "Beyond the parallelism a workload really has, more Ps add preemption, stealing and contention and no " +
			"throughput. The knee is the smallest GOMAXPROCS within a tolerance of the best measured result.",
		Detection: "The command runs as a fresh process at each GOMAXPROCS, several times in a shuffled interleaved order; " +
			"the knee is the smallest value whose median is within a tolerance of the best. Info; a warning when the " +
			"default is measurably worse; withheld when the runs were disturbed or the knee is unclear.",
		Details: "Defaults: GOMAXPROCS 1..CPUs and 2×CPUs, -runs runs each, the order shuffled with a reported seed. The " +
			"metric is the first -metric, else p99 latency under -load, else the first go test -bench value, else " +
			"wall time. Per value: the median and its order-statistic confidence interval (nominal 95%, from the " +
			"Binomial(n, 1/2) law; with 5 runs it is [min, max] at 93.8%). Raised to warning when the default, " +
			"GOMAXPROCS = CPUs, was swept and is worse than the knee beyond both intervals and the tolerance, with " +
			"enough runs each. The disturbance is measured at every value: the CPU other processes used during the " +
			"runs (/proc/stat's busy time less the command's and schedoctor's own) and the command's run-queue wait " +
			"per P beyond what it makes itself with more Ps than CPUs (1 - CPUs/GOMAXPROCS). No GOMAXPROCS is " +
			"recommended (info, the figure named) when any value is disturbed, when the knee's interval overlaps the " +
			"next lower value's (\"no clear knee\"), or when the knee is above the CPUs available.",
		Fix: "Run with GOMAXPROCS at the knee (never more than the CPUs), or give the workload only that many CPUs; " +
			"when the recommendation is withheld, sweep again on a quiet machine or with more -runs.",
		Effect: "Measured here (2 CPUs, lab program cpubound, 3 runs each at a quiet moment): 11.8 million hashes/s at " +
			"GOMAXPROCS=1, 22.8 million at 2, 23.5 million at 4: the knee is 2, and 4 buys 3% (docs/sweep.md).",
	},
	{
		ID: "SD502", Name: "negative-scaling", Severity: Warning, Sources: []Source{SourceSweep}, Status: Implemented, Family: FamilyCPUQuota,
		Title:       "throughput falls (or latency rises) as GOMAXPROCS grows",
		Since:       "2026-11-22",
		Explanation: "Lock contention, false sharing and cross-P handoffs can make more Ps slower than fewer.",
		Detection: "A pair of swept values, each with enough successful runs, where the higher GOMAXPROCS's median is worse " +
			"than the lower one's by more than the tolerance and the two confidence intervals of the medians do not " +
			"overlap.",
		Details: "With 5 runs the intervals are [min, max]: two disjoint ranges from one distribution happen 1 time in 252 " +
			"in a given direction. The worst pair is reported, with the count of all such pairs. Downgraded to info, " +
			"with the figure, when either value's runs were disturbed.",
		Fix: "Find the contended resource (schedoctor profile, the mutex profile) and shard it; until then cap GOMAXPROCS.",
	},
}
