package profile

import (
	"fmt"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile/classify"
)

// Limit is the threshold of one rule: a cause is reported when its share
// of the profile's CPU time reaches Share (with Thresholds.MinSamples
// samples), as a warning from Cores up and as info below.
type Limit struct {
	Share float64 // % of the profile's CPU time
	Cores float64 // CPU time / duration
}

// Thresholds are the limits of SD201–SD209. docs/profile.md gives the lab
// measurements that justify each default.
type Thresholds struct {
	// MinSamples is the fewest samples a cause needs before any finding is
	// drawn from it: below that the share is noise.
	MinSamples int64

	ThreadChurn Limit // SD201
	IdleSpin    Limit // SD202
	Timers      Limit // SD203
	BusyWait    Limit // SD204: non-blocking select and Gosched
	RuntimeLock Limit // SD205
	Mutex       Limit // SD206
	GC          Limit // SD207: mark, assist and sweep together
	Preempt     Limit // SD208
	Syscall     Limit // SD209

	// MaxParkRatio: SD204 needs parking (scheduler, idle spinning, thread
	// churn) below this fraction of the busy-wait share; a ping-pong parks
	// on every exchange, a busy-wait never.
	MaxParkRatio float64
	// PreemptAlone is the preemption share that one profile must reach for
	// SD208 to be a warning; below it (and above Preempt.Share) a warning
	// needs several profiles that each show it, else it is info.
	PreemptAlone float64
}

// DefaultThresholds are the limits measured on the lab (docs/profile.md).
var DefaultThresholds = Thresholds{
	MinSamples:   10,
	ThreadChurn:  Limit{Share: 20, Cores: 0.05},
	IdleSpin:     Limit{Share: 25, Cores: 0.05},
	Timers:       Limit{Share: 20, Cores: 0.05},
	BusyWait:     Limit{Share: 40, Cores: 0.05},
	RuntimeLock:  Limit{Share: 15, Cores: 0.05},
	Mutex:        Limit{Share: 10, Cores: 0.05},
	GC:           Limit{Share: 25, Cores: 0.05},
	Preempt:      Limit{Share: 8, Cores: 0.05},
	Syscall:      Limit{Share: 40, Cores: 0.05},
	MaxParkRatio: 0.5,
	PreemptAlone: 12,
}

// reach reports whether a figure passes a limit's share with enough
// samples. Cores decide the severity (see add), not whether to report:
// "futex at 50% of 0.03 cores" is worth knowing, and cheap at that load.
func (a *analysis) reach(l Limit, share float64, samples int64) bool {
	return share >= l.Share && samples >= a.th.MinSamples
}

// group sums several causes' rows.
func (a *analysis) group(causes ...classify.Cause) (share, cores float64, samples int64) {
	for _, c := range causes {
		r := a.sum.row(c)
		share += r.Share
		cores += r.Cores
		samples += r.Samples
	}
	return
}

// ruleShare is the share of CPU matched by the classifier rules whose
// names start with one of names.
func (a *analysis) ruleShare(names ...string) float64 {
	var s float64
	for _, c := range a.sum.Causes {
		for _, r := range c.Rules {
			for _, n := range names {
				if strings.HasPrefix(r.Rule, n) {
					s += r.Share
				}
			}
		}
	}
	return s
}

// where picks the user lines to blame for a group of causes: the user
// frames of the cause with the most CPU under user frames, when most of
// that cause has them; else the callers the hints found (the user calls of
// time.Sleep, go statements, channel operations, mallocgc). cut reports
// that the lines come from hints.
func (a *analysis) where(causes ...classify.Cause) (locs []finding.Location, lines []UserLine, cut bool) {
	var best, bestCut Cause
	for _, c := range causes {
		r := a.sum.row(c)
		if r.Share*(100-r.CutShare) > best.Share*(100-best.CutShare) {
			best = r
		}
		if r.Share > bestCut.Share {
			bestCut = r
		}
	}
	lines = best.Lines
	if best.CutShare >= 50 || len(lines) == 0 {
		lines, cut = bestCut.Callers, true
	}
	for _, l := range lines {
		if l.Share < 10 && len(locs) > 0 {
			break
		}
		locs = append(locs, l.location())
		if len(locs) == 3 {
			break
		}
	}
	return locs, lines, cut
}

