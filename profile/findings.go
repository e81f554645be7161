package profile

import (
	"cmp"
	"fmt"
	"slices"
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
	BusyWait:     Limit{Share: 40, Cores: finding.SpinWarningCores},
	RuntimeLock:  Limit{Share: 15, Cores: 0.05},
	Mutex:        Limit{Share: 10, Cores: 0.05},
	GC:           Limit{Share: 25, Cores: 0.05},
	Preempt:      Limit{Share: 8, Cores: 0.05},
	Syscall:      Limit{Share: 40, Cores: 0.25},
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
		// cut: the calls that drive it were sampled too seldom to name
		// a line (noLineNote, added beneath).
		return "with no user frame in its stacks"
	}
	l := lines[0]
	file := l.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	// The function is the location's (Locations[0]); the headline names
	// only the line, to stay one line.
	return fmt.Sprintf("at %s:%d", file, l.Line)
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
//
// what completes the headline "N% of CPU (C cores) <what>, at file:line";
// why, when not empty, is the Because.
func (a *analysis) add(rule string, lim Limit, share, cores float64, what, why string, causes []classify.Cause, fix string, extra ...finding.Evidence) {
	locs, lines, cut := a.where(causes...)
	r, _ := finding.Lookup(rule)
	f := finding.Finding{
		Rule:     rule,
		Severity: r.Severity,
		What:     fmt.Sprintf("%.0f%% of CPU (%.2f cores) %s, %s", share, cores, what, at(lines, cut)),
		Because:  why,
		Evidence: []finding.Evidence{
			ev("share of the profile's CPU time", share, "%"),
			ev("cores (CPU time / profile duration)", cores, "cores"),
		},
		Locations: locs,
		Fix:       fix,
	}
	f.Evidence = append(f.Evidence, extra...)
	if top := a.sum.row(causes[0]).Labels; len(top) > 0 && top[0].Share >= 50 {
		f.Note(finding.NoteLink, fmt.Sprintf("%.0f%% of it in %s", top[0].Share, top[0].Label))
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
		if len(lines) == 0 {
			f.Note(finding.NoteThin, noLineNote)
		}
	}
	switch {
	case cores < lim.Cores:
		f.Severity = finding.Info
		f.Note(finding.NoteQualifier, cheap(cores))
	case share >= criticalShareTimes*lim.Share && cores >= criticalCores:
		f.Severity = finding.Critical
	}
	a.out = append(a.out, f)
}

// findings derives SD201–SD209 from the cause table.
func (a *analysis) findings() {
	th := a.th
	a.churn()
	if s, c, n := a.group(classify.IdleSpin); a.reach(th.IdleSpin, s, n) {
		us, _, _ := a.group(classify.User)
		a.add("SD202", th.IdleSpin, s, c, "goes to idle Ps spinning for work (findRunnable/stealWork)", fmt.Sprintf("the "+
			"work comes in pieces too small to keep the Ps busy: the program's own code runs at %.0f%% of CPU", us), []classify.Cause{classify.IdleSpin},
			"give goroutines larger pieces of work, batch handoffs, or lower GOMAXPROCS to the parallelism the workload has")
	}
	if s, c, n := a.group(classify.Timers); a.reach(th.Timers, s, n) {
		a.add("SD203", th.Timers, s, c, "goes to timer heap work", "of "+a.sum.timerReason(), []classify.Cause{classify.Timers},
			"make the timer once and Reset it only when it fires (or use one deadline for the whole operation) instead of "+
				"time.After or time.Sleep per iteration; block on the event instead of sleep-polling")
	}
	a.busyWait()
	a.runtimeLock()
	if s, c, n := a.group(classify.Mutex); a.reach(th.Mutex, s, n) {
		a.add("SD206", th.Mutex, s, c, "goes to sync.Mutex contention (lockSlow, semacquire, spinning)", fmt.Sprintf("%.0f%% of "+
			"it is spinning for the lock, %.0f%% parking and waking waiters on the semaphore", a.sum.MutexSpinShare, 100-a.sum.MutexSpinShare),
			[]classify.Cause{classify.Mutex},
			"shorten the critical section, shard the state, or give each goroutine its own copy and merge at the end; "+
				"see the waiters with the mutex profile (runtime.SetMutexProfileFraction)")
	}
	a.gc()
	a.preempt()
	a.syscalls()
	finding.Sort(a.out)
}

