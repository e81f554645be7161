package exectrace

import (
	"fmt"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// Thresholds of the rules. docs/trace.md gives the lab measurements that
// justify each one.
const (
	// SD301: p99 latency of starts after a wait, and enough of them.
	latencyP99     = 20 * time.Millisecond
	latencyMinimum = 500
	// SD302: share of time with more runnable goroutines than Ps; warning
	// when woken goroutines' p99 latency is also above backlogWokenP99.
	backlogPct      = 50.0
	backlogWokenP99 = time.Millisecond
	// SD303: busy Ps over CPUs.
	oversubscribed = 1.25
	// SD304: thread moves per second and share of one site's starts.
	migrationPerS   = 1000.0
	migrationPct    = 50.0
	migrationStarts = 100
	// SD305: syscalls at one site that came back without their P.
	handoffMin  = 20
	handoffPerS = 20.0
	// SD306: stop-the-world share of the time, assist share of running time.
	stwPct    = 5.0
	assistPct = 5.0
	// SD307: back-to-back sleeps from one site, per second, and their median.
	sleepRepeats     = 100
	sleepRepeatsPerS = 100.0
	sleepShort       = 2 * time.Millisecond
	// SD308: yields per second, and per block, of one site (warning); the
	// running share and preemptions per block of a CPU-bound site (info).
	yieldsPerS     = 1000.0
	stopsPerBlock  = 100 // yields per block (preemptions: a tenth of it)
	spinRunningPct = 50.0
	preemptMinimum = 10
	// SD309: mean goroutines waiting on one lock, and enough waits.
	lockWaiting = 0.25
	lockMinimum = 20
)

// findings applies the SD3xx rules to the figures of one trace.
func findings(s *Summary, opt Options) []finding.Finding {
	secs := max(s.Trace.Duration.Seconds(), 1e-9)
	var out []finding.Finding
	add := func(rule string, sev finding.Severity, msg string, locs []finding.Location, ev []finding.Evidence, fix string) {
		out = append(out, finding.Finding{Rule: rule, Severity: sev, Message: msg, Locations: locs, Evidence: ev, Fix: fix})
	}
	users := userSites(s)

	// SD301: starts after a wait are slow.
	if w := s.Latency.Woken; w.Count >= latencyMinimum && w.P99 >= latencyP99 {
		var locs []finding.Location
		worst := worstLatency(users)
		if worst != nil {
			locs = siteLocations(worst)
		}
		add("SD301", finding.MustLookup("SD301").Severity,
			fmt.Sprintf("p99 scheduling latency %v after a wait because runnable goroutines find no free P (%d starts, max %v)", dur(w.P99), w.Count, dur(w.Max)),
			locs,
			[]finding.Evidence{
				evid("p99 latency after a wait", ms(w.P99), "ms"),
				evid("p50 latency after a wait", ms(w.P50), "ms"),
				evid("starts after a wait", float64(w.Count), "starts"),
				evid("busy Ps (mean)", s.Procs.BusyMean, "Ps"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
			},
			finding.MustLookup("SD301").Fix)
	}

	// SD302: more runnable goroutines than Ps most of the time. It is a
	// warning when the goroutines queueing are ones something waits for:
	// woken after a wait, or newly created; CPU-bound goroutines that
	// outnumber the Ps and queue after preemption are only noted.
	if s.Runnable.AboveProcsPct >= backlogPct {
		sev := finding.Info
		why := "CPU-bound goroutines outnumber the Ps (they queue after preemption, not after a wake-up or creation)"
		created := reasonLatency(s, wakeCreated)
		switch woken := s.Latency.Woken; {
		case woken.Count >= latencyMinimum && woken.P99 >= backlogWokenP99:
			sev = finding.MustLookup("SD302").Severity
			why = fmt.Sprintf("the process needs more CPU than its %d Ps give it: goroutines woken after a wait queue %v at p99", s.Procs.GOMAXPROCS, dur(woken.P99))
		case created.Count >= latencyMinimum && created.P50 >= backlogWokenP99:
			sev = finding.MustLookup("SD302").Severity
			why = fmt.Sprintf("goroutines are created faster than %d Ps can run them: %.0f/s, each queueing %v at the median before it first runs", s.Procs.GOMAXPROCS, float64(created.Count)/secs, dur(created.P50))
		}
		var locs []finding.Location
		if len(users) > 0 {
			locs = siteLocations(users[0])
		}
		add("SD302", sev,
			fmt.Sprintf("%.1f runnable goroutines on average for %d Ps, more than the Ps %.0f%% of the time, because %s", s.Runnable.Mean, s.Procs.GOMAXPROCS, s.Runnable.AboveProcsPct, why),
			locs,
			[]finding.Evidence{
				evid("runnable goroutines (mean)", s.Runnable.Mean, "goroutines"),
				evid("time with more runnable goroutines than Ps", s.Runnable.AboveProcsPct, "%"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
				evid("p99 latency after a wait", ms(s.Latency.Woken.P99), "ms"),
				evid("median latency after creation", ms(created.P50), "ms"),
				evid("goroutines created", round2(float64(created.Count)/secs), "/s"),
			},
			finding.MustLookup("SD302").Fix)
	}

	// SD303: more Ps running than CPUs.
	if opt.CPUs > 0 && s.Procs.BusyMean >= oversubscribed*opt.CPUs {
		var locs []finding.Location
		if len(users) > 0 {
			// where the CPU time goes: the line preemptions hit, then the go statement
			if users[0].StopAt.File != "" {
				locs = append(locs, users[0].StopAt)
			}
			if users[0].Creator.File != "" {
				locs = append(locs, users[0].Creator)
			}
		}
		add("SD303", finding.MustLookup("SD303").Severity,
			fmt.Sprintf("%.2f Ps running on average on %g CPUs because GOMAXPROCS is %d: goroutines stall while their threads are descheduled", s.Procs.BusyMean, opt.CPUs, s.Procs.GOMAXPROCS),
			locs,
			[]finding.Evidence{
				evid("busy Ps (mean)", s.Procs.BusyMean, "Ps"),
				evid("CPUs available", opt.CPUs, "CPUs"),
				evid("busy Ps per CPU", s.Procs.PerCPUPct, "%"),
				evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
			},
			fmt.Sprintf("Set GOMAXPROCS=%d (the CPUs available; schedoctor procs computes it from the cgroup), or remove the override so the Go 1.25+ runtime follows the CPU limit.", int(opt.CPUs+0.999)))
	}

	// SD304: one site's goroutines resume on another thread most of the time.
	for _, st := range users {
		perS := float64(st.MMoves) / secs
		if st.Starts < migrationStarts || perS < migrationPerS {
			continue
		}
		pct := 100 * float64(st.MMoves) / float64(st.Starts)
		if pct < migrationPct {
			continue
		}
		locs := siteLocations(st)
		if len(st.Blocks) > 0 && st.Blocks[0].Location.File != "" {
			locs = append([]finding.Location{st.Blocks[0].Location}, locs...)
		}
		add("SD304", finding.MustLookup("SD304").Severity,
			fmt.Sprintf("%.0f thread migrations/s (%.0f%% of %d starts) because goroutines running %s resume on another thread after they %s",
				perS, pct, st.Starts, st.Function, blockWord(st)),
			locs,
			[]finding.Evidence{
				evid("thread migrations", perS, "/s"),
				evid("starts on another thread", round2(pct), "%"),
				evid("P migrations", float64(st.PMoves), "moves"),
				evid("starts", float64(st.Starts), "starts"),
			},
			finding.MustLookup("SD304").Fix)
	}

	// SD305: syscalls lose their P.
	for _, sc := range s.Syscalls.Sites {
		perS := float64(sc.Handoffs) / secs
		if sc.Handoffs < handoffMin || perS < handoffPerS {
			continue
		}
		add("SD305", finding.MustLookup("SD305").Severity,
			fmt.Sprintf("%d syscalls (%.0f/s) came back without their P because they blocked long enough for sysmon to hand it away; the goroutine then queued for a P (%d syscalls here, p99 %v)",
				sc.Handoffs, perS, sc.Count, dur(sc.Duration.P99)),
			[]finding.Location{sc.Location},
			[]finding.Evidence{
				evid("syscalls that lost their P", float64(sc.Handoffs), "syscalls"),
				evid("rate", round2(perS), "/s"),
				evid("syscalls at this site", float64(sc.Count), "syscalls"),
				evid("p99 syscall duration", us(sc.Duration.P99), "µs"),
				evid("Ps taken from syscalls (all sites)", float64(s.Procs.Steals), "steals"),
			},
			finding.MustLookup("SD305").Fix)
	}

	// SD306: stop-the-world and assists.
	if s.GC.STWPct >= stwPct || s.GC.AssistPct >= assistPct {
		var locs []finding.Location
		for _, l := range first(s.GC.AssistBy, 3) {
			if l.Location.File != "" {
				locs = append(locs, l.Location)
			}
		}
		add("SD306", finding.MustLookup("SD306").Severity,
			fmt.Sprintf("%.1f%% of the time stopped the world and %.1f%% of the Ps' time went to mark assists because the program allocates fast enough to keep the GC running (%d cycles in %v)",
				s.GC.STWPct, s.GC.AssistPct, s.GC.Cycles, s.Trace.Duration.Round(time.Millisecond)),
			locs,
			[]finding.Evidence{
				evid("stop-the-world share of the time", s.GC.STWPct, "%"),
				evid("stop-the-world pauses", float64(s.GC.STW.Count), "pauses"),
				evid("longest pause", ms(s.GC.STW.Max), "ms"),
				evid("mark assist share of the Ps' time", s.GC.AssistPct, "%"),
				evid("GC cycles per second", round2(float64(s.GC.Cycles)/secs), "/s"),
			},
			finding.MustLookup("SD306").Fix)
	}

	// SD307: one site sleeps back to back for tiny durations.
	for _, sl := range s.Sleeps {
		perS := float64(sl.Repeats) / secs
		if sl.Repeats < sleepRepeats || perS < sleepRepeatsPerS || sl.Slept.P50 > sleepShort || isRuntimeFunc(sl.Location.Function) {
			continue
		}
		add("SD307", finding.MustLookup("SD307").Severity,
			fmt.Sprintf("%.0f sleeps/s from one call site, %d of %d back to back from the same goroutine, median %v, because the goroutine polls with a short sleep",
				sl.PerS, sl.Repeats, sl.Count, dur(sl.Slept.P50)),
			[]finding.Location{sl.Location},
			[]finding.Evidence{
				evid("sleeps", sl.PerS, "/s"),
				evid("back-to-back sleeps", float64(sl.Repeats), "sleeps"),
				evid("median time asleep", us(sl.Slept.P50), "µs"),
			},
			finding.MustLookup("SD307").Fix)
	}

	// SD308: goroutines that (almost) never block: they leave the CPU by
	// yielding or by preemption. Counted per site over the whole trace, so
	// the one wait a goroutine makes at its end does not hide a spin.
	for _, st := range users {
		yps := float64(st.Yields) / secs
		runPct := 100 * float64(st.Running) / float64(max(s.Trace.Duration, 1))
		ev := []finding.Evidence{
			evid("yields (runtime.Gosched)", round2(yps), "/s"),
			evid("preemptions", float64(st.Preempts), "preemptions"),
			evid("blocks", float64(st.Blocked), "blocks"),
			evid("running time", ms(st.Running), "ms"),
			evid("goroutines that never blocked", float64(st.NeverBlocked), "goroutines"),
		}
		loc := []finding.Location{st.StopAt}
		if st.StopAt.File == "" {
			loc = siteLocations(st)
		} else if st.Creator.File != "" {
			loc = append(loc, st.Creator)
		}
		switch {
		case yps >= yieldsPerS && st.Yields >= stopsPerBlock*(st.Blocked+1):
			add("SD308", finding.MustLookup("SD308").Severity,
				fmt.Sprintf("%.0f yields/s (%d yields for %d blocks) from goroutines running %s because they spin on runtime.Gosched instead of waiting",
					yps, st.Yields, st.Blocked, st.Function),
				loc, ev, "Block on what the loop waits for (a channel, a sync.Cond, a WaitGroup) instead of yielding (see SD106).")
		case runPct >= spinRunningPct && st.Preempts >= preemptMinimum && st.Preempts >= stopsPerBlock*(st.Blocked+1)/10:
			add("SD308", finding.Info,
				fmt.Sprintf("%d preemptions for %d blocks in %v of running time because goroutines running %s compute (or spin) without waiting",
					st.Preempts, st.Blocked, st.Running.Round(time.Millisecond), st.Function),
				loc, ev, finding.MustLookup("SD308").Fix)
		}
	}

	// SD309: goroutines queue on one lock.
	for _, l := range s.Locks {
		if l.Count < lockMinimum || l.Waiting < lockWaiting {
			continue
		}
		add("SD309", finding.MustLookup("SD309").Severity,
			fmt.Sprintf("%.2f goroutines wait on average because %d goroutines queue on one lock (%d waits, %v in total, p99 %v)",
				l.Waiting, l.Goroutines, l.Count, l.Wait.Total.Round(time.Millisecond), dur(l.Wait.P99)),
			[]finding.Location{l.Location},
			[]finding.Evidence{
				evid("goroutines waiting (mean)", l.Waiting, "goroutines"),
				evid("waits", float64(l.Count), "waits"),
				evid("total wait", ms(l.Wait.Total), "ms"),
				evid("p99 wait", ms(l.Wait.P99), "ms"),
			},
			finding.MustLookup("SD309").Fix)
	}
	finding.Sort(out)
	return out
}

// userSites are the sites of the program's own goroutines, by running time.
func userSites(s *Summary) []*SiteSummary {
	var out []*SiteSummary
	for i := range s.Sites {
		if !s.Sites[i].System {
			out = append(out, &s.Sites[i])
		}
	}
	return out
}

// reasonLatency is the latency of the starts made runnable for reason w.
func reasonLatency(s *Summary, w wake) Percentiles {
	for _, r := range s.Latency.ByReason {
		if r.Reason == wakeNames[w] {
			return r.Percentiles
		}
	}
	return Percentiles{}
}

func worstLatency(sites []*SiteSummary) *SiteSummary {
	var w *SiteSummary
	for _, st := range sites {
		if st.Latency.Count >= latencyMinimum && (w == nil || st.Latency.P99 > w.Latency.P99) {
			w = st
		}
	}
	return w
}

// siteLocations is where to look for a site: the go statement, or where
// its goroutines stop when it has none (alive at trace start).
func siteLocations(st *SiteSummary) []finding.Location {
	switch {
	case st.Creator.File != "":
		return []finding.Location{st.Creator}
	case st.StopAt.File != "":
		return []finding.Location{st.StopAt}
	case len(st.Blocks) > 0 && st.Blocks[0].Location.File != "":
		return []finding.Location{st.Blocks[0].Location}
	}
	return nil
}

func blockWord(st *SiteSummary) string {
	if len(st.Blocks) == 0 {
		return "are preempted"
	}
	return "block on " + st.Blocks[0].Reason
}

func ms(d time.Duration) float64 { return round2(float64(d) / 1e6) }
func us(d time.Duration) float64 { return round2(float64(d) / 1e3) }

func evid(label string, v float64, unit string) finding.Evidence {
	return finding.Evidence{Label: label, Value: v, Unit: unit}
}
