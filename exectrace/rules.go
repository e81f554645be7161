package exectrace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	// SD305: syscalls at one site that came back without their P; info
	// when under handoffTailPct of the site's calls did and their median
	// is under handoffQuick (sysmon retakes a P after 20µs at the least).
	handoffMin     = 20
	handoffPerS    = 20.0
	handoffTailPct = 10.0
	handoffQuick   = 20 * time.Microsecond
	// at this many calls a second from one site, batching is the advice
	// whatever the share that lost the P (the lab's syscallheavy: 460k/s)
	syscallsBatch = 10000.0
	// and a warning when the calls themselves cost this many cores (rate
	// × median duration): the lab's syscallheavy, 491,809 writes of 351ns
	// a second, 0.17 cores; an echo server's reads (nbio, evio: 10–11k/s
	// of 1.4–6µs, 0.02–0.07 cores) are the price of its traffic
	syscallsBatchCores = 0.1
	// syscalls that lost their P after this long at the median were
	// waiting for something: sysmon takes a P from a syscall after 20µs at
	// the least, and quick calls that lose it took 18µs at the median in
	// the epollloop recordings, their event loops' epoll_wait 0.98–5.8ms
	// (a client writing every 0.1–5ms): handing the P of a wait away is
	// the runtime doing its job
	syscallWaits = 500 * time.Microsecond
	// SD306: stop-the-world share of the time, assist share of running time.
	stwPct    = 5.0
	assistPct = 5.0
	// SD307: back-to-back sleeps from one site, per second, and their median.
	sleepRepeats     = 100
	sleepRepeatsPerS = 100.0
	sleepShort       = 2 * time.Millisecond
	// SD308: yields per second, and per block (a wait in a syscall counts
	// as one), of one site whose yields end spinRunningPct of its running
	// time (warning); the running share and preemptions per block of a
	// CPU-bound site (info).
	yieldsPerS     = 1000.0
	stopsPerBlock  = 100 // yields per block (preemptions: a tenth of it)
	spinRunningPct = 50.0
	preemptMinimum = 10
	// SD308: a loop the source shows spinning whose CPU samples are this
	// much in the calls it makes works (profile.SpinWorkShare, the same
	// judgement from a profile)
	workCodePct = 50.0
	// SD309: mean goroutines waiting on one lock, and enough waits.
	lockWaiting = 0.25
	lockMinimum = 20
)

// Thresholds of the cause analysis (docs/trace.md).
const (
	// spinning sites explain the Ps' busy time when they hold this share of it
	spinExplainPct = 50.0
	// the host withheld CPU when the Ps were busy this much beyond the CPU
	// the process got (busy time over process CPU), by at least withheldPs
	withheldPct = 150.0
	withheldPs  = 0.25
	// tail of the wake-up latency reported (info) below SD301's gate
	tailP99     = 5 * time.Millisecond
	tailMinimum = 100
	// a stop-the-world pause this long is a tail stall of its own
	stwLong = 10 * time.Millisecond
	// a lock convoy (SD309) explains the run-queue backlog and the latency
	// when goroutines woken by sync primitives hold this share of the time
	// spent runnable after a wake-up: they queue for a P only to queue on
	// the lock again, so the queue is the lock's, not the CPU's
	convoyPct = 50.0
)

// Verdict is what the source code shows at a spinning site's hot line;
// diagnose reads it (lint/inspect) and passes it back through Judge.
type Verdict struct {
	// Spin: the loop around the line spins (a select with a default, a
	// yield or atomic spin). Compute: the loop only computes. Neither:
	// the source was read but shows something else (Kind says what).
	Spin, Compute bool
	Kind          string
	Detail        string           // what made the verdict, in a few words
	Line          finding.Location // the spinning operation (the select, the Gosched call)
	Loop          finding.Location // the first line of the loop that spins, when known
	Fix           string           // the fix for that kind of loop, when Spin
}

// Judge returns the source's verdict on a spinning site, nil when there
// is no source to read.
type Judge func(SpinSite) *Verdict

func findings(s *Summary, opt Options) []finding.Finding { return Findings(s, opt, nil) }

