package procs

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the constants the code compares with,
// never a copy: change a constant and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD401": {
			{Name: "GOMAXPROCS over the CPUs available (rounded up)", Value: overCritical, Unit: "×", Meaning: "critical; above 1× a warning"},
		},
		"SD404": {
			{Name: "CFS periods", Value: minPeriods, Meaning: "needed"},
			finding.Percent("periods throttled", throttledWarn, "warning"),
			finding.Percent("periods throttled", throttledCrit, "critical"),
		},
		"SD406": {
			finding.Percent("the threads' run-queue wait over wait plus run", waitShareWarn, "the process's own wait is judged"),
			finding.Percent("runnable time, as a share of the sampling window", minRunnableShare, "needed"),
			finding.Seconds("runnable time, from lifetime counters", minRunnableLifetime, "needed"),
			finding.Seconds("wait per timeslice", waitPerSliceWarn, "warning (the CPUs are short)"),
			{Name: "threads waiting on average over a window", Value: waitingThreadsWarn, Meaning: "warning (the CPUs are short); else wake-up latency, info"},
			{Name: "own cgroup's cpu.pressure some avg60", Value: pressureWarn, Unit: "%", Meaning: "warning; info when the process's own wait was measured below its threshold"},
		},
		"SD407": {
			finding.Percent("GOMEMLIMIT advised, of the memory limit", memLimitShare, "the fix's value"),
		},
	}
}