// cutBy says why a cause's stacks carry no user frame.
func cutBy(c classify.Cause) string {
	switch c {
	case classify.GCMark, classify.GCSweep, classify.GCAssist:
		return "; the GC's own work runs on system goroutines with no user frame: the lines are where the program allocates"
	case classify.Preempt, classify.Mutex, classify.Syscall, classify.Channel, classify.User, classify.Alloc:
		return ""
	}
	return "; the stacks are cut by mcall (scheduler work on g0) and the lines are the user calls that drive it: " +
		"run `schedoctor trace` to see which goroutines cause it"
}

func at(lines []UserLine, cut bool) string {
	if len(lines) == 0 {
		if cut {
			return "with no user frame in its stacks and too few samples of the calls that drive it to name a line"
		}
		return "with no user frame in its stacks"
	}
	l := lines[0]
	file := l.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	return fmt.Sprintf("at %s:%d (%s)", file, l.Line, l.Function)
}

func ev(label string, v float64, unit string) finding.Evidence {
	return finding.Evidence{Label: label, Value: round(v), Unit: unit}
}

func round(v float64) float64 {
	switch {
	case v >= 10:
		return float64(int64(v*10+0.5)) / 10
	default:
		return float64(int64(v*1000+0.5)) / 1000
	}
}

// add appends a finding for a cause group with the standard evidence. The
// severity is the catalog's; info when the cause uses fewer cores than the
// limit; critical at twice the share limit and a whole core.
func (a *analysis) add(rule string, lim Limit, share, cores float64, msg string, causes []classify.Cause, fix string, extra ...finding.Evidence) {
	locs, lines, cut := a.where(causes...)
	r, _ := finding.Lookup(rule)
	f := finding.Finding{
		Rule:     rule,
		Severity: r.Severity,
		Message:  fmt.Sprintf("%.0f%% of CPU (%.2f cores) %s, %s", share, cores, msg, at(lines, cut)),
		Evidence: []finding.Evidence{
			ev("share of the profile's CPU time", share, "%"),
			ev("cores (CPU time / profile duration)", cores, "cores"),
		},
		Locations: locs,
		Fix:       fix,
	}
	f.Evidence = append(f.Evidence, extra...)
	if top := a.sum.row(causes[0]).Labels; len(top) > 0 && top[0].Share >= 50 {
		f.Message += fmt.Sprintf(", %.0f%% of it in %s", top[0].Share, top[0].Label)
	}
	for _, c := range causes {
		row := a.sum.row(c)
		for _, l := range row.Labels {
			f.Evidence = append(f.Evidence, ev(string(c)+" under pprof label "+l.Label, l.Share, "% of "+string(c)))
		}
		if row.Chain != "" {
			f.Evidence = append(f.Evidence, ev("heaviest stack of "+string(c)+": "+row.Chain, row.ChainShare, "% of "+string(c)))
		}
	}
	if len(lines) > 0 {
		label := "of the cause's CPU under this user line"
		if cut {
			label = "of the CPU of the driving calls (time.Sleep, go, channel ops, mallocgc) made at this line"
		}
		f.Evidence = append(f.Evidence, ev(label, lines[0].Share, "%"))
	}
	if cut {
		f.Fix += cutBy(causes[0])
	}
	switch {
	case cores < lim.Cores:
		f.Severity = finding.Info
		f.Message += fmt.Sprintf("; only %.3f cores, cheap at this load", cores)
	case share >= 2*lim.Share && cores >= 1:
		f.Severity = finding.Critical
	}
	a.out = append(a.out, f)
}