// Findings applies the SD3xx rules to the figures of one trace; judge,
// when not nil, says what the source shows at the spinning sites' lines.
func Findings(s *Summary, opt Options, judge Judge) []finding.Finding {
	secs := max(s.Trace.Duration.Seconds(), 1e-9)
	var out []finding.Finding
	// add appends a finding: what is the headline, why the Because.
	add := func(rule string, sev finding.Severity, what, why string, locs []finding.Location, ev []finding.Evidence, fix string) *finding.Finding {
		out = append(out, finding.Finding{Rule: rule, Severity: sev, What: what, Because: why, Locations: userLocs(locs), Evidence: ev, Fix: fix})
		return &out[len(out)-1]
	}
	users := userSites(s)
	verdicts := make([]*Verdict, len(s.Spinning))
	for i, sp := range s.Spinning {
		if judge != nil {
			verdicts[i] = judge(sp)
		}
	}
	c := causeOf(s, verdicts)
	host := hostCause(s)
	convoy := convoyOf(s)
	poll := pollOf(s, secs)
	if convoy.lock == nil {
		// one queue cause: a lock convoy first (its goroutines are
		// handed the lock one at a time), else a sleep poll
		convoy = poll
	}

	// SD301: starts after a wait are slow; below the gate, a tail worth
	// naming is reported as info.
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
		f := add("SD301", sev,
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

	// SD302: more runnable goroutines than Ps most of the time. It is a
	// warning when the goroutines queueing are ones something waits for:
	// woken after a wait, or newly created; CPU-bound goroutines that
	// outnumber the Ps and queue after preemption are only noted. The
	// "because" is the measured cause: spinning sites, the host, or the
	// reason that accounts for most of the time spent runnable.
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
		add("SD302", sev,
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

	// SD303: more Ps running than CPUs, or than the CPU the process got.
	withheld := host != ""
	if (opt.CPUs > 0 && s.Procs.BusyMean >= oversubscribed*opt.CPUs) || withheld {
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
		ev := []finding.Evidence{
			evid("busy Ps (mean)", s.Procs.BusyMean, "Ps"),
			evid("GOMAXPROCS", float64(s.Procs.GOMAXPROCS), "Ps"),
		}
		var what, why, fix string
		if opt.CPUs > 0 {
			ev = append(ev, evid("CPUs available", opt.CPUs, "CPUs"), evid("busy Ps per CPU", s.Procs.PerCPUPct, "%"))
		}
		if withheld {
			ev = append(ev, evid("CPU the process got", s.Procs.ProcessCores, "cores"), evid("busy Ps per core the process got", s.Procs.BusyPerCorePct, "%"))
			what, why = fmt.Sprintf("%.2f Ps running on average while the process got %.2f cores", s.Procs.BusyMean, s.Procs.ProcessCores), host
			fix = hostFix
			if opt.CPUs > 0 && float64(s.Procs.GOMAXPROCS) > opt.CPUs {
				fix += fmt.Sprintf(" GOMAXPROCS (%d) is also above the %g CPUs available: set it to %d.", s.Procs.GOMAXPROCS, opt.CPUs, int(opt.CPUs+0.999))
			}
		} else {
			what = fmt.Sprintf("%.2f Ps running on average on %g CPUs", s.Procs.BusyMean, opt.CPUs)
			why = fmt.Sprintf("GOMAXPROCS is %d: goroutines stall while their threads are descheduled", s.Procs.GOMAXPROCS)
			fix = fmt.Sprintf("Set GOMAXPROCS=%d (the CPUs available; schedoctor procs computes it from the cgroup), or remove the override so the Go 1.25+ runtime follows the CPU limit.", int(opt.CPUs+0.999))
		}
		add("SD303", finding.MustLookup("SD303").Severity, what, why, locs, ev, fix)
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
			fmt.Sprintf("%.0f thread migrations/s (%.0f%% of %d starts)", perS, pct, st.Starts),
			fmt.Sprintf("goroutines running %s resume on another thread after they %s", st.Function, blockWord(st)),
			locs,
			[]finding.Evidence{
				evid("thread migrations", perS, "/s"),
				evid("starts on another thread", round2(pct), "%"),
				evid("P migrations", float64(st.PMoves), "moves"),
				evid("starts", float64(st.Starts), "starts"),
				evid("blocks", float64(st.Blocked), "blocks"),
				evid("preemptions and yields", float64(st.Preempts+st.Yields), "stops"),
			},
			finding.MustLookup("SD304").Fix)
	}

	// SD305: syscalls lose their P. When the host withheld the CPU, that
	// is why: the threads stalled, not the syscalls.
	for _, sc := range s.Syscalls.Sites {
		perS := float64(sc.Handoffs) / secs
		if sc.Handoffs < handoffMin || perS < handoffPerS {
			continue
		}
		sev := finding.MustLookup("SD305").Severity
		why := fmt.Sprintf("they blocked long enough for sysmon to hand it away (p50 %v, p99 %v); the goroutine then queued for a P", dur(sc.Duration.P50), dur(sc.Duration.P99))
		fix := finding.MustLookup("SD305").Fix
		handPct := 100 * float64(sc.Handoffs) / float64(max(sc.Count, 1))
		callsPerS := float64(sc.Count) / secs
		// Calls that already come through a buffer (bufio's Flush,
		// writev) are batched: at a high rate they move that much data,
		// and "batch them" is no advice (the lab's syscallheavy fixed
		// twin: 146,000 64 KiB writes/s to /dev/null, 27 handoffs).
		batched := 2*sc.Batched >= sc.Count
		if sc.HandoffDuration.P50 >= syscallWaits && callsPerS < syscallsBatch {
			// The calls wait (an event loop's epoll_wait, a blocking
			// read): their P runs other goroutines meanwhile, and only
			// the return costs a P.
			sev = finding.Info
			why = fmt.Sprintf("they wait for events (those that lost it took %v at the median, all calls here %v): the runtime hands the P of a goroutine that waits in a syscall to others, as it should, and the goroutine queues for a P when it returns",
				dur(sc.HandoffDuration.P50), dur(sc.Duration.P50))
			fix = "Nothing to batch: these syscalls are waits. If the wake-up latency matters, wait through the runtime's netpoller (net.Conn, os.File with deadlines) rather than a raw epoll_wait or read, so that a ready goroutine does not queue for a P behind a thread's return."
		} else if callsPerS >= syscallsBatch && !batched {
			why = fmt.Sprintf("the site makes %.0f syscalls/s: even calls this quick (p50 %v, p99 %v) lose their P now and then at that rate", callsPerS, dur(sc.Duration.P50), dur(sc.Duration.P99))
			if cores := callsPerS * sc.Duration.P50.Seconds(); cores < syscallsBatchCores && handPct < handoffTailPct {
				// Warn by cost: the calls take little CPU and few lose
				// their P, so batching would save little.
				sev = finding.Info
				why += fmt.Sprintf(", but they take only about %.2f cores (rate × median) and %.1f%% of them lost it", cores, handPct)
			}
		} else if handPct < handoffTailPct && sc.Duration.P50 < handoffQuick {
			// Most calls here return at once: the few that lost their P
			// are a tail (a descheduled thread, a slow moment), not the
			// kind of syscall; batching is not what they need.
			sev = finding.Info
			why = fmt.Sprintf("a tail of slow calls blocked long enough for sysmon to hand their P away: %.1f%% of the calls here, which take %v at the median and %v at p99",
				handPct, dur(sc.Duration.P50), dur(sc.Duration.P99))
			fix = "Only a tail of these syscalls lost their P: look at what stalls them then (a descheduled thread: schedoctor procs; a slow device or peer) before batching."
			if batched {
				why += fmt.Sprintf(", and %d of them already come through a buffer (bufio, writev)", sc.Batched)
				fix = "Only a tail of these syscalls lost their P, and they are already batched: look at what stalls them then (a descheduled thread: schedoctor procs; a slow device or peer)."
			}
		}
		if withheld {
			why = host + ": threads stalled in and around their syscalls, and sysmon handed their Ps away"
			fix = hostFix + " Batching syscalls would not help: the syscalls are slow because their threads wait for a CPU."
		}
		// A site with no user frame on its stack (net/http's own writes)
		// is named, not given as the line to change.
		locs := []finding.Location{sc.Location}
		where := ""
		if !isUserFunc(sc.Location.Function) {
			locs = nil
			where = fmt.Sprintf(", in %s with no user frame on the stack", sc.Location.Function)
		}
		f := add("SD305", sev,
			fmt.Sprintf("%d syscalls (%.0f/s) came back without their P (%d syscalls here%s)",
				sc.Handoffs, perS, sc.Count, where), why,
			locs,
			append([]finding.Evidence{
				evid("syscalls that lost their P", float64(sc.Handoffs), "syscalls"),
				evid("rate", round2(perS), "/s"),
				evid("syscalls at this site", float64(sc.Count), "syscalls"),
				evid("p50 syscall duration", us(sc.Duration.P50), "µs"),
				evid("p99 syscall duration", us(sc.Duration.P99), "µs"),
				evid("p50 duration of the calls that lost their P", us(sc.HandoffDuration.P50), "µs"),
				evid("Ps taken from syscalls (all sites)", float64(s.Procs.Steals), "steals"),
			}, append(batchEvidence(sc), processCPUEvidence(s)...)...),
			fix)
		if !withheld && s.Procs.ProcessCPU <= 0 {
			f.AddHint(finding.HintProcessCPU, "whether the host withheld CPU is unknown: no CPU samples in the trace; give the process's CPU time over the trace")
		}
	}

	// SD306: stop-the-world and assists, told apart from collections
	// forced by runtime.GC calls; then the longest pauses as tail stalls.
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
			add("SD306", sev,
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
			add("SD306", finding.MustLookup("SD306").Severity,
				fmt.Sprintf("%.1f%% of the time stopped the world and %.1f%% of the Ps' time went to mark assists", s.GC.STWPct, s.GC.AssistPct),
				fmt.Sprintf("the program allocates fast enough to keep the GC running (%d cycles in %v, %d forced)",
					s.GC.Cycles, s.Trace.Duration.Round(time.Millisecond), s.GC.ForcedCycles),
				locs, ev, finding.MustLookup("SD306").Fix)
		}
	}
	// Long pauses are tail stalls of their own, reported at info: on a
	// loaded host they happen to healthy programs too (docs/trace.md).
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
		f := add("SD306", finding.Info,
			fmt.Sprintf("%d stop-the-world pauses of %v or more, the longest %v", len(long), stwLong, dur(long[0].Duration)), why,
			locs,
			append(append([]finding.Evidence{evid("pauses ≥ "+stwLong.String(), float64(len(long)), "pauses")}, processCPUEvidence(s)...),
				stallEvidence("pause", long, 3)...),
			fix)
		f.Note(finding.NoteLink, "longest: "+stallList(long, 3))
	}

	// SD307: one site sleeps back to back for tiny durations.
	for _, sl := range s.Sleeps {
		perS := float64(sl.Repeats) / secs
		if !shortPoll(sl, perS) {
			continue
		}
		add("SD307", finding.MustLookup("SD307").Severity,
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

	// SD308: goroutines that leave the CPU by yielding or by preemption,
	// not by blocking. Counted per site over the whole trace as running
	// time by how its stretches end, so the block a goroutine makes once
	// per request does not hide the spin between them.
	spinAt := map[string]int{}
	for i, sp := range s.Spinning {
		spinAt[sp.Function+"\x00"+sp.Creator.File+":"+itoa(sp.Creator.Line)] = i
	}
	for _, st := range users {
		yps := float64(st.Yields) / secs
		ev := []finding.Evidence{
			evid("yields (runtime.Gosched)", round2(yps), "/s"),
			evid("preemptions", float64(st.Preempts), "preemptions"),
			evid("blocks", float64(st.Blocked), "blocks"),
			evid("running time", ms(st.Running), "ms"),
			evid("running time in stretches ended by preemption or a yield", st.StopRunPct, "%"),
			evid("mean running stretch", us(st.MeanRun), "µs"),
			evid("goroutines that never blocked", float64(st.NeverBlocked), "goroutines"),
		}
		loc := []finding.Location{st.StopAt}
		if st.StopAt.File == "" {
			loc = siteLocations(st)
		} else if st.Creator.File != "" {
			loc = append(loc, st.Creator)
		}
		i, isSpin := spinAt[st.Function+"\x00"+st.Creator.File+":"+itoa(st.Creator.Line)]
		var v *Verdict
		var sp SpinSite
		if isSpin {
			sp, v = s.Spinning[i], verdicts[i]
			ev = append(ev, evid("share of the Ps' busy time", sp.BusyPct, "%"), evid("busy Ps in these goroutines (mean)", sp.Cores, "Ps"),
				evid("CPU samples in select or yield code", sp.SpinCodePct, "%"))
			if sp.HotLine.File != "" {
				loc = append([]finding.Location{sp.HotLine}, loc...)
			}
		}
		shape := func() string {
			return fmt.Sprintf("%.0f%% of their running time ended in preemption or a yield (%d preemptions, %d yields, %d blocks, mean stretch %v)",
				st.StopRunPct, st.Preempts, st.Yields, st.Blocked, dur(st.MeanRun))
		}
		switch {
		case yps >= yieldsPerS && st.Yields >= stopsPerBlock*(st.Blocked+st.SyscallWaits+1) && st.StopRunPct >= spinRunningPct &&
			(v == nil || !v.Compute):
			// A wait in a syscall is a block (an event loop yields once,
			// then waits in epoll_wait), and a spin's yields end most of
			// its running time.
			if v == nil && judge != nil && !isSpin {
				// a yield storm too small for the spin shape (under 0.1 P):
				// still read its line, so the finding carries the source
				v = judge(SpinSite{Function: st.Function, Creator: st.Creator, HotLine: st.HotLine, StopAt: st.StopAt, Callers: st.callersOf(st.HotLine, st.StopAt),
					Running: st.Running, StopRunPct: st.StopRunPct, MeanRun: st.MeanRun, Preempts: st.Preempts, Yields: st.Yields, Blocked: st.Blocked})
			}
			f := add("SD308", finding.MustLookup("SD308").Severity,
				fmt.Sprintf("%.0f yields/s (%d yields for %d blocks) from goroutines running %s", yps, st.Yields, st.Blocked, st.Function),
				"they spin on runtime.Gosched instead of waiting",
				loc, ev, "Block on what the loop waits for (a channel, a sync.Cond, a WaitGroup) instead of yielding (see SD106).")
			if v != nil && v.Spin {
				confirm(f, v)
			}
		case isSpin && v != nil && v.Spin && sp.Samples >= samplesMinimum && sp.WorkCodePct >= workCodePct:
			// The loop has a spin's shape in the source, but its CPU
			// samples are in the calls it makes: it works (a default
			// that hashes a buffer), and removing the default would stop
			// the work.
			add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their loop %s at %s:%d, "+
					"but %.0f%% of their CPU samples are in the calls the loop makes (%.0f%% in select or yield code): its CPU is "+
					"its work, not a wait: %s",
					v.Detail, shortFile(v.Line.File), v.Line.Line, sp.WorkCodePct, sp.SpinCodePct, shape()),
				loc, append(ev, evid("CPU samples in the calls the loop makes", sp.WorkCodePct, "%")),
				"Nothing waits: if the latency matters, split the work into shorter pieces or give the process more CPU.")
		case isSpin && v != nil && v.Spin && sp.HotFrom == "stops":
			// The goroutines stop at the loop, but nothing places their
			// time there: a consumer that computes until its queue is
			// empty, then yields, stops at its wait loop every time. The
			// loop is a spin; how much of the busy time it takes needs
			// CPU samples, so the finding does not claim it.
			f := add("SD308", finding.MustLookup("SD308").Severity,
				fmt.Sprintf("goroutines running %s never block (%.0f%% of the Ps' busy time, %.2f Ps on average)", st.Function, sp.BusyPct, sp.Cores),
				fmt.Sprintf("they wait in a loop that %s at %s:%d, where their running stretches end (%d yields, %d preemptions, mean stretch %v)",
					v.Detail, shortFile(v.Line.File), v.Line.Line, st.Yields, st.Preempts, dur(st.MeanRun)),
				loc, ev, v.Fix)
			f.Note(finding.NoteThin, "the trace has no CPU samples to say how much of that time the loop takes (profile the program, or record the trace while a CPU profile runs)")
			confirm(f, v)
		case isSpin && v != nil && v.Spin:
			// Severity by cost, as a profile's SD204: the Ps' busy time
			// stands for the program's CPU.
			sev := finding.SpinSeverity(sp.BusyPct, sp.Cores)
			f := add("SD308", sev,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their loop %s at %s:%d: %s", v.Detail, shortFile(v.Line.File), v.Line.Line, shape()),
				loc, ev, v.Fix)
			confirm(f, v)
		case isSpin && (v == nil || !v.Spin) && sampledSpin(sp):
			// Warn by cost, explain by code: the CPU samples put the time
			// in the runtime's select or yield code, which is waiting
			// whatever shape the source reads (issue 20: a busy handler
			// whose loop the source read as blocking was info).
			f := add("SD308", finding.SpinSeverity(sp.BusyPct*sp.SpinCodePct/100, sp.Cores*sp.SpinCodePct/100),
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s", sp.BusyPct, sp.Cores, st.Function),
				fmt.Sprintf("their CPU samples are %.0f%% in "+
					"select or yield code (selectgo, sellock, Gosched) at %s:%d: they wait, whatever the loop's shape; %s",
					sp.SpinCodePct, shortFile(sp.HotLine.File), sp.HotLine.Line, shape()),
				loc, ev, finding.MustLookup("SD308").Fix)
			if v != nil {
				f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
				f.Note(finding.NoteCorroboration, fmt.Sprintf("the source there reads %s (%s), but the samples show the select or yield is the path taken", v.Kind, v.Detail))
			} else {
				f.AddHint(finding.HintSourceDir, "the source decides the loop's shape: give the module's source directory when the recorded paths are not readable")
			}
		case isSpin && v != nil && v.Compute:
			f := add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s that compute at %s:%d",
					sp.BusyPct, sp.Cores, st.Function, shortFile(sp.HotLine.File), sp.HotLine.Line),
				fmt.Sprintf("the source shows %s: %s", v.Detail, shape()),
				loc, ev, "Nothing spins: if the latency matters, split the work into shorter pieces or give the process more CPU.")
			f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
		case isSpin:
			f := add("SD308", finding.Info,
				fmt.Sprintf("%.0f%% of the Ps' busy time (%.2f Ps on average) is goroutines running %s that compute or spin", sp.BusyPct, sp.Cores, st.Function),
				shape(), loc, ev, finding.MustLookup("SD308").Fix)
			if v != nil {
				f.Note(finding.NoteQualifier, fmt.Sprintf("the source there shows %s (%s)", v.Kind, v.Detail))
			} else {
				f.AddHint(finding.HintSourceDir, "the source at the hot line decides: give the module's source directory when the recorded paths are not readable")
			}
		}
	}

	// SD309: goroutines queue on one lock.
	for _, l := range s.Locks {
		if l.Count < lockMinimum || l.Waiting < lockWaiting {
			continue
		}
		add("SD309", finding.MustLookup("SD309").Severity,
			fmt.Sprintf("%.2f goroutines wait on average", l.Waiting),
			fmt.Sprintf("%d goroutines queue on one lock (%d waits, %v in total, p99 %v)",
				l.Goroutines, l.Count, l.Wait.Total.Round(time.Millisecond), dur(l.Wait.P99)),
			[]finding.Location{l.Location},
			[]finding.Evidence{
				evid("goroutines waiting (mean)", l.Waiting, "goroutines"),
				evid("waits", float64(l.Count), "waits"),
				evid("total wait", ms(l.Wait.Total), "ms"),
				evid("p99 wait", ms(l.Wait.P99), "ms"),
			},
			finding.MustLookup("SD309").Fix)
	}
	out = append(out, spikeRules(s, opt)...) // SD315, SD316 (rule_spikes.go, rule_wakers.go)
	out = mergeSites(out)
	finding.Sort(out)
	return out
}