// busyWait is SD204, from the profile alone: the select and Gosched frame
// families (Summary.Spins) that dominate while little parks. A channel
// ping-pong is busy too, but it parks on every exchange. selectnbrecv and
// selectnbsend are a one-case select with a default. The severity follows
// the cost (finding.SpinSeverity), with one exception: selectgo is info while
// channel communications complete at SelectCommShare of the CPU or more,
// because a blocking select whose channel a producer keeps ready (the
// fixed timerloop, 69–84% in select frames) looks like a select with a
// default that spins; the source can tell (diagnose.Profile), and so can
// a trace (SD308). Below it nothing is received or sent: whatever the
// code, the CPU goes to selecting. The Gosched calls of runtime.GC's sweep
// loop are the GC's (classify's forced-GC rule and ForcedGCYieldShare),
// not a spin.
func (a *analysis) busyWait() {
	park := a.sum.ParkShare
	for i, sp := range a.sum.Spins {
		if !a.reach(a.th.BusyWait, sp.Share, sp.Samples) || park > a.th.MaxParkRatio*sp.Share {
			continue
		}
		locs, lines := candLocs(a.sum.Candidates, sp.Kind)
		line := at(lines, false)
		var between *funcCPU
		if sp.Kind == CandYield && len(lines) == 0 {
			if between = a.onlyUserFunc(); between != nil {
				locs = between.locs
				line = at(between.lines, false)
			}
		}
		what, why, fix, causes, ask := spinWhat(sp.Kind, a.sum.CommShare, park, line)
		if sp.Kind == CandYield && len(lines) == 0 {
			fix += cutBy(classify.Yield)
		}
		r, _ := finding.Lookup("SD204")
		f := finding.Finding{
			Rule:     "SD204",
			Severity: r.Severity,
			What:     fmt.Sprintf("%.0f%% of CPU (%.2f cores) %s", sp.Share, sp.Cores, what),
			Because:  why,
			Evidence: []finding.Evidence{
				ev("share of the profile's CPU time", sp.Share, "%"),
				ev("cores (CPU time / profile duration)", sp.Cores, "cores"),
				ev("parking (scheduler, idle spinning, thread churn)", park, "%"),
				ev(spinKindLabel+sp.Kind, sp.Share, "%"),
			},
			Locations: locs,
			Fix:       fix,
		}
		if sp.CutShare > 0 && len(lines) == 0 && between == nil {
			f.Note(finding.NoteThin, noLineNote)
		}
		if between != nil {
			f.Note(finding.NoteLink, fmt.Sprintf("the yields' stacks are cut by mcall; between them the only user code running is %s, "+
				"%.0f%% of the user CPU", between.fn, between.part))
		}
		if ask {
			f.AddHint(finding.HintSourceDir, SourceNotFound)
		}
		if sp.CutShare > 0 {
			f.Evidence = append(f.Evidence, ev("of it with no user frame (cut by mcall)", sp.CutShare, "%"))
		}
		if a.sum.ForcedGCYieldShare > 0 {
			f.Evidence = append(f.Evidence, ev("Gosched of runtime.GC's sweep loop, left out", a.sum.ForcedGCYieldShare, "%"))
		}
		for _, c := range causes {
			if row := a.sum.row(c); row.Chain != "" {
				f.Evidence = append(f.Evidence, ev("heaviest stack of "+string(c)+": "+row.Chain, row.ChainShare, "% of "+string(c)))
			}
		}
		f.Severity = finding.SpinSeverity(sp.Share, sp.Cores)
		switch {
		case sp.Cores < finding.SpinWarningCores:
			f.Note(finding.NoteQualifier, cheap(sp.Cores))
		case sp.Kind == CandSelect && a.sum.CommShare >= SelectCommShare:
			f.Severity = finding.Info
		}
		if sp.Kind == CandSelect {
			f.Evidence = append(f.Evidence, ev("channel communications completed (chansend, chanrecv, a select's receive)", a.sum.CommShare, "%"))
		}
		a.out = append(a.out, f)
		a.sum.Spins[i].Reported = true
	}
}

