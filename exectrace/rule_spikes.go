package exectrace

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// ruleSpikes is SD315: the spike windows grouped by their dominant cause,
// one finding per cause with a line of the user's to change (a go
// statement, a waker, the goroutines that held the Ps). Spikes of no such
// cause (mixed, the GC, the runtime's timers) stay in the summary.
func ruleSpikes(s *Summary, _ Options) []finding.Finding {
	var out []finding.Finding
	for _, c := range s.SpikeCauses {
		loc, ok := spikeCauseLoc(c.SpikeCauseKey)
		if !ok {
			continue
		}
		sev := finding.Info
		if c.P99 >= spikeWarnP99 && (c.Spikes >= spikeMinRepeats || c.Duration >= spikeLongSpike) {
			sev = finding.MustLookup("SD315").Severity
		}
		when := fmt.Sprintf("%d latency spikes (p99 %v, up to %v), every %v", c.Spikes, dur(c.P99), dur(c.P99Max), dur(c.Every))
		if c.Spikes == 1 {
			when = fmt.Sprintf("a latency spike at %v (p99 %v over %v)", c.First.Round(time.Millisecond), dur(c.P99), c.Duration.Round(time.Millisecond))
		}
		each := "each "
		if c.Spikes == 1 {
			each = ""
		}
		var what, why, fix string
		where := fmt.Sprintf("%s:%d", shortFile(loc.File), loc.Line)
		switch c.Kind {
		case "created":
			what = fmt.Sprintf("%s, %sa burst of %d goroutines created at %s", when, each, c.Burst, where)
			why = fmt.Sprintf("the go statement starts more goroutines at once than the %d Ps can run: they queue behind each other, and whatever wakes meanwhile queues behind them (%.0f%% of the time spent runnable in the spikes was theirs)",
				s.Procs.GOMAXPROCS, 100*c.Share)
			fix = "Create the goroutines once (a pool of GOMAXPROCS workers fed by a channel) or bound the fan-out (a semaphore, errgroup's SetLimit), so a burst of work waits in a queue you own, not in the run queues."
		case "woken":
			what = fmt.Sprintf("%s, %s%d goroutines woken by %s at %s", when, each, c.Burst, c.How, where)
			why = fmt.Sprintf("one waker makes more goroutines runnable at once than the %d Ps can run: every wake-up queues behind the rest (%.0f%% of the time spent runnable in the spikes was theirs)",
				s.Procs.GOMAXPROCS, 100*c.Share)
			fix = wakerFix
		case "preempted":
			what = fmt.Sprintf("%s, while goroutines of %s held the Ps until preempted", when, c.Function)
			why = fmt.Sprintf("goroutines created at %s ran without blocking and held the Ps: the others queued behind them (%.0f%% of the time spent runnable in the spikes was the preempted ones')",
				where, 100*c.Share)
			fix = "Split the CPU-bound work into smaller pieces or run it on fewer goroutines (a pool smaller than GOMAXPROCS), so latency-sensitive goroutines find a P."
		}
		f := finding.Finding{Rule: "SD315", Severity: sev, What: what, Because: why, Fix: fix,
			Locations: userLocs([]finding.Location{loc}),
			Evidence: []finding.Evidence{
				evid("spikes", float64(c.Spikes), "spikes"),
				evid("p99 latency in a spike (median of the spikes)", ms(c.P99), "ms"),
				evid("p99 latency in the worst spike", ms(c.P99Max), "ms"),
				evid("time between spikes (mean)", ms(c.Every), "ms"),
				evid("goroutines made runnable by the cause, per spike (mean)", float64(c.Burst), "goroutines"),
				evid("runnable goroutines at the peak", float64(c.RunnablePeak), "goroutines"),
				evid("cause's share of the time spent runnable in the spikes", round2(100*c.Share), "%"),
				evid("p99 latency of the trace's baseline window (first quartile)", ms(s.SpikeWindows.BaselineP99), "ms"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
			}}
		f.Note(finding.NoteLink, spikeTimes(s, c.SpikeCauseKey))
		out = append(out, f)
	}
	return out
}

// spikeCauseLoc is the user's line a spike cause points at, if any.
func spikeCauseLoc(c SpikeCauseKey) (finding.Location, bool) {
	switch c.Kind {
	case "created", "preempted":
		// the go statement; for "preempted", of the goroutines that ran
		if c.Kind == "preempted" && !isUserFunc(c.Function) {
			return finding.Location{}, false
		}
		return c.Location, c.Location.File != "" && isUserFunc(c.Location.Function)
	case "woken":
		return c.Location, c.Location.File != "" && isUserFunc(c.Location.Function)
	}
	return finding.Location{}, false
}

// spikeTimes lists when the first spikes of one cause were, for a note.
func spikeTimes(s *Summary, c SpikeCauseKey) string {
	var at []string
	n := 0
	for _, sp := range s.Spikes {
		if sp.Cause.Kind != c.Kind || sp.Cause.Location != c.Location || sp.Cause.Function != c.Function || sp.Cause.How != c.How {
			continue
		}
		n++
		if len(at) < 5 {
			at = append(at, sp.String())
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(at) {
		more = fmt.Sprintf(" and %d more", n-len(at))
	}
	return "spikes at " + strings.Join(at, ", ") + more + " (the summary's spike windows)"
}

// wakerFix is the advice for a waker that wakes many goroutines at once.
const wakerFix = "Wake only as many goroutines as there is work for: hand the work to a pool of GOMAXPROCS workers over a channel instead of broadcasting to every waiter, or shard the waiters so that one event wakes a few; when every waiter must see the event, let it do less before it blocks again."