// confirm marks a finding the source confirmed: both sources, the spin's
// line first.
func confirm(f *finding.Finding, v *Verdict) {
	f.Sources = []string{string(finding.SourceTrace), string(finding.SourceLint)}
	var first []finding.Location
	for _, l := range []finding.Location{v.Line, v.Loop} {
		if l.File != "" && l.Line > 0 && (l.Function == "" || isUserFunc(l.Function)) && !slices.Contains(first, l) {
			first = append(first, l)
		}
	}
	f.Locations = append(first, slices.DeleteFunc(f.Locations, func(l finding.Location) bool { return slices.Contains(first, l) })...)
}

// cause is what the spinning sites say about the Ps' busy time.
type cause struct {
	spin, compute bool // spinning sites explain the busy time: a spin (or unknown), or confirmed compute
	text, fix     string
	locs          []finding.Location
	site          SpinSite
}

// causeOf decides whether the spinning sites explain the Ps' busy time,
// and what the source (when given) says they do.
func causeOf(s *Summary, verdicts []*Verdict) cause {
	if len(s.Spinning) == 0 || s.SpinPct < spinExplainPct {
		return cause{}
	}
	sp, v := s.Spinning[0], verdicts[0]
	at := "its goroutines' stop line"
	if sp.HotLine.File != "" {
		at = fmt.Sprintf("%s:%d", shortFile(sp.HotLine.File), sp.HotLine.Line)
	}
	c := cause{site: sp}
	if sp.HotLine.File != "" {
		c.locs = []finding.Location{sp.HotLine}
	}
	shape := fmt.Sprintf("%.0f%% of their running time in stretches ended by preemption or a yield, %d blocks", sp.StopRunPct, sp.Blocked)
	switch {
	case (v == nil || !v.Spin) && sampledSpin(sp):
		c.spin = true
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s whose CPU samples are %.0f%% in select or yield code at %s (%s), see SD308",
			s.SpinPct, sp.Function, sp.SpinCodePct, at, shape)
		c.fix = "Make the waiting goroutines block on what they wait for (see SD308): more CPU would only feed the wait."
	case v != nil && v.Compute:
		c.compute = true
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s that compute at %s until preempted (%s; the source shows %s): the work needs more CPU than the Ps give",
			s.SpinPct, sp.Function, at, shape, v.Detail)
		c.fix = "The goroutines compute: do less work per request, split it, or give the process more CPU (check GOMAXPROCS is not below the CPUs available)."
	case v != nil && v.Spin && sp.Samples >= samplesMinimum && sp.WorkCodePct >= workCodePct:
		c.compute = true
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s at %s whose CPU samples are %.0f%% in the calls their loop makes (%s): the work needs more CPU than the Ps give",
			s.SpinPct, sp.Function, at, sp.WorkCodePct, shape)
		c.fix = "The goroutines work: do less work per request, split it, or give the process more CPU (check GOMAXPROCS is not below the CPUs available)."
	case v != nil && v.Spin:
		c.spin = true
		if v.Line.File != "" {
			at = fmt.Sprintf("%s:%d", shortFile(v.Line.File), v.Line.Line)
			c.locs = append([]finding.Location{v.Line}, c.locs...)
		}
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s in a loop that %s at %s (%s), see SD308",
			s.SpinPct, sp.Function, v.Detail, at, shape)
		if sp.HotFrom == "stops" {
			// Their stretches end at the loop; their time may be
			// elsewhere (see spinning).
			c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines that never block, %s first, which waits in a loop that %s at %s (%s; without CPU samples the trace cannot say how much of that time the loop takes), see SD308",
				s.SpinPct, sp.Function, v.Detail, at, shape)
		}
		c.fix = "Make the spinning goroutines block on what they wait for (see SD308): more CPU would only feed the spin."
	case v != nil:
		// The source shows neither a spin nor plain computation (the
		// loop blocks, or the line is in no loop): the goroutines work
		// between their waits; say what was seen.
		c.compute = true
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s at %s that run until preempted (%s), in code the source shows as %s (%s)",
			s.SpinPct, sp.Function, at, shape, v.Kind, v.Detail)
		c.fix = finding.MustLookup("SD302").Fix
	default:
		c.spin = true
		c.text = fmt.Sprintf("%.0f%% of the Ps' busy time is goroutines running %s at %s that run until preempted (%s): compute or spin, see SD308",
			s.SpinPct, sp.Function, at, shape)
		c.fix = "First rule out a spin at the line SD308 names (schedoctor lint, or -src DIR so the trace reads it): a busy wait there takes the Ps that others queue for. Only if it computes does the process need more CPU or less work."
	}
	return c
}

