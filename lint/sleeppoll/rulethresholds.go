package sleeppoll

import (
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

// RuleThresholds are the numbers of the rule this analyzer reports, as the
// rule docs show them (internal/ruledocs joins them with the catalog),
// from the constant the analyzer compares with.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		rule: {finding.Duration("sleep duration (a constant, or a variable only given constants)", astutil.PollThreshold, "above 0 and below it: reported")},
	}
}
