package busyselect

import (
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

// RuleThresholds are the numbers of the rule this analyzer reports, as the
// rule docs show them (internal/ruledocs joins them with the catalog),
// from the constant the loop judgement compares with.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		rule: {finding.Duration("constant sleep on the default's path", astutil.PollThreshold, "below it the default still spins; at or above it the loop waits")},
	}
}