// wokenBy returns the % of the time spent runnable after a wake-up that
// followed wake-ups of kind w, and whether that explains the queue: w
// holds convoyPct of it, and, when all is set, wake-ups hold convoyPct of
// all the time spent runnable (not creations or preemptions; a lock
// convoy's holders are preempted inside the lock, so it does not ask).
func wokenBy(s *Summary, w wake, all bool) (float64, bool) {
	var woken, total time.Duration
	for _, r := range s.Latency.ByReason {
		total += r.Total
	}
	for _, k := range []wake{wakeSyscall, wakeChan, wakeSleep, wakeSync, wakeNetwork, wakeOther} {
		woken += reasonLatency(s, k).Total
	}
	by := reasonLatency(s, w).Total
	if woken <= 0 || 100*float64(by) < convoyPct*float64(woken) || all && 100*float64(woken) < convoyPct*float64(total) {
		return 0, false
	}
	return round2(100 * float64(by) / float64(woken)), true
}

// shortPoll is SD307's gate: one site sleeps back to back, often, and
// briefly.
func shortPoll(sl SleepSummary, perS float64) bool {
	return sl.Repeats >= sleepRepeats && perS >= sleepRepeatsPerS && sl.Slept.P50 <= sleepShort && isUserFunc(sl.Location.Function)
}