// findings derives SD201–SD209 from the cause table.
func (a *analysis) findings() {
	th := a.th
	if s, c, n := a.group(classify.ThreadChurn); a.reach(th.ThreadChurn, s, n) {
		// A channel hand-off parks and wakes by design; when channel work
		// outweighs the churn, the churn is the price of the communication
		// (the ping-pong control), not a polling loop.
		if ch, _, _ := a.group(classify.Channel); ch < s {
			a.add("SD201", th.ThreadChurn, s, c, "goes to waking and parking threads (runtime.futex via wakep/startm and stopm/notesleep)",
				[]classify.Cause{classify.ThreadChurn},
				"block on the event instead of sleep-polling (a channel, sync.WaitGroup, a semaphore), batch work so fewer "+
					"wake-ups are needed, and hand items over in batches rather than one at a time",
				ev("wake: futex via wakep/startm/notewakeup", a.ruleShare("wake:"), "%"),
				ev("park: futex via stopm/mPark/notesleep", a.ruleShare("park:"), "%"),
				ev("channel operations (below the churn: not a hand-off workload)", ch, "%"))
		}
	}
	if s, c, n := a.group(classify.IdleSpin); a.reach(th.IdleSpin, s, n) {
		a.add("SD202", th.IdleSpin, s, c, "goes to idle Ps spinning for work (findRunnable/stealWork)", []classify.Cause{classify.IdleSpin},
			"give goroutines larger pieces of work, batch handoffs, or lower GOMAXPROCS to the parallelism the workload has")
	}
	if s, c, n := a.group(classify.Timers); a.reach(th.Timers, s, n) {
		a.add("SD203", th.Timers, s, c, "goes to timer heap work (timers made, reset and run)", []classify.Cause{classify.Timers},
			"make the timer once and Reset it only when it fires (or use one deadline for the whole operation) instead of "+
				"time.After or time.Sleep per iteration; block on the event instead of sleep-polling")
	}
	a.busyWait()
	if s, c, n := a.group(classify.RuntimeLock); a.reach(th.RuntimeLock, s, n) {
		a.add("SD205", th.RuntimeLock, s, c, "spins or sleeps on runtime-internal locks (lock2/unlock2 → procyield/osyield/futex)",
			[]classify.Cause{classify.RuntimeLock},
			"shard the channel or timer the goroutines share, batch items, or let fewer goroutines share one channel")
	}
	if s, c, n := a.group(classify.Mutex); a.reach(th.Mutex, s, n) {
		a.add("SD206", th.Mutex, s, c, "goes to sync.Mutex contention (lockSlow, semacquire, spinning)", []classify.Cause{classify.Mutex},
			"shorten the critical section, shard the state, or give each goroutine its own copy and merge at the end; "+
				"see the waiters with the mutex profile (runtime.SetMutexProfileFraction)")
	}
	gc := []classify.Cause{classify.GCAssist, classify.GCMark, classify.GCSweep}
	if s, c, n := a.group(gc...); a.reach(th.GC, s, n) {
		as, _, _ := a.group(classify.GCAssist)
		ms, _, _ := a.group(classify.GCMark)
		al, _, _ := a.group(classify.Alloc)
		a.add("SD207", th.GC, s, c, "goes to the garbage collector (mark, assists, sweep)", gc,
			"allocate less on the hot path (reuse buffers, sync.Pool, preallocate), and when memory allows raise GOGC "+
				"with a GOMEMLIMIT as the ceiling",
			ev("GC mark assists and write barriers paid by goroutines", as, "%"),
			ev("GC background mark", ms, "%"),
			ev("allocation (mallocgc) outside assists", al, "%"))
	}
	a.preempt()
	if s, c, n := a.group(classify.Syscall); a.reach(th.Syscall, s, n) {
		a.add("SD209", th.Syscall, s, c, "goes to system calls and the P handoffs around them", []classify.Cause{classify.Syscall},
			"buffer the I/O (bufio.Writer, larger reads), batch writes (net.Buffers/writev), and avoid a syscall per item",
			ev("P handoff (handoffp/exitsyscallNoP)", a.ruleShare("P handoff"), "%"),
			ev("syscall entry and exit bookkeeping", a.ruleShare("syscall entry"), "%"))
	}
	finding.Sort(a.out)
}