// preempt is SD208. A large asyncPreempt share is what GOMAXPROCS above the
// CPUs looks like: on a quiet 2-CPU machine, GOMAXPROCS=8 gave 19.5–20.2%
// and GOMAXPROCS=2 under 1% (docs/profile.md). A machine crowded by other
// processes looks the same (one healthy run in 13 showed 25% on such a machine),
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
	// A profile does not record GOMAXPROCS or the CPUs: the same
	// signature comes from a loop that never yields (a consumer retrying a
	// lock-free queue's non-blocking Dequeue at once: preempted every
	// 10ms at GOMAXPROCS = CPUs), so the message names both and the fix
	// rules the loop out first.
	a.add("SD208", a.th.Preempt, s, c, fmt.Sprintf("goes to async preemption (asyncPreempt) while the process ran at %.2f cores", a.sum.Cores),
		"threads kept running past their 10ms slice, which is what more running threads than CPUs look like, or a loop "+
			"that never yields (a retry around a non-blocking call) where the preemptions land",
		[]classify.Cause{classify.Preempt},
		"first rule out a loop that never yields at the lines the preemptions hit (a spin on a non-blocking call, an "+
			"atomic or a select with a default: `schedoctor lint`, or the module's source given to the profile so that it reads them); else, when "+
			"GOMAXPROCS is above the CPUs really available, set it to them (check with `schedoctor procs`; in containers "+
			"build with Go 1.25+ and go ≥ 1.25 in go.mod), and check that other processes do not crowd the CPUs; "+
			"corroborate with `schedoctor trace` (Ps busier than CPUs, SD303)", evs...)
	// One profile must reach PreemptAlone; several must each reach
	// Preempt.Share, so that one crowded moment does not make the verdict.
	single := a.perProfilePreempt < 0
	if f := &a.out[len(a.out)-1]; f.Severity == finding.Warning {
		switch {
		case single && s < a.th.PreemptAlone:
			f.Severity = finding.Info
			f.Note(finding.NoteThin, fmt.Sprintf("below %.0f%% in a single profile, so corroborate with more profiles or a trace", a.th.PreemptAlone))
		case !single && !sustained:
			f.Severity = finding.Info
			f.Note(finding.NoteThin, fmt.Sprintf("not sustained: under %.0f%% in one of the profiles, so corroborate with a trace", a.th.Preempt.Share))
		}
	}
}