// pollOf returns the sleep poll (SD307's site with the most back-to-back
// sleeps) that explains the time spent runnable: goroutines woken from
// sleeps hold convoyPct of the time spent runnable after a wake-up. Each
// short sleep ends in a wake-up that queues for a P: the queue is the
// poll's, and more CPU would only run the poll more often. Its fields
// fill a convoy with lock nil and where set.
func pollOf(s *Summary, secs float64) convoy {
	var site *SleepSummary
	for i, sl := range s.Sleeps {
		if shortPoll(sl, float64(sl.Repeats)/secs) && (site == nil || sl.Repeats > site.Repeats) {
			site = &s.Sleeps[i]
		}
	}
	if site == nil {
		return convoy{}
	}
	pct, ok := wokenBy(s, wakeSleep, true)
	if !ok {
		return convoy{}
	}
	at := fmt.Sprintf("%s:%d", shortFile(site.Location.File), site.Location.Line)
	return convoy{
		lock:    &LockSummary{Location: site.Location},
		poll:    true,
		syncPct: pct,
		text: fmt.Sprintf("of a sleep poll at %s: %.0f%% of the time spent runnable after a wake-up followed a sleep, and that "+
			"site sleeps %.0f times a second back to back for %v at the median, each wake-up queueing for a P, see SD307",
			at, pct, site.PerS, dur(site.Slept.P50)),
		fix: "The queue is the poll's, not the CPU's: block on the event the loop at " + at + " polls for (a channel, " +
			"sync.Cond, a WaitGroup) instead of sleeping and checking again (SD307, SD102); more CPU would only run the " +
			"poll more often.",
	}
}

