package contention

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the defaults the code compares with,
// never a copy: change one and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD309": {
			{Name: "waiters on average at one site of a mutex or block profile", Value: DefaultMinWaiters, Meaning: "reported (DefaultMinWaiters)"},
			{Name: "contentions at that site", Value: DefaultMinContentions, Meaning: "needed (DefaultMinContentions)"},
		},
	}
}
