package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// ruleWakers is SD316: a waker (a line of the user's) that wakes many
// goroutines at once, again and again. One goroutine woken often is no
// burst (a burst ends when a goroutine it woke is woken again), and a
// burst of a few goroutines per P is the scheduler's everyday work: a
// burst is heavy from max(heavyBurstMin, heavyBurstProcs × GOMAXPROCS).
func ruleWakers(s *Summary, _ Options) []finding.Finding {
	var out []finding.Finding
	for _, w := range s.Wakers {
		if !reportedWaker(&w) {
			continue
		}
		sev := wakerSeverity(&w)
		f := finding.Finding{Rule: "SD316", Severity: sev,
			What: fmt.Sprintf("%s:%d (%s) woke %d goroutines at once (up to %d), %.0f times a second",
				shortFile(w.Location.File), w.Location.Line, w.How, w.HeavyMean, w.MaxBurst, w.HeavyPerS),
			Because: fmt.Sprintf("every wake-up queues behind the rest for the %d Ps: the goroutines it woke waited p99 %v, median %v, for a P",
				s.Procs.GOMAXPROCS, dur(w.Latency.P99), dur(w.Latency.P50)),
			Locations: []finding.Location{w.Location},
			Evidence: []finding.Evidence{
				evid("goroutines woken per heavy burst (mean)", float64(w.HeavyMean), "goroutines"),
				evid("largest burst", float64(w.MaxBurst), "goroutines"),
				evid("heavy bursts", float64(w.Heavy), "bursts"),
				evid("heavy bursts a second", w.HeavyPerS, "/s"),
				evid("wake-ups by this line", float64(w.Wakes), "wake-ups"),
				evid("p99 latency of the goroutines it woke", ms(w.Latency.P99), "ms"),
				evid("median latency of the goroutines it woke", ms(w.Latency.P50), "ms"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
			},
			Fix: wakerFix}
		for _, c := range s.SpikeCauses {
			if c.Kind == "woken" && c.Location == w.Location && c.How == w.How {
				f.Note(finding.NoteCause, fmt.Sprintf("the cause of %d latency spikes (SD315)", c.Spikes))
			}
		}
		out = append(out, f)
	}
	return out
}

// reportedWaker says whether SD316 reports w: heavy bursts again and
// again, at a line of the user's.
func reportedWaker(w *WakerSummary) bool {
	return w.Heavy >= heavyBurstRepeats && w.Location.File != "" && isUserFunc(w.Location.Function)
}

// wakerSeverity is SD316's severity for a reported waker: a warning when
// the goroutines it woke waited heavyWarnP99 or more at the p99.
func wakerSeverity(w *WakerSummary) finding.Severity {
	if w.Latency.P99 >= heavyWarnP99 {
		return finding.MustLookup("SD316").Severity
	}
	return finding.Info
}
