package sweep

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the defaults or constants the code
// compares with, never a copy: change one and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD501": {
			{Name: "runs per GOMAXPROCS value (-runs, DefaultRuns)", Value: DefaultRuns, Meaning: "the default"},
			finding.Percent("tolerance of the knee (-tolerance, DefaultTolerance)", DefaultTolerance, "the knee is the smallest value whose median is this close to the best"),
			{Name: "successful runs per value", Value: minRunsToCompare, Meaning: "needed to warn that the default is worse than the knee"},
			finding.Percent("other processes' CPU, of the CPUs", busyOtherShare, "above: disturbed, no recommendation"),
			finding.Percent("run-queue wait per P beyond the command's own", noisyCPUWait, "above: disturbed, no recommendation"),
		},
		"SD502": {
			{Name: "successful runs per value", Value: minRunsToCompare, Meaning: "needed for both values of the pair"},
			finding.Percent("the higher GOMAXPROCS's median worse than the lower's (-tolerance)", DefaultTolerance, "reported, with disjoint intervals"),
		},
	}
}