// convoy is a lock queue (SD309's lock), or a sleep poll (SD307's site,
// poll set), that explains the backlog.
type convoy struct {
	poll      bool
	lock      *LockSummary
	syncPct   float64 // of the time spent runnable after a wake-up
	text, fix string
}

// convoyOf returns the lock convoy that explains the time spent runnable:
// the lock SD309 reports with the most goroutines waiting, when the
// goroutines woken by sync primitives hold convoyPct of the time spent
// runnable after a wake-up. Such goroutines are handed the lock one at a
// time and queue for a P between hand-offs: more CPU does not shorten that
// queue, a shorter critical section does.
func convoyOf(s *Summary) convoy {
	var lock *LockSummary
	for i, l := range s.Locks {
		if l.Count >= lockMinimum && l.Waiting >= lockWaiting && (lock == nil || l.Waiting > lock.Waiting) {
			lock = &s.Locks[i]
		}
	}
	if lock == nil {
		return convoy{}
	}
	pct, ok := wokenBy(s, wakeSync, false)
	if !ok {
		return convoy{}
	}
	at := fmt.Sprintf("%s:%d", shortFile(lock.Location.File), lock.Location.Line)
	return convoy{
		lock:    lock,
		syncPct: pct,
		text: fmt.Sprintf("of a lock convoy at %s: %.0f%% of the time spent runnable after a wake-up followed a wake-up by a sync primitive "+
			"(Mutex, RWMutex, WaitGroup, Cond), and the lock's %d goroutines are handed it one at a time and queue for a P in between (%.2f waiting on "+
			"average), see SD309", at, pct, lock.Goroutines, lock.Waiting),
		fix: "The queue is the lock's, not the CPU's: shorten the critical section at " + at + " (move work out of it), shard " +
			"the state it guards, or give each goroutine its own copy and merge at the end (SD309); more CPU would only add " +
			"goroutines to the convoy.",
	}
}

