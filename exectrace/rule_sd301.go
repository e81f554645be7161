package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// schedLatency is SD301: starts after a wait are slow; below the gate, a
// tail worth naming is reported as info. The cause named is the shared
// one: a spin, a lock convoy or sleep poll, a heavy waker whose wakees
// are the tail, or the host.
func schedLatency(r *ruleCtx) {
	s, c, convoy, host, users, wk := r.s, r.cause, r.convoy, r.host, r.users, r.waker
	if w := s.Latency.Woken; (w.Count >= latencyMinimum && w.P99 >= latencyP99) || (w.Count >= tailMinimum && w.P99 >= tailP99) {
		sev := finding.MustLookup("SD301").Severity
		if w.Count < latencyMinimum || w.P99 < latencyP99 {
			sev = finding.Info
		}
		var locs []finding.Location
		why := fmt.Sprintf("runnable goroutines find no free P (Ps busy %.2f of %d)", s.Procs.BusyMean, s.Procs.GOMAXPROCS)
		fix := finding.MustLookup("SD301").Fix
		switch {
		case c.spin:
			why, fix = c.text, c.fix
			locs = append(locs, c.locs...)
			sev = consequence
		case convoy.lock != nil:
			why, fix = convoy.text, convoy.fix
			locs = append(locs, convoy.lock.Location)
			sev = consequence
		case wk != nil:
			// The Ps may be idle most of the time: what queues is one
			// burst at a time, every goroutine the waker woke at once.
			why = fmt.Sprintf("%s:%d (%s) wakes %d goroutines at once, %.0f times a second, and they queue for the %d Ps: %.0f%% of the starts after a wait are theirs, p99 %v (SD316)",
				shortFile(wk.Location.File), wk.Location.Line, wk.How, wk.HeavyMean, wk.HeavyPerS, s.Procs.GOMAXPROCS,
				100*float64(wk.Latency.Count)/float64(max(w.Count, 1)), dur(wk.Latency.P99))
			fix = wakerFix
			locs = append(locs, wk.Location)
			if wakerSeverity(wk) >= sev {
				sev = consequence // SD316 reports the cause at least as high
			}
		case host != "":
			why, fix = host, hostFix
		}
		if worst := worstLatency(users); worst != nil {
			locs = append(locs, siteLocations(worst)...)
		}
		for _, x := range first(s.Latency.WokenLongest, 3) {
			// where the longest waiters had waited: the victims' lines
			if isUserFunc(x.Location.Function) {
				locs = append(locs, x.Location)
			}
		}
		f := r.add("SD301", sev,
			fmt.Sprintf("p99 scheduling latency %v after a wait (%d starts, max %v)", dur(w.P99), w.Count, dur(w.Max)), why,
			locs,
			append([]finding.Evidence{
				evid("p99 latency after a wait", ms(w.P99), "ms"),
				evid("p50 latency after a wait", ms(w.P50), "ms"),
				evid("starts after a wait", float64(w.Count), "starts"),
				evid("busy Ps (mean)", s.Procs.BusyMean, "Ps"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
			}, append(c.evidence(), stallEvidence("wait for a P", s.Latency.WokenLongest, 3)...)...),
			fix)
		f.Note(finding.NoteLink, "longest: "+stallList(s.Latency.WokenLongest, 3))
	}
}
