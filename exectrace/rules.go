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
	// SD301's cause is a heavy waker (SD316) when the starts of the
	// goroutines it woke are this share of the starts after a wait and
	// their p99 is this share of the trace's: the tail is theirs. In the
	// recordings it is all or nothing: nats-server's flush signal has 99%
	// of the starts (p99 92.3ms, the trace's 92.3ms), cskr/pubsub's send
	// 97% (302ms, 302ms); steady fan-outs have no heavy burst at all.
	wakerTailPct    = 50.0
	wakerTailP99Pct = 90.0
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

// findings applies the rules without a source to judge the spinning sites.
func findings(s *Summary, opt Options) []finding.Finding { return Findings(s, opt, nil) }

// ruleCtx is what the rules share: the figures of one trace, the options,
// what is computed once from them (the sites, the source's verdicts, the
// causes the latency rules name) and the findings so far. A rule reads it
// and appends with add; it never edits another rule's finding.
type ruleCtx struct {
	s        *Summary
	opt      Options
	judge    Judge
	secs     float64        // the trace's duration, never zero
	users    []*SiteSummary // the program's own sites, by running time
	verdicts []*Verdict     // the source's verdict per s.Spinning, nil entries without a judge
	cause    cause          // what the spinning sites say about the Ps' busy time
	host     string         // the host withheld the CPU: why, else ""
	convoy   convoy         // the lock convoy, else the sleep poll, that explains the queue
	waker    *WakerSummary  // the heavy waker (SD316) whose wakees are the latency tail, else nil
	out      []finding.Finding
}

// add appends a finding: what is the headline, why the Because. The
// pointer is valid until the next add.
func (r *ruleCtx) add(rule string, sev finding.Severity, what, why string, locs []finding.Location, ev []finding.Evidence, fix string) *finding.Finding {
	r.out = append(r.out, finding.Finding{Rule: rule, Severity: sev, What: what, Because: why, Locations: userLocs(locs), Evidence: ev, Fix: fix})
	return &r.out[len(r.out)-1]
}

// traceRules are the SD3xx rules in the order Findings runs them, one
// function each (in rule_sdNNN.go); the order is that of their findings
// before mergeSites and finding.Sort. SD306 has two: the GC's share of the
// time, and its long pauses as tail stalls. A new rule adds its line here
// (docs/HACKING.md, "Adding a trace rule").
var traceRules = []struct {
	id  string
	run func(*ruleCtx)
}{
	{"SD301", schedLatency},
	{"SD302", runnableBacklog},
	{"SD303", psAboveCPUs},
	{"SD304", migration},
	{"SD305", syscallHandoff},
	{"SD306", gcPauses},
	{"SD306", longPauses},
	{"SD307", shortSleepChurn},
	{"SD308", neverBlocks},
	{"SD309", lockQueue},
	{"SD315", func(r *ruleCtx) { r.out = append(r.out, ruleSpikes(r.s, r.opt)...) }},
	{"SD316", func(r *ruleCtx) { r.out = append(r.out, ruleWakers(r.s, r.opt)...) }},
}

// Findings applies the SD3xx rules to the figures of one trace; judge,
// when not nil, says what the source shows at the spinning sites' lines.
func Findings(s *Summary, opt Options, judge Judge) []finding.Finding {
	r := newRuleCtx(s, opt, judge)
	for _, rule := range traceRules {
		rule.run(r)
	}
	out := mergeSites(r.out)
	finding.Sort(out)
	return out
}

// newRuleCtx computes what the rules share.
func newRuleCtx(s *Summary, opt Options, judge Judge) *ruleCtx {
	r := &ruleCtx{s: s, opt: opt, judge: judge, secs: max(s.Trace.Duration.Seconds(), 1e-9), users: userSites(s)}
	r.verdicts = make([]*Verdict, len(s.Spinning))
	for i, sp := range s.Spinning {
		if judge != nil {
			r.verdicts[i] = judge(sp)
		}
	}
	r.cause = causeOf(s, r.verdicts)
	r.host = hostCause(s)
	r.convoy = convoyOf(s)
	if r.convoy.lock == nil {
		// one queue cause: a lock convoy first (its goroutines are
		// handed the lock one at a time), else a sleep poll
		r.convoy = pollOf(s, r.secs)
	}
	r.waker = tailWaker(s)
	return r
}

// tailWaker returns the waker SD316 reports whose wakees make the
// scheduling-latency tail after a wait (wakerTailPct, wakerTailP99Pct),
// the one that woke most when several do; nil when none.
func tailWaker(s *Summary) *WakerSummary {
	w := s.Latency.Woken
	var best *WakerSummary
	for i := range s.Wakers {
		k := &s.Wakers[i]
		if !reportedWaker(k) || 100*float64(k.Latency.Count) < wakerTailPct*float64(w.Count) ||
			100*float64(k.Latency.P99) < wakerTailP99Pct*float64(w.P99) {
			continue
		}
		if best == nil || k.Latency.Count > best.Latency.Count {
			best = k
		}
	}
	return best
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
