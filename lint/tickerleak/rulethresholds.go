package tickerleak

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rule this analyzer reports, as the
// rule docs show them (internal/ruledocs joins them with the catalog),
// from the constant the analyzer compares with.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		rule: {finding.Duration("constant timeout of a timer left running", shortTimer, "below it: not reported")},
	}
}
