package schedtrace

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the constants the code compares with,
// never a copy: change a constant and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD302": {
			finding.Percent("ticks with a goroutine queued per P behind the one running", backlogShare, "reported"),
			{Name: "such ticks", Value: backlogMinTicks, Meaning: "needed"},
			finding.Seconds("estimated run-queue wait (queued per P × time per start)", backlogWarnWait, "warning; info below"),
		},
		"SD310": {
			finding.Percent("ticks with spinning threads and nothing queued", spinShare, "reported"),
			{Name: "such ticks", Value: spinMinTicks, Meaning: "needed"},
		},
		"SD311": {
			finding.Percent("ticks with an idle P beside a queued goroutine", idleQueuedShare, "reported (info)"),
			{Name: "such ticks", Value: idleQueuedMinTicks, Meaning: "needed"},
			{Name: "median goroutines queued at those ticks", Value: idleQueuedWarnQueued, Meaning: "warning"},
			finding.Percent("or share of all ticks", idleQueuedWarnShare, "warning"),
		},
		"SD312": {
			{Name: "ticks", Value: threadMinTicks, Meaning: "needed"},
			{Name: "threads added since the first quarter's highest (or GOMAXPROCS, if more)", Value: threadMinGrowth, Meaning: "needed"},
			{Name: "last count over the first quarter's highest", Value: threadGrowthRatio, Unit: "×", Meaning: "reported, when still rising in the last quarter"},
		},
		"SD313": {
			{Name: "goroutine starts per second per P", Value: churnRate, Unit: "/s", Meaning: "reported (always info)"},
			finding.Percent("Ps idle", churnIdleShare, "at least, for SD313"),
			finding.Percent("intervals showing it", rateShare, "needed"),
			{Name: "such intervals", Value: rateMinIntervals, Meaning: "needed"},
		},
		"SD314": {
			{Name: "goroutine starts per second per P", Value: stormRate, Unit: "/s", Meaning: "reported"},
			finding.Percent("Ps idle", churnIdleShare, "fewer than, for SD314"),
			finding.Percent("intervals showing it", rateShare, "needed"),
			{Name: "such intervals", Value: rateMinIntervals, Meaning: "needed"},
		},
	}
}
