package exectrace

import (
	"fmt"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

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
		c.fix = "First rule out a spin at the line SD308 names (schedoctor lint, or the module's source given to the trace so that it reads it): a busy wait there takes the Ps that others queue for. Only if it computes does the process need more CPU or less work."
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

// consequence is the severity of a latency or backlog finding (SD301,
// SD302) that a spin, a lock convoy or a sleep poll explains. The cause's
// own finding (SD308, SD309, SD307) carries the measured cost and the fix;
// the symptom names it and links to it, so that one cause is not warned
// about twice and the symptom never leads (issue 20).
const consequence = finding.Info
