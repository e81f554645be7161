package exectrace

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// gcPauses is SD306: stop-the-world and assists, told apart from
// collections forced by runtime.GC calls; longPauses reports the longest
// pauses as tail stalls.
func gcPauses(r *ruleCtx) {
	s, secs := r.s, r.secs
	forcedPct := 0.0
	if s.GC.STW.Total > 0 {
		forcedPct = 100 * float64(s.GC.STWForced) / float64(s.GC.STW.Total)
	}
	// The share without the long pauses: when a few tail pauses (a
	// descheduled thread, usually) make the share, they are reported as
	// the tail below, not as allocation.
	stwSteady := s.GC.STWPct
	if s.Trace.Duration > 0 {
		var long time.Duration
		for _, x := range longStalls(s.GC.STWLongest, stwLong) {
			long += x.Duration
		}
		stwSteady = 100 * float64(max(s.GC.STW.Total-long, 0)) / float64(s.Trace.Duration)
		if s.GC.STW.Total == 0 {
			stwSteady = s.GC.STWPct // a summary without totals (tests): take the share as is
		}
	}
	if stwSteady >= stwPct || s.GC.AssistPct >= assistPct {
		var locs []finding.Location
		ev := []finding.Evidence{
			evid("stop-the-world share of the time", s.GC.STWPct, "%"),
			evid("stop-the-world pauses", float64(s.GC.STW.Count), "pauses"),
			evid("longest pause", ms(s.GC.STW.Max), "ms"),
			evid("mark assist share of the Ps' time", s.GC.AssistPct, "%"),
			evid("GC cycles per second", round2(float64(s.GC.Cycles)/secs), "/s"),
			evid("forced collections (runtime.GC)", float64(s.GC.ForcedCycles), "cycles"),
			evid("stop-the-world time in forced collections", round2(forcedPct), "%"),
		}
		if forcedPct >= 50 && s.GC.AssistPct < assistPct {
			sev, by := finding.MustLookup("SD306").Severity, forcedCaller(s)
			if len(s.GC.ForcedBy) == 0 || !isUserFunc(s.GC.ForcedBy[0].Location.Function) {
				sev = finding.Info // the harness or the runtime forced them: nothing for the user to change
			} else {
				locs = append(locs, s.GC.ForcedBy[0].Location)
			}
			r.add("SD306", sev,
				fmt.Sprintf("%.1f%% of the time stopped the world", s.GC.STWPct),
				fmt.Sprintf("runtime.GC was called %d times (%s): %.0f%% of the pause time is in forced collections, not allocation",
					s.GC.ForcedCycles, by, forcedPct),
				locs, ev, "Remove the runtime.GC calls from the hot path (the runtime collects on its own); in benchmarks, the testing harness's forced GCs are not the code's cost.")
		} else {
			for _, l := range first(s.GC.AssistBy, 3) {
				if l.Location.File != "" {
					locs = append(locs, l.Location)
				}
			}
			r.add("SD306", finding.MustLookup("SD306").Severity,
				fmt.Sprintf("%.1f%% of the time stopped the world and %.1f%% of the Ps' time went to mark assists", s.GC.STWPct, s.GC.AssistPct),
				fmt.Sprintf("the program allocates fast enough to keep the GC running (%d cycles in %v, %d forced)",
					s.GC.Cycles, s.Trace.Duration.Round(time.Millisecond), s.GC.ForcedCycles),
				locs, ev, finding.MustLookup("SD306").Fix)
		}
	}
}

// longPauses is SD306's second finding: long pauses are tail stalls of
// their own, reported at info: on a loaded host they happen to healthy
// programs too (docs/trace.md).
func longPauses(r *ruleCtx) {
	s, host := r.s, r.host
	withheld := host != ""
	if long := longStalls(s.GC.STWLongest, stwLong); len(long) > 0 {
		why := "the world stayed stopped that long"
		fix := "Look at what stops the world then (the reason of each pause): a pause this long means the threads could not be stopped quickly (a loop without preemption points) or were descheduled by the host; schedoctor procs tells the latter."
		switch {
		case withheld:
			why, fix = host, hostFix
		case allForced(long):
			why, fix = "runtime.GC was called then", "Remove the runtime.GC calls from latency-sensitive paths."
		}
		var locs []finding.Location
		for _, x := range long {
			if isUserFunc(x.Location.Function) {
				locs = append(locs, x.Location)
			}
		}
		f := r.add("SD306", finding.Info,
			fmt.Sprintf("%d stop-the-world pauses of %v or more, the longest %v", len(long), stwLong, dur(long[0].Duration)), why,
			locs,
			append(append([]finding.Evidence{evid("pauses ≥ "+stwLong.String(), float64(len(long)), "pauses")}, processCPUEvidence(s)...),
				stallEvidence("pause", long, 3)...),
			fix)
		f.Note(finding.NoteLink, "longest: "+stallList(long, 3))
	}
}

func forcedCaller(s *Summary) string {
	if len(s.GC.ForcedBy) == 0 || s.GC.ForcedBy[0].Location.Function == "" {
		return "caller not recorded"
	}
	l := s.GC.ForcedBy[0].Location
	switch {
	case isUserFunc(l.Function):
		return fmt.Sprintf("from %s at %s:%d", l.Function, shortFile(l.File), l.Line)
	case strings.HasPrefix(l.Function, "testing."):
		return fmt.Sprintf("by the testing harness, %s", l.Function)
	}
	return "by " + l.Function
}

// longStalls are the stalls of at least d, longest first.
func longStalls(st []Stall, d time.Duration) []Stall {
	var out []Stall
	for _, x := range st {
		if x.Duration >= d {
			out = append(out, x)
		}
	}
	return out
}

func allForced(st []Stall) bool {
	for _, x := range st {
		if !strings.HasSuffix(x.What, "forced by runtime.GC") {
			return false
		}
	}
	return len(st) > 0
}
