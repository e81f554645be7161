package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// shortSleepChurn is SD307: one site sleeps back to back for tiny
// durations.
func shortSleepChurn(r *ruleCtx) {
	s, secs := r.s, r.secs
	for _, sl := range s.Sleeps {
		perS := float64(sl.Repeats) / secs
		if !shortPoll(sl, perS) {
			continue
		}
		r.add("SD307", finding.MustLookup("SD307").Severity,
			fmt.Sprintf("%.0f sleeps/s from one call site, %d of %d back to back from the same goroutine, median %v",
				sl.PerS, sl.Repeats, sl.Count, dur(sl.Slept.P50)), "the goroutine polls with a short sleep",
			[]finding.Location{sl.Location},
			[]finding.Evidence{
				evid("sleeps", sl.PerS, "/s"),
				evid("back-to-back sleeps", float64(sl.Repeats), "sleeps"),
				evid("median time asleep", us(sl.Slept.P50), "µs"),
			},
			finding.MustLookup("SD307").Fix)
	}
}

// shortPoll is SD307's gate: one site sleeps back to back, often, and
// briefly.
func shortPoll(sl SleepSummary, perS float64) bool {
	return sl.Repeats >= sleepRepeats && perS >= sleepRepeatsPerS && sl.Slept.P50 <= sleepShort && isUserFunc(sl.Location.Function)
}