// dominant returns the largest driver and a phrase naming it with its
// share, "" when none was seen.
func dominant(ds []Driver) (Driver, string) {
	if len(ds) == 0 {
		return Driver{}, ""
	}
	d := ds[0]
	phrase := fmt.Sprintf("%s (%.0f%% of the wake-ups whose cause the stacks show)", d.Driver, d.Share)
	switch {
	case len(ds) > 1 && ds[1].Driver == resetSpinning:
		phrase += fmt.Sprintf(", the other %.0f%% from spinning Ms passing the wake-up on (resetspinning)", ds[1].Share)
	case len(ds) > 1:
		phrase += fmt.Sprintf(", then %s (%.0f%%)", ds[1].Driver, ds[1].Share)
	}
	return d, phrase
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resetSpinning is the wake driver of the scheduler's own spinning Ms.
const resetSpinning = "a spinning M that found work waking another (resetspinning)"

// handOff is the wake driver of a channel hand-off.
const handOff = "channel operations (goready from chansend/chanrecv/select)"

// churn is SD201. Thread churn (futex via wakep/startm and stopm) is
// reported whatever the channel share: a prime sieve's 27% of park/wake
// CPU was hidden when the rule stood down for channel work. What wakes
// the threads (Summary.WakeDrivers, from the frames above wakep) is the
// "because". When channel hand-offs drive most wake-ups the churn is the
// price of passing one item per operation: reported at info, naming the
// hand-off, with the whole park/wake cost (scheduler, idle spinning,
// thread churn) as the figure, since it all follows from parking the
// receiver on every item; the pingpong control (30% parking, every wake
// from a channel) is such a hand-off.
func (a *analysis) churn() {
	th := a.th
	s, c, n := a.group(classify.ThreadChurn)
	// resetspinning follows any wake-up (a spinning M that found work
	// wakes another to keep spinning): it names the mechanism, not the
	// cause, so the drivers that start the chain come first.
	drivers := slices.Clone(a.sum.WakeDrivers)
	slices.SortStableFunc(drivers, func(x, y Driver) int {
		return cmp.Compare(b2i(x.Driver == resetSpinning), b2i(y.Driver == resetSpinning))
	})
	d, because := dominant(drivers)
	chs, _, _ := a.group(classify.Channel)
	handoff := d.Driver == handOff && d.Share >= handoffDriverShare
	if handoff && !a.reach(th.ThreadChurn, s, n) {
		// The hand-off's parking shows mostly as scheduler work, not futex.
		ps, pc, pn := a.group(classify.ThreadChurn, classify.Scheduler, classify.IdleSpin)
		if !a.reach(th.ThreadChurn, ps, pn) {
			return
		}
		s, c = ps, pc
	} else if !a.reach(th.ThreadChurn, s, n) {
		return
	}
	if because == "" {
		because = "what wakes them is not in the stacks (cut by mcall); run `schedoctor trace` for the wake reasons"
	}
	what, why := "goes to waking and parking threads (runtime.futex via wakep/startm and stopm/notesleep)", "of "+because
	fix := "block on the event instead of sleep-polling (a channel, sync.WaitGroup, a semaphore), batch work so fewer " +
		"wake-ups are needed, and hand items over in batches rather than one at a time"
	if handoff {
		what = "goes to parking and waking goroutines and threads (scheduler, idle spinning, futex)"
		why = "every channel hand-off parks the receiver: " + because
		fix = "pass work in batches (a slice per send, a buffered channel the consumer drains in a loop) so one wake-up " +
			"carries many items; a hand-off of one item per operation costs a park and a wake each time"
	}
	a.add("SD201", th.ThreadChurn, s, c, what, why,
		[]classify.Cause{classify.ThreadChurn, classify.Channel, classify.Scheduler}, fix,
		ev("wake: futex via wakep/startm/notewakeup", a.ruleShare("wake:"), "%"),
		ev("park: futex via stopm/mPark/notesleep", a.ruleShare("park:"), "%"),
		ev("channel operations", chs, "%"),
		ev("wake-ups driven by "+d.Driver, d.Share, "% of the wake-ups whose driver is known"))
	if handoff {
		f := &a.out[len(a.out)-1]
		if f.Severity > finding.Info {
			f.Severity = finding.Info
			f.Note(finding.NoteQualifier, "the price of the hand-off design rather than a polling loop")
		}
	}
}

// gc is SD207. Collections forced by runtime.GC() (the testing harness
// calls it before each benchmark) are not allocation pressure: they are
// reported as such, at info, and left out of the allocation-driven share.
func (a *analysis) gc() {
	th := a.th
	gc := []classify.Cause{classify.GCAssist, classify.GCMark, classify.GCSweep}
	s, c, n := a.group(gc...)
	forced := a.sum.ForcedGCShare
	as, _, _ := a.group(classify.GCAssist)
	ms, _, _ := a.group(classify.GCMark)
	al, _, _ := a.group(classify.Alloc)
	evs := []finding.Evidence{
		ev("GC mark assists and write barriers paid by goroutines", as, "%"),
		ev("GC background mark", ms, "%"),
		ev("allocation (mallocgc) outside assists", al, "%"),
		ev("collections forced by runtime.GC()", forced, "%"),
	}
	alloc := s - forced
	if a.reach(th.GC, alloc, n) {
		reason := "mark assists paid by the allocating goroutines"
		switch {
		case ms > as && ms > al:
			reason = "background marking, which runs as often as the heap grows by GOGC"
		case al > as:
			reason = "allocation itself (mallocgc)"
		}
		a.add("SD207", th.GC, alloc, c*alloc/max(s, 1e-9), "goes to the garbage collector (mark, assists, sweep)", "mostly of "+reason, gc,
			"allocate less on the hot path (reuse buffers, sync.Pool, preallocate), and when memory allows raise GOGC "+
				"with a GOMEMLIMIT as the ceiling", evs...)
		return
	}
	if !a.reach(th.GC, forced, n) || len(a.sum.ForcedGCBy) == 0 {
		return
	}
	by := a.sum.ForcedGCBy[0].Driver
	who := "by " + by
	if !finding.UserFunction(by) {
		who = "by " + by + " (the testing harness or the runtime, not the program's allocation rate)"
	}
	a.add("SD207", th.GC, forced, c*forced/max(s, 1e-9), "goes to garbage collections forced by runtime.GC()", "it is called "+who,
		[]classify.Cause{classify.GCSweep},
		"a pause caused by runtime.GC() is the call's cost: in a benchmark, the harness forces one before timing starts "+
			"(b.ResetTimer keeps it out of ns/op); in a program, drop the explicit runtime.GC() call", evs...)
	a.out[len(a.out)-1].Severity = finding.Info
}

// Batching is how much of the syscall CPU must come through bufio,
// net.Buffers/writev or io.Copy for SD209 not to advise buffering.
const batchedEnough = 50.0

// syscalls is SD209. It needs a real cost (Syscall.Cores, a quarter of a
// core, for a warning: a healthy broker spent 0.10 cores in syscalls) and
// reads how the syscalls are issued: when most come through
// bufio.(*Writer).Flush, net.(*Buffers).WriteTo/writev or io.Copy, the
// program already batches and the advice is not to buffer.
func (a *analysis) syscalls() {
	th := a.th
	s, c, n := a.group(classify.Syscall)
	if !a.reach(th.Syscall, s, n) {
		return
	}
	batched := a.sum.SyscallBatchedShare
	handoff := a.ruleShare("P handoff")
	what, why := "goes to system calls and the P handoffs around them",
		fmt.Sprintf("only %.0f%% of them come through buffered or vectored writes", batched)
	fix := "buffer the I/O (bufio.Writer, larger reads), batch writes (net.Buffers/writev), and avoid a syscall per item"
	if batched >= batchedEnough {
		what = fmt.Sprintf("goes to system calls, %.0f%% of them already come through batching", batched)
		why = "the syscalls are the I/O itself (bufio.Writer.Flush, net.Buffers/writev, io.Copy), not a syscall per item"
		fix = "nothing to buffer: the writes are batched already; if the cost matters, send less or larger messages"
	}
	a.add("SD209", th.Syscall, s, c, what, why, []classify.Cause{classify.Syscall}, fix,
		ev("P handoff (handoffp/exitsyscallNoP)", handoff, "%"),
		ev("syscall entry and exit bookkeeping", a.ruleShare("syscall entry"), "%"),
		ev("syscall CPU through bufio/writev/io.Copy", batched, "% of syscall CPU"))
	if batched >= batchedEnough {
		a.out[len(a.out)-1].Severity = finding.Info
	}
}

// funcCPU is one user function's flat CPU, outside select and Gosched.
type funcCPU struct {
	fn    string
	part  float64 // % of all such user CPU
	locs  []finding.Location
	lines []UserLine
}

// onlyUserFunc returns the user function that holds at least
// onlyFuncPart % of the CPU under user lines (outside select and Gosched
// frames), nil when the user CPU is spread. When a Gosched spin's stacks
// are cut, the code that runs between its yields is the only user code
// that names the loop (a ring buffer's Poll: 2.3% of the CPU, all of the
// user CPU), and a loop that yields with nothing else to do leaves little
// else running. The function must also be cheap next to the yields
// (onlyFuncShare of the profile at most): a loop's own check between
// yields is; the work of other goroutines is not the loop (a Gosched spin
// under LockOSThread beside workers that compute: 12% of the CPU in their
// work, none at the spin's line).
func (a *analysis) onlyUserFunc() *funcCPU {
	const onlyFuncPart, onlyFuncShare = 60.0, 5.0
	per := map[string]float64{}
	var tot float64
	for _, l := range a.sum.UserLines {
		v := l.Share - l.SpinShare
		per[l.Function] += v
		tot += v
	}
	if tot <= 0 {
		return nil
	}
	for fn, v := range per {
		if 100*v/tot < onlyFuncPart || v > onlyFuncShare {
			continue
		}
		f := &funcCPU{fn: fn, part: 100 * v / tot}
		for _, l := range a.sum.UserLines {
			if l.Function == fn && len(f.locs) < 3 {
				u := UserLine{Function: l.Function, File: l.File, Line: l.Line, Share: 100 * (l.Share - l.SpinShare) / tot}
				f.locs = append(f.locs, u.location())
				f.lines = append(f.lines, u)
			}
		}
		return f
	}
	return nil
}

// runtimeLock is SD205. The lock a select takes (sellock) in a busy-wait
// is the spin's cost, reported with SD204: when a select spin was
// reported, its locks are left out here. The "because" names the runtime
// function that took the lock, from the stacks.
func (a *analysis) runtimeLock() {
	th := a.th
	s, c, n := a.group(classify.RuntimeLock)
	underSel := a.sum.RuntimeLockUnderSelectShare
	for _, sp := range a.sum.Spins {
		if sp.Reported && (sp.Kind == CandSelect || sp.Kind == CandNBSelect) && s > 0 {
			c -= c * underSel / s
			n -= int64(float64(n) * underSel / s)
			s -= underSel
			break
		}
	}
	if !a.reach(th.RuntimeLock, s, n) {
		return
	}
	because := "the stacks do not show who took the lock"
	if by := a.sum.RuntimeLockBy; len(by) > 0 {
		because = fmt.Sprintf("%s takes it (%.0f%% of the runtime-lock CPU)", by[0].Driver, by[0].Share)
		if len(by) > 1 {
			because += fmt.Sprintf(", then %s (%.0f%%)", by[1].Driver, by[1].Share)
		}
	}
	a.add("SD205", th.RuntimeLock, s, c, "spins or sleeps on runtime-internal locks (lock2/unlock2 → procyield/osyield/futex)",
		because, []classify.Cause{classify.RuntimeLock},
		"shard the channel or timer the goroutines share, batch items, or let fewer goroutines share one channel",
		ev("runtime locks taken by selects (sellock)", underSel, "%"))
}

// noLineNote says why a cause cut from its user frames names no line.
const noLineNote = "too few samples of the calls that drive it to name a line"

// cheap is the qualifier of a cause too small to matter at this load.
func cheap(cores float64) string {
	return fmt.Sprintf("only %.3f cores, cheap at this load", cores)
}
