package goroutines

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the defaults or constants the code
// compares with, never a copy: change one and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD701": {
			{Name: "goroutines at one place (one dump), or added there (two dumps)", Value: DefaultMinGroup, Meaning: "reported (DefaultMinGroup)"},
			finding.Percent("first-dump goroutine IDs still there", minPersisted, "needed with two dumps"),
			{Name: "growth of the group, when the dumps carry no IDs", Value: noIDGrowth, Unit: "×", Meaning: "needed instead"},
			finding.Duration("time parked on a send, a nil channel or a lock (one debug=2 dump)", DefaultWindow, "reported (DefaultWindow)"),
		},
	}
}
