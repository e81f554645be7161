package live

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog): the defaults of Options, as withDefaults fills them, and
// the constants the rules compare with, never a copy.
func RuleThresholds() map[string][]finding.Threshold {
	o, err := Options{}.withDefaults()
	if err != nil { // the zero Options are valid; a failure is a bug here
		return nil
	}
	return map[string][]finding.Threshold{
		"SD701": {
			finding.Duration("live monitor's window (Options.Window), cut into quarters", o.Window, "judged once half full"),
			{Name: "rise of the lowest waiting goroutines over the quarters (Options.GoroutineGrowth)", Value: float64(o.GoroutineGrowth), Meaning: "reported, with a quarter of the first low and a strict rise"},
		},
		"SD702": {
			finding.Duration("interval between readings of /sched/latencies (Options.Interval)", o.Interval, "the histogram is read this often"),
			finding.Duration("span judged (Options.LatencySpan)", o.LatencySpan, "the p99 is of the difference of two readings this far apart"),
			{Name: "sampled transitions in the span (Options.MinLatencySamples)", Value: float64(o.MinLatencySamples), Meaning: "needed"},
			finding.Duration("p99 scheduling latency, whole 95% interval above (Options.LatencyP99)", o.LatencyP99, "reported"),
			{Name: "interval's low end over that threshold", Value: latencyCritical, Unit: "×", Meaning: "critical"},
			{Name: "runnable goroutines per GOMAXPROCS at a reading (Options.RunnablePerP)", Value: o.RunnablePerP, Meaning: "a flight-recorder snapshot is taken"},
		},
		"SD703": {
			finding.Duration("live monitor's window (Options.Window), cut into quarters", o.Window, "judged once half full"),
			{Name: "rise of the lowest thread counts over the quarters (Options.ThreadGrowth)", Value: float64(o.ThreadGrowth), Meaning: "reported, with a quarter of the first low and a strict rise"},
		},
		"SD704": {
			finding.Percent("GC's share of the CPU the process used (Options.GCCPUShare)", o.GCCPUShare, "reported, over two GC cycles or more"),
			finding.Duration("p99 GC stop-the-world pause (Options.GCPauseP99)", o.GCPauseP99, "reported, over two pauses or more"),
		},
	}
}