func (c convoy) evidence() []finding.Evidence {
	if c.lock == nil {
		return nil
	}
	if c.poll {
		return []finding.Evidence{evid("time runnable after a wake-up from a sleep", c.syncPct, "%")}
	}
	return []finding.Evidence{
		evid("time runnable after a wake-up by a sync primitive", c.syncPct, "%"),
		evid("goroutines waiting on the convoy's lock (mean)", c.lock.Waiting, "goroutines"),
	}
}

// sampledSpin reports whether a spinning site's CPU samples (enough of
// them) are mostly in the runtime's select or yield code: waiting, as
// measured, whatever the source reads.
func sampledSpin(sp SpinSite) bool {
	// A loop that blocks in its select between events (the lab timerloop's
	// fixed twin: 146,484 blocks in a second, 0% of its running time ended
	// by preemption or a yield, mean stretch 4.9µs) spends its CPU in
	// selectgo too: that is the price of its events, not a spin. A spin
	// runs until preempted, or for long stretches between the rare events
	// it waits for (a handler spinning for its 1 ms job on idle Ps).
	return sp.Samples >= samplesMinimum && sp.SpinCodePct >= spinCodePct && sp.WorkCodePct < workCodePct &&
		(sp.StopRunPct >= spinRunningPct || sp.MeanRun >= spinStretch)
}

// spinStretch is the mean running stretch from which a site whose samples
// are in select or yield code spins between its blocks: a select that
// blocks per event runs for microseconds (the timerloop twin: 4.9µs); the
// issue-20 handlers spin for their job's millisecond.
const spinStretch = 100 * time.Microsecond

func (c cause) evidence() []finding.Evidence {
	if !c.spin && !c.compute {
		return nil
	}
	return []finding.Evidence{
		evid("Ps' busy time in goroutines that run until preempted", c.site.BusyPct, "%"),
		evid("their running time ended by preemption or a yield", c.site.StopRunPct, "%"),
	}
}

// hostFix is the advice when the host withheld the CPU.
const hostFix = "Find what takes the CPU from the process: schedoctor procs (CFS throttling SD404, CPU pressure SD406) and the other processes on the host; more Ps or less batching will not help while the threads wait for a CPU."

// hostCause says the host withheld CPU when the Ps were busy far beyond
// the CPU the process got; "" when it was not, or the CPU is unknown.
func hostCause(s *Summary) string {
	p := s.Procs
	if p.ProcessCPU <= 0 || p.BusyPerCorePct < withheldPct || p.BusyMean-p.ProcessCores < withheldPs {
		return ""
	}
	return fmt.Sprintf("the host withheld CPU: the Ps were busy %.2f on average while the process got %.2f cores (%s), so goroutines \"ran\" on threads that were not running",
		p.BusyMean, p.ProcessCores, p.ProcessCPUFrom)
}