// busyWait is SD204: non-blocking selects (selectnbrecv/selectnbsend: one
// case and a default) and Gosched dominate while little parks. A channel
// ping-pong is busy too, but it uses blocking sends and receives and parks
// on every exchange. selectgo is left out: a select with a default and
// several cases runs selectgo(block=false), which a profile cannot tell
// from a blocking select whose channel is always ready (the fixed
// timerloop); the source can (SD101), and so can a trace (SD308).
func (a *analysis) busyWait() {
	sel := a.ruleShare("non-blocking select")
	ys, yc, yn := a.group(classify.Yield)
	chs, chc, chn := a.group(classify.Channel)
	share := sel + ys
	cores := yc
	if chs > 0 {
		cores += chc * sel / chs
	}
	park, _, _ := a.group(classify.Scheduler, classify.IdleSpin, classify.ThreadChurn)
	if !a.reach(a.th.BusyWait, share, chn+yn) || park > a.th.MaxParkRatio*share {
		return
	}
	what := "busy-waits in a select with a default (selectnbrecv/selectnbsend) and almost never parks"
	causes := []classify.Cause{classify.Channel}
	fix := "remove the select's default so the goroutine blocks until a case is ready (see SD101)"
	if ys > sel {
		what = "busy-waits yielding with runtime.Gosched and almost never parks"
		causes = []classify.Cause{classify.Yield}
		fix = "block on the event (a channel close, sync.WaitGroup, sync.Cond) instead of looping on runtime.Gosched (see SD106)"
	}
	a.add("SD204", a.th.BusyWait, share, cores, what, causes, fix, ev("parking (scheduler, idle spinning, thread churn)", park, "%"))
}

// preempt is SD208. A large asyncPreempt share is what GOMAXPROCS above the
// CPUs looks like: on a quiet 2-CPU machine, GOMAXPROCS=8 gave 19.5–20.2%
// and GOMAXPROCS=2 under 1% (docs/profile.md). A machine crowded by other
// processes looks the same (one healthy run in 13 showed 25%, RUNTIME-FACTS),
// and then the finding is true of the CPUs the process really gets. A
// warning needs PreemptAlone in a single profile, or Preempt.Share in each
// of several profiles; otherwise the finding is info and asks for
// corroboration.
func (a *analysis) preempt() {
	s, c, n := a.group(classify.Preempt)
	if !a.reach(a.th.Preempt, s, n) {
		return
	}
	sustained := a.perProfilePreempt >= a.th.Preempt.Share
	evs := []finding.Evidence{ev("process CPU rate over the profile", a.sum.Cores, "cores")}
	if a.perProfilePreempt >= 0 {
		evs = append(evs, ev("smallest preemption share among the profiles", a.perProfilePreempt, "%"))
	}
	a.add("SD208", a.th.Preempt, s, c, "goes to async preemption (asyncPreempt): more running threads than CPUs",
		[]classify.Cause{classify.Preempt},
		"set GOMAXPROCS to the CPUs really available (check with `schedoctor procs`; in containers build with Go 1.25+ and "+
			"go ≥ 1.25 in go.mod), and check that other processes do not crowd the CPUs; corroborate with `schedoctor trace` "+
			"(Ps busier than CPUs, SD303)", evs...)
	// One profile must reach PreemptAlone; several must each reach
	// Preempt.Share, so that one crowded moment does not make the verdict.
	single := a.perProfilePreempt < 0
	if f := &a.out[len(a.out)-1]; f.Severity == finding.Warning {
		switch {
		case single && s < a.th.PreemptAlone:
			f.Severity = finding.Info
			f.Message += fmt.Sprintf("; below %.0f%% in a single profile, so corroborate with more profiles or a trace", a.th.PreemptAlone)
		case !single && !sustained:
			f.Severity = finding.Info
			f.Message += fmt.Sprintf("; not sustained: under %.0f%% in one of the profiles, so corroborate with a trace", a.th.Preempt.Share)
		}
	}
}
