package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// runnableBacklog is SD302: more runnable goroutines than Ps most of the
// time. It is a warning when the goroutines queueing are ones something
// waits for: woken after a wait, or newly created; CPU-bound goroutines
// that outnumber the Ps and queue after preemption are only noted. The
// "because" is the measured cause: spinning sites, the host, or the
// reason that accounts for most of the time spent runnable.
func runnableBacklog(r *ruleCtx) {
	s, secs, c, convoy, host, users := r.s, r.secs, r.cause, r.convoy, r.host, r.users
	if s.Runnable.AboveProcsPct >= backlogPct {
		sev := finding.Info
		created := reasonLatency(s, wakeCreated)
		woken := s.Latency.Woken
		if (woken.Count >= latencyMinimum && woken.P99 >= backlogWokenP99) || (created.Count >= latencyMinimum && created.P50 >= backlogWokenP99) {
			sev = finding.MustLookup("SD302").Severity
		}
		why, fix := queueReason(s, secs)
		var locs []finding.Location
		switch {
		case c.spin || c.compute:
			why, fix = c.text, c.fix
			locs = c.locs
			if c.spin {
				sev = consequence
			}
		case convoy.lock != nil:
			why, fix = convoy.text, convoy.fix
			locs = []finding.Location{convoy.lock.Location}
			sev = consequence
		case host != "":
			why, fix = host, hostFix
		}
		if len(locs) == 0 && len(users) > 0 {
			locs = siteLocations(users[0])
		}
		r.add("SD302", sev,
			fmt.Sprintf("%.1f runnable goroutines on average for %d Ps, more than the Ps %.0f%% of the time", s.Runnable.Mean, s.Procs.GOMAXPROCS, s.Runnable.AboveProcsPct), why,
			locs,
			append([]finding.Evidence{
				evid("runnable goroutines (mean)", s.Runnable.Mean, "goroutines"),
				evid("time with more runnable goroutines than Ps", s.Runnable.AboveProcsPct, "%"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
				evid("p99 latency after a wait", ms(s.Latency.Woken.P99), "ms"),
				evid("median latency after creation", ms(created.P50), "ms"),
				evid("goroutines created", round2(float64(created.Count)/secs), "/s"),
			}, append(c.evidence(), convoy.evidence()...)...),
			fix)
	}
}