// queueReason names what the time spent runnable followed, by total wait.
// queueReason is SD302's "because", from the reason that accounts for most
// of the time spent runnable, and the fix that reason calls for: only
// goroutines that run until preempted call for CPU; yields call for
// blocking, creation for a pool, channel hand-offs for batching.
func queueReason(s *Summary, secs float64) (why, fix string) {
	fix = finding.MustLookup("SD302").Fix
	var total time.Duration
	best := ReasonLatency{}
	var woken time.Duration
	var wokenN uint64
	for _, r := range s.Latency.ByReason {
		total += r.Total
		if r.Total > best.Total {
			best = r
		}
	}
	for _, w := range []wake{wakeSyscall, wakeChan, wakeSleep, wakeSync, wakeNetwork, wakeOther} {
		p := reasonLatency(s, w)
		woken += p.Total
		wokenN += p.Count
	}
	if total <= 0 {
		return "of a runnable queue the trace could not attribute (no starts measured)", fix
	}
	pct := func(d time.Duration) float64 { return 100 * float64(d) / float64(total) }
	pre := reasonLatency(s, wakePreempted)
	switch best.Reason {
	case wakeNames[wakePreempted]:
		return fmt.Sprintf("goroutines that run until preempted outnumber the Ps: %.0f%% of the time spent runnable followed a preemption (%d preemptions, %d wake-ups)",
			pct(best.Total), pre.Count, wokenN), fix
	case wakeNames[wakeYield]:
		return fmt.Sprintf("goroutines that yield with runtime.Gosched requeue behind the Ps: %.0f%% of the time spent runnable followed a yield (%d yields, %d wake-ups, %d preemptions)",
				pct(best.Total), best.Count, wokenN, pre.Count),
			"A goroutine that yields goes back to the run queue at once, so its yields are the queue: block on what it waits for " +
				"(a channel, sync.Cond, a WaitGroup) instead of calling runtime.Gosched (SD308, SD106); more CPU only feeds the spin."
	case wakeNames[wakeCreated]:
		return fmt.Sprintf("goroutines are created faster than %d Ps run them: %.0f%% of the time spent runnable followed creation (%.0f/s, median wait %v)",
				s.Procs.GOMAXPROCS, pct(best.Total), float64(best.Count)/secs, dur(best.P50)),
			"Bound the work in flight: feed a pool of about GOMAXPROCS goroutines from a channel instead of starting a goroutine per item; add CPU only if the pool's goroutines stay busy."
	case wakeNames[wakeStart]:
		return fmt.Sprintf("goroutines were already queued when the trace began (%.0f%% of the time spent runnable): record longer to see why", pct(best.Total)), fix
	}
	why = fmt.Sprintf("goroutines woken after a wait queue for the Ps: %.0f%% of the time spent runnable followed a wake-up, most after %s (%d wake-ups, p99 %v; %d preemptions)",
		pct(woken), best.Reason, best.Count, dur(best.P99), pre.Count)
	if best.Reason == wakeNames[wakeChan] && pre.Count*10 < best.Count {
		// Goroutines woken by channel operations that rarely run a whole
		// time slice: the queue is a chain of hand-offs (a pipeline, the
		// prime sieve), each stage running briefly for every item.
		fix = "The queue is goroutines handing items to each other over channels, each running briefly per item: pass items in " +
			"batches (slices per send) or fuse stages so fewer goroutines take turns per item; add CPU only if a profile " +
			"shows the Ps doing the items' real work rather than channel and scheduler work (SD201, SD205)."
	}
	return why, fix
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

// stallList prints the first n stalls: "58ms at 1.203s (GC mark termination)".
func stallList(st []Stall, n int) string {
	if len(st) == 0 {
		return "none recorded"
	}
	var parts []string
	for _, x := range first(st, n) {
		p := fmt.Sprintf("%v at %v (%s", dur(x.Duration), x.At.Round(time.Millisecond), x.What)
		if x.Location.File != "" && isUserFunc(x.Location.Function) {
			p += fmt.Sprintf(", %s:%d", shortFile(x.Location.File), x.Location.Line)
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

func stallEvidence(what string, st []Stall, n int) []finding.Evidence {
	var out []finding.Evidence
	for i, x := range first(st, n) {
		out = append(out, evid(fmt.Sprintf("%s #%d (at %v)", what, i+1, x.At.Round(time.Millisecond)), ms(x.Duration), "ms"))
	}
	return out
}

// mergeSites reports once what several creation sites show at the same
// place: goroutines of one function started by different go statements (or
// alive before the trace began, with no known creator) that spin or
// migrate at the same line are one cause. The first finding, of the site
// with the most running time, keeps its figures; the count of sites is
// added to its evidence.
func mergeSites(fs []finding.Finding) []finding.Finding {
	type key struct {
		rule string
		locs string
	}
	first := map[key]int{}
	merged := map[int]int{}
	out := fs[:0]
	for _, f := range fs {
		if (f.Rule != "SD304" && f.Rule != "SD308") || len(f.Locations) == 0 {
			out = append(out, f)
			continue
		}
		k := key{f.Rule, fmt.Sprint(f.Locations)}
		if i, ok := first[k]; ok {
			merged[i]++
			if f.Severity > out[i].Severity {
				out[i].Severity = f.Severity
			}
			continue
		}
		first[k] = len(out)
		out = append(out, f)
	}
	for i, n := range merged {
		out[i].Evidence = append(out[i].Evidence, evid("other creation sites with the same finding here (figures above are the largest site's)", float64(n), "sites"))
	}
	return out
}

// processCPUEvidence is the CPU the process got, when it is known: a zero
// would read as "the process got no CPU".
func processCPUEvidence(s *Summary) []finding.Evidence {
	if s.Procs.ProcessCPU <= 0 {
		return nil
	}
	return []finding.Evidence{evid("CPU the process got", s.Procs.ProcessCores, "cores")}
}

// userLocs drops the locations in the runtime, the standard library or
// testing when the list holds a user frame, and duplicates.
func userLocs(locs []finding.Location) []finding.Location {
	hasUser := false
	for _, l := range locs {
		if isUserFunc(l.Function) {
			hasUser = true
		}
	}
	var out []finding.Location
	for _, l := range locs {
		if (hasUser && l.Function != "" && !isUserFunc(l.Function)) || slices.Contains(out, l) || (l.File == "" && l.Function == "") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

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
		if st.Latency.Count >= tailMinimum && (w == nil || st.Latency.P99 > w.Latency.P99) {
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

// blockWord says how the site's goroutines most often leave the CPU,
// from the counts: preempted or yielding, or blocking on what.
func blockWord(st *SiteSummary) string {
	stops := st.Preempts + st.Yields
	if len(st.Blocks) == 0 || stops > st.Blocked {
		if st.Yields > st.Preempts {
			return fmt.Sprintf("yield (%d yields, %d blocks)", st.Yields, st.Blocked)
		}
		return fmt.Sprintf("are preempted (%d preemptions, %d blocks)", st.Preempts, st.Blocked)
	}
	b := st.Blocks[0]
	what := map[string]string{
		wakeNames[wakeChan]: "block on a channel or select", wakeNames[wakeSleep]: "sleep",
		wakeNames[wakeSync]: "wait on a lock, WaitGroup or Cond", wakeNames[wakeNetwork]: "wait on the network",
		wakeNames[wakePreempted]: "are preempted", wakeNames[wakeOther]: "block",
	}[b.Reason]
	if what == "" {
		what = "block (" + b.Reason + ")"
	}
	return fmt.Sprintf("%s (%d of %d blocks)", what, b.Count, st.Blocked)
}

func ms(d time.Duration) float64 { return round2(float64(d) / 1e6) }
func us(d time.Duration) float64 { return round2(float64(d) / 1e3) }

func evid(label string, v float64, unit string) finding.Evidence {
	return finding.Evidence{Label: label, Value: v, Unit: unit}
}

// batchEvidence is the calls of a syscall site that came through a
// batching I/O frame, when any did.
func batchEvidence(sc SyscallSite) []finding.Evidence {
	if sc.Batched == 0 {
		return nil
	}
	return []finding.Evidence{evid("syscalls through a buffer (bufio, writev)", float64(sc.Batched), "syscalls")}
}

// consequence is the severity of a latency or backlog finding (SD301,
// SD302) that a spin, a lock convoy or a sleep poll explains. The cause's
// own finding (SD308, SD309, SD307) carries the measured cost and the fix;
// the symptom names it and links to it, so that one cause is not warned
// about twice and the symptom never leads (issue 20).
const consequence = finding.Info
