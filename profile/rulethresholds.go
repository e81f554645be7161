package profile

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog): DefaultThresholds and the constants the rules compare
// with, never a copy, so that changing a default changes the docs.
func RuleThresholds() map[string][]finding.Threshold {
	th := DefaultThresholds
	limit := func(l Limit) []finding.Threshold {
		return []finding.Threshold{
			{Name: "share of the profile's CPU", Value: l.Share, Unit: "%", Meaning: "reported"},
			{Name: "samples", Value: float64(th.MinSamples), Meaning: "needed"},
			{Name: "CPU", Value: l.Cores, Unit: "cores", Meaning: "warning from here, info below"},
			{Name: "share of the profile's CPU, at a whole core", Value: criticalShareTimes * l.Share, Unit: "%", Meaning: "critical"},
			{Name: "CPU, with that share", Value: criticalCores, Unit: "cores", Meaning: "needed for critical"},
		}
	}
	return map[string][]finding.Threshold{
		"SD201": append(limit(th.ThreadChurn),
			finding.Threshold{Name: "wake-ups driven by channel operations", Value: handoffDriverShare, Unit: "%", Meaning: "the park/wake cost is a hand-off's price: info"}),
		"SD202": limit(th.IdleSpin),
		"SD203": limit(th.Timers),
		"SD204": {
			{Name: "share of the profile's CPU in one frame family", Value: th.BusyWait.Share, Unit: "%", Meaning: "reported"},
			{Name: "samples", Value: float64(th.MinSamples), Meaning: "needed"},
			{Name: "parking, over the busy-wait share", Value: th.MaxParkRatio, Unit: "×", Meaning: "below it: no parking, a busy wait"},
			{Name: "CPU", Value: finding.SpinWarningCores, Unit: "cores", Meaning: "warning from here, info below"},
			{Name: "CPU (with the share below)", Value: finding.SpinCriticalCores, Unit: "cores", Meaning: "critical"},
			{Name: "share of the program's CPU", Value: finding.SpinCriticalShare, Unit: "%", Meaning: "critical, with the CPU above"},
			{Name: "channel communications that complete", Value: SelectCommShare, Unit: "%", Meaning: "at or above, source not read: selectgo is info"},
			{Name: "loop's CPU in the calls its lines make", Value: SpinWorkShare, Unit: "%", Meaning: "the loop works: no finding"},
		},
		"SD205": limit(th.RuntimeLock),
		"SD206": limit(th.Mutex),
		"SD207": limit(th.GC),
		"SD208": append(limit(th.Preempt),
			finding.Threshold{Name: "share in a single profile", Value: th.PreemptAlone, Unit: "%", Meaning: "warning; below, a warning needs several profiles each over the share above, else info"}),
		"SD209": append(limit(th.Syscall),
			finding.Threshold{Name: "syscall CPU through bufio, writev or io.Copy", Value: batchedEnough, Unit: "%", Meaning: "batched already: info, no advice to buffer"}),
	}
}
