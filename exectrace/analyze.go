package exectrace

import (
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// wake is why a goroutine became runnable (or, for blocks, what it waited on).
type wake uint8

const (
	wakeCreated wake = iota
	wakePreempted
	wakeYield
	wakeSyscall
	wakeChan
	wakeSleep
	wakeSync
	wakeNetwork
	wakeOther
	wakeStart // runnable when the trace began: the wait's start is unknown
	nWake
)

var wakeNames = [nWake]string{
	wakeCreated:   "created",
	wakePreempted: "preempted",
	wakeYield:     "yielded (Gosched)",
	wakeSyscall:   "syscall returned without P",
	wakeChan:      "channel or select",
	wakeSleep:     "sleep or timer",
	wakeSync:      "sync (Mutex, RWMutex, WaitGroup, Cond)",
	wakeNetwork:   "network",
	wakeOther:     "other wait",
	wakeStart:     "runnable at trace start",
}

// woken reports whether w is a wake-up (the goroutine waited for something
// and got it) rather than a preemption or a yield: the starts where latency
// is felt by whatever the goroutine waited on.
// Creation is left out too: a burst of go statements queues by design.
func (w wake) woken() bool {
	return w != wakePreempted && w != wakeYield && w != wakeStart && w != wakeCreated
}

// blockKind classifies a GoBlock reason string (runtime/traceruntime.go's
// traceBlockReasonStrings).
func blockKind(reason string) wake {
	switch reason {
	case "chan send", "chan receive", "select":
		return wakeChan
	case "sleep":
		return wakeSleep
	case "sync", "sync.(*Cond).Wait":
		return wakeSync
	case "network":
		return wakeNetwork
	case "preempted":
		return wakePreempted
	}
	return wakeOther
}

// siteKey identifies a creation site: where the go statement is (the
// creator's innermost user frame) and the function the goroutine runs.
type siteKey struct {
	creator locID
	fn      locID
}

// site accumulates what goroutines from one creation site did.
type site struct {
	key        siteKey
	system     bool // the goroutine runs a runtime function (GC worker, sweeper, ...)
	gcWorker   bool // runtime.gcBgMarkWorker: its running time is GC mark work
	goroutines int
	running    time.Duration
	latency    Histogram
	blocks     [nWake]int
	blockLocs  map[blockKey]*int // a counter each, which gstate.blockCount caches
	preempts   int
	yields     int
	// syscallWaits are syscalls that waited (lost their P, or lasted
	// syscallWaits): an event loop in a raw epoll_wait blocks there, not
	// in a GoBlock, and its yields before it are no spin.
	syscallWaits int
	stopLocs     map[locID]int // where preemptions and yields hit
	// preemptLocs is where preemptions alone hit: a goroutine that runs
	// on is preempted every 10ms wherever it is, so these are samples of
	// where its time goes; a yield is where it chose to stop.
	preemptLocs map[locID]int
	// never-blocking goroutines: stopped (preempted or yielded) but never blocked.
	neverBlocked    int
	neverBlockedRun time.Duration
	yieldOnly       int // of those, goroutines that yielded at least once
	starts          int
	migP, migM      int
	// How running stretches end: their running time and count by end.
	runEnd [nEnd]time.Duration
	nEnds  [nEnd]int
	// CPU samples (present when a CPU profile ran during the trace): of
	// the site's goroutines, where they were (innermost user frame), and
	// how many were in the runtime's select or yield code.
	samples     int
	sampleLocs  map[locID]int
	spinSamples int
	workSamples int // CPU samples in a standard-library callee (locTable.inWorkCode)
}

// end is how a running stretch ended.
type end uint8

const (
	endPreempt end = iota // preempted (sysmon or a GC's stop)
	endYield              // runtime.Gosched in the user's code
	endBlock              // blocked (channel, select, lock, sleep, network, ...)
	endSyscall            // entered a syscall
	endExit               // the goroutine ended
	endRuntime            // yielded inside runtime.GC (its sweep loop), not the user's code
	nEnd
)

type blockKey struct {
	why wake
	loc locID
}

// gstate is the little the analysis keeps per live goroutine.
type gstate struct {
	site       int32 // index into analyzer.sites; -1 until known
	state      trace.GoState
	since      trace.Time
	why        wake // why it is runnable, or what it is blocked on
	blockLoc   locID
	syscallLoc locID
	// syscallBatched says the syscall in progress came through a frame
	// that batches I/O (bufio's Flush, writev).
	syscallBatched bool
	lastSleepLoc   locID
	lastP          trace.ProcID
	lastM          trace.ThreadID
	started        bool
	blocked        bool
	stopped        bool
	yielded        bool
	onLock         bool // blocked in sync.(*Mutex) or sync.(*RWMutex)
	// A mark assist range lasts until the assist is done, across the
	// goroutine's preemptions and waits; only its running time is GC work.
	inAssist    bool
	assistLoc   locID
	assistSince trace.Time // start of the current running stretch in the assist
	assistRun   time.Duration
	run         time.Duration
	wk          wakeState // who woke it, and the bursts it wakes (wakers.go)
	spk         int32     // 1 + its index in spikeState.running while it runs (spikes.go)
	// The stack of the last block, its user frame and whether it was a
	// lock's (see block).
	blockStack     trace.Stack
	blockStackLoc  locID
	blockStackLock bool
	// blockCount is the site's counter of blockKey blockCountKey, where
	// the goroutine blocked last: a loop blocks where it blocked before,
	// and the counter spares the site's map a hash per block.
	blockCount    *int
	blockCountKey blockKey
}

// pstate is one P. It is busy while it runs Go code: ProcRunning, less
// the time its goroutine waited in a syscall. A goroutine in a blocking
// syscall (an event loop in a raw epoll_wait) keeps its P ProcRunning
// until sysmon retakes it, but runs nothing: counting that time busy made
// SD303 say "1.35 Ps running on average while the process got 0.02 cores"
// of an idle server. A quick syscall uses the CPU (kernel time, which the
// process CPU counts) and stays busy; a syscall is a wait when it lost its
// P or lasted syscallWaits, and its time on the P is taken off once it
// ends (waitBusy).
type pstate struct {
	running  bool
	since    trace.Time
	busy     time.Duration
	sys      bool       // its goroutine is in a syscall
	sysSince trace.Time // when it entered it
}

// syscallP records the syscall of the goroutine that holds the event's P:
// entered (sys true) or left on that P.
func (a *analyzer) syscallP(ev *trace.Event, t trace.Time, sys bool) {
	if ev.Proc() == trace.NoProc {
		return
	}
	p := a.ps[ev.Proc()]
	if p == nil || !p.running {
		return
	}
	if sys {
		p.sys, p.sysSince = true, t
		return
	}
	if p.sys && t.Sub(p.sysSince) >= syscallWaits {
		a.waitBusy += t.Sub(p.sysSince)
		p.busy -= t.Sub(p.sysSince)
	}
	p.sys = false
}

type sleepSite struct {
	n, repeats int
	slept      Histogram
}

type syscallSite struct {
	n, handoffs int
	batched     int // calls made under a batching I/O frame
	dur         Histogram
	handDur     Histogram // of the calls that lost their P
}

type waitSite struct {
	n          int
	goroutines map[trace.GoID]struct{}
	wait       Histogram
}

type rangeKey struct {
	name  string
	scope trace.ResourceID
}

type openRange struct {
	start  trace.Time
	loc    locID
	forced bool // begun inside runtime.GC: a forced collection
}

// analyzer is the streaming state: per live goroutine and P, per site and
// location aggregates, and nothing per event.
type analyzer struct {
	locs *locTable

	first, last trace.Time
	events      int64 // all events, syncs included
	syncs       int   // the reader emits one at each generation's start and one at the end
	lastSync    bool  // the last event handled was a sync: the reader stopped between generations
	gomaxprocs  int

	gs    map[trace.GoID]*gstate
	ps    map[trace.ProcID]*pstate
	sites []*site
	index map[siteKey]int32

	latency   Histogram
	byWhy     [nWake]Histogram
	starts    int
	migP      int
	migM      int
	steals    int
	runnable  level
	runningPs level
	// waitBusy is the Ps' running time while their goroutine waited in a
	// syscall (see pstate): taken off the busy Ps.
	waitBusy time.Duration

	sleeps   map[locID]*sleepSite
	syscalls map[locID]*syscallSite
	locks    map[locID]*waitSite

	ranges   map[rangeKey]openRange
	stw      Histogram
	stwWhy   map[string]time.Duration
	assist   Histogram               // assists' running time, one sample per assist
	assistBy map[locID]time.Duration // the same, by where the goroutine allocated
	mark     Histogram
	gcWorker time.Duration // running time of GC mark worker goroutines
	// forced GCs: stop-the-world time and mark phases begun by a call to
	// runtime.GC (or debug.FreeOSMemory), and who called it.
	stwForced   time.Duration
	forcedBy    map[locID]time.Duration
	forcedMarks int
	stwTop      topN // the longest pauses
	wokenTop    topN // the longest waits for a P after a wake-up
	gcYields    int  // yields inside runtime.GC's sweep loop

	samples                 int
	firstSample, lastSample trace.Time

	viz *vizCollector // the HTML report's timeline (viz.go)

	spk *spikeState // the spike windows (spikes.go)
	wk  *wakerStats // who woke whom (wakers.go)
}

func newAnalyzer() *analyzer {
	return &analyzer{
		spk:       newSpikeState(SpikeOptions{}),
		wk:        newWakerStats(),
		locs:      newLocTable(),
		gs:        map[trace.GoID]*gstate{},
		ps:        map[trace.ProcID]*pstate{},
		index:     map[siteKey]int32{},
		sleeps:    map[locID]*sleepSite{},
		syscalls:  map[locID]*syscallSite{},
		locks:     map[locID]*waitSite{},
		ranges:    map[rangeKey]openRange{},
		stwWhy:    map[string]time.Duration{},
		assistBy:  map[locID]time.Duration{},
		forcedBy:  map[locID]time.Duration{},
		stwTop:    topN{n: maxTail},
		wokenTop:  topN{n: maxTail},
		runningPs: newLevel(true),
		runnable:  newLevel(false),
	}
}

func (a *analyzer) siteFor(k siteKey) int32 {
	if i, ok := a.index[k]; ok {
		return i
	}
	fn := a.locs.get(k.fn).Function
	s := &site{
		key:         k,
		system:      isRuntimeFunc(fn),
		gcWorker:    strings.HasPrefix(fn, "runtime.gcBgMarkWorker"),
		blockLocs:   map[blockKey]*int{},
		stopLocs:    map[locID]int{},
		preemptLocs: map[locID]int{},
		sampleLocs:  map[locID]int{},
	}
	i := int32(len(a.sites))
	a.sites = append(a.sites, s)
	a.index[k] = i
	return i
}

// g returns the state of goroutine id, making it for one first seen.
func (a *analyzer) g(id trace.GoID) *gstate {
	g := a.gs[id]
	if g == nil {
		g = &gstate{site: -1, blockLoc: noLoc, syscallLoc: noLoc, lastSleepLoc: noLoc, lastP: trace.NoProc, lastM: trace.NoThread,
			blockStack: trace.NoStack, blockStackLoc: noLoc}
		a.gs[id] = g
	}
	return g
}

// siteOf returns g's site, resolving a goroutine that existed at trace start
// (creation unknown) by the outermost frame of the first stack seen.
func (a *analyzer) siteOf(g *gstate, s trace.Stack) *site {
	if g.site < 0 {
		if s == trace.NoStack {
			return nil
		}
		g.site = a.siteFor(siteKey{creator: noLoc, fn: a.locs.outer(s)})
		a.sites[g.site].goroutines++
	}
	return a.sites[g.site]
}

func (a *analyzer) handle(ev *trace.Event) {
	t := ev.Time()
	if a.events == 0 {
		a.first = t
	}
	a.events++
	a.last = t
	a.spikeAdvance(t)
	switch ev.Kind() {
	case trace.EventSync:
		a.syncs++
		a.locs.newGeneration()
	case trace.EventMetric:
		m := ev.Metric()
		if m.Name == "/sched/gomaxprocs:threads" && m.Value.Kind() == trace.ValueUint64 {
			a.gomaxprocs = int(m.Value.Uint64())
		}
	case trace.EventStackSample:
		a.sample(ev, t)
	case trace.EventStateTransition:
		// The transition (a large struct) is passed by pointer: copies of
		// it showed in the profile at eight million events a second.
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			a.goTransition(ev, &st, t)
		case trace.ResourceProc:
			a.procTransition(ev, &st, t)
		}
		a.viz.transition(a, ev, &st, t)
	case trace.EventRangeBegin, trace.EventRangeActive:
		r := ev.Range()
		if r.Name == "GC mark assist" && r.Scope.Kind == trace.ResourceGoroutine {
			a.beginAssist(ev, r.Scope.Goroutine(), t)
			return
		}
		k := rangeKey{r.Name, r.Scope}
		if _, ok := a.ranges[k]; !ok {
			loc, forced := noLoc, false
			if ev.Kind() == trace.EventRangeBegin {
				loc = a.locs.user(ev.Stack())
				forced = a.locs.inForcedGC(ev.Stack())
			}
			a.ranges[k] = openRange{start: t, loc: loc, forced: forced}
			if forced && r.Name == "GC concurrent mark phase" {
				a.forcedMarks++
			}
			if r.Name == "GC concurrent mark phase" {
				a.spikeMark(true, t)
			}
		}
	case trace.EventRangeEnd:
		r := ev.Range()
		if r.Name == "GC mark assist" && r.Scope.Kind == trace.ResourceGoroutine {
			a.endAssist(r.Scope.Goroutine(), t)
			return
		}
		k := rangeKey{r.Name, r.Scope}
		o, ok := a.ranges[k]
		if !ok {
			return
		}
		delete(a.ranges, k)
		d := t.Sub(o.start)
		switch {
		case strings.HasPrefix(r.Name, "stop-the-world"):
			a.stw.Add(d)
			why := stwReason(r.Name)
			if o.forced {
				a.stwForced += d
				a.forcedBy[o.loc] += d
				why += ", forced by runtime.GC"
			}
			a.stwWhy[stwReason(r.Name)] += d
			a.stwTop.add(tail{At: o.start.Sub(a.first), Dur: d, What: why, Loc: o.loc})
			a.spikeSTW(d)
		case r.Name == "GC concurrent mark phase":
			a.mark.Add(d)
			a.spikeMark(false, t)
		}
	}
}

// stwReason turns "stop-the-world (GC mark termination)" into "GC mark termination".
func stwReason(name string) string {
	s := strings.TrimPrefix(name, "stop-the-world")
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	if s == "" {
		return "unspecified"
	}
	return s
}

func (a *analyzer) procTransition(ev *trace.Event, st *trace.StateTransition, t trace.Time) {
	from, to := st.Proc()
	if from == to {
		return // re-announced at a generation boundary
	}
	id := st.Resource.Proc()
	p := a.ps[id]
	if from == trace.ProcUndetermined && p != nil {
		return // re-announced at the start of a generation read on its own (stitch.go)
	}
	if p == nil {
		p = &pstate{}
		a.ps[id] = p
	}
	if p.running {
		p.busy += t.Sub(p.since)
		p.running = false
		a.runningPs.add(t, -1)
		if p.sys {
			// taken from a syscall (or stopped in one): the call waited
			a.waitBusy += t.Sub(p.sysSince)
			p.busy -= t.Sub(p.sysSince)
			p.sys = false
		}
	}
	if to == trace.ProcRunning {
		p.running = true
		p.since = t
		a.runningPs.add(t, +1)
	}
	if from == trace.ProcRunning && to == trace.ProcIdle && ev.Proc() != id {
		a.steals++ // taken from a thread in a syscall
	}
}

func (a *analyzer) goTransition(ev *trace.Event, st *trace.StateTransition, t trace.Time) {
	from, to := st.Goroutine()
	if from == to {
		return // re-announced at a generation boundary
	}
	id := st.Resource.Goroutine()
	g := a.g(id)

	// Leaving a state: account for the time spent in it.
	switch from {
	case trace.GoRunning:
		if g.inAssist {
			g.assistRun += t.Sub(g.assistSince)
		}
		d := t.Sub(g.since)
		g.run += d
		a.spikeRunning(g, false, t)
		if s := a.siteOf(g, st.Stack); s != nil {
			s.running += d
			if s.gcWorker {
				a.gcWorker += d
			}
			e := endOf(to, st.Reason)
			if e == endYield && a.locs.inForcedGC(st.Stack) {
				e = endRuntime
			}
			s.runEnd[e] += d
			s.nEnds[e]++
		}
	case trace.GoRunnable:
		a.runnable.add(t, -1)
	case trace.GoNotExist:
		if to != trace.GoNotExist {
			creator := a.locs.user(ev.Stack())
			fn := a.locs.outer(st.Stack)
			g.site = a.siteFor(siteKey{creator: creator, fn: fn})
			g.blockCount = nil // another site's counters
			a.sites[g.site].goroutines++
		}
	}

	switch to {
	case trace.GoRunnable:
		a.runnable.add(t, +1)
		switch from {
		case trace.GoNotExist:
			g.why = wakeCreated
		case trace.GoRunning:
			s := a.siteOf(g, st.Stack)
			loc := a.locs.user(st.Stack)
			g.stopped = true
			g.lastSleepLoc = noLoc
			if st.Reason == "runtime.Gosched" && a.locs.inForcedGC(st.Stack) {
				// runtime.GC yields between sweeps: the runtime's loop,
				// not a spin of the code that called it.
				g.why = wakeYield
				a.gcYields++
				break
			}
			if st.Reason == "runtime.Gosched" {
				g.why = wakeYield
				g.yielded = true
				if s != nil {
					s.yields++
				}
			} else {
				g.why = wakePreempted
				if s != nil {
					s.preempts++
				}
			}
			if s != nil {
				s.stopLocs[loc]++
				if st.Reason != "runtime.Gosched" {
					s.preemptLocs[loc]++
				}
			}
		case trace.GoWaiting:
			a.endWait(id, g, t) // g.why still says what it waited on
		case trace.GoSyscall:
			g.why = wakeSyscall
			a.endSyscall(g, t, true)
		default:
			g.why = wakeStart
		}
		a.madeRunnable(ev, g, from, t)
	case trace.GoRunning:
		a.spikeRunning(g, true, t)
		switch from {
		case trace.GoRunnable:
			a.start(ev, g, t)
		case trace.GoSyscall:
			a.endSyscall(g, t, false)
			a.syscallP(ev, t, false) // back to Go code on its P
		}
		// For a start, the event's context is the P and thread that run
		// the goroutine from now on.
		g.lastP, g.lastM = ev.Proc(), ev.Thread()
	case trace.GoWaiting:
		if from == trace.GoRunning {
			a.block(g, st, t)
		} else {
			g.why = wakeOther
		}
	case trace.GoSyscall:
		g.syscallLoc = a.locs.user(st.Stack)
		g.syscallBatched = a.locs.isBatched(st.Stack)
		a.siteOf(g, st.Stack)
		a.syscallP(ev, t, true) // its P runs no Go code until it returns
	case trace.GoNotExist:
		a.retire(g)
		a.closeBurst(&g.wk.burst)
		delete(a.gs, id)
		return
	}
	g.state = to
	g.since = t
	if to == trace.GoRunning && g.inAssist {
		g.assistSince = t
	}
}

// beginAssist starts a mark assist of goroutine id (running now, or, for a
// range already active at a generation's start, in whatever state).
func (a *analyzer) beginAssist(ev *trace.Event, id trace.GoID, t trace.Time) {
	g := a.g(id)
	if g.inAssist {
		return // re-announced at a generation boundary
	}
	g.inAssist = true
	g.assistRun = 0
	g.assistSince = t
	g.assistLoc = noLoc
	if ev.Kind() == trace.EventRangeBegin {
		g.assistLoc = a.locs.user(ev.Stack())
	}
}

// endAssist closes a goroutine's mark assist and records its running time.
func (a *analyzer) endAssist(id trace.GoID, t trace.Time) {
	g := a.gs[id]
	if g == nil || !g.inAssist {
		return
	}
	if g.state == trace.GoRunning {
		g.assistRun += t.Sub(g.assistSince)
	}
	g.inAssist = false
	a.assist.Add(g.assistRun)
	a.assistBy[g.assistLoc] += g.assistRun
}

// start records a GoRunnable → GoRunning transition: the scheduling latency
// and whether the goroutine changed P or thread.
func (a *analyzer) start(ev *trace.Event, g *gstate, t trace.Time) {
	s := (*site)(nil)
	if g.site >= 0 {
		s = a.sites[g.site]
	}
	if g.why != wakeStart {
		d := t.Sub(g.since)
		a.latency.Add(d)
		a.byWhy[g.why].Add(d)
		a.spikeStart(g, d)
		a.wokenStarted(g, d)
		if g.why.woken() {
			if s != nil {
				s.latency.Add(d)
			}
			if a.wokenTop.accepts(d) {
				what := wakeNames[g.why]
				loc := g.blockLoc
				if g.why == wakeSyscall {
					loc = g.syscallLoc
				}
				a.wokenTop.add(tail{At: g.since.Sub(a.first), Dur: d, What: what, Loc: loc})
			}
		}
	}
	a.starts++
	if s != nil {
		s.starts++
	}
	if g.started {
		if p := ev.Proc(); p != trace.NoProc && g.lastP != trace.NoProc && p != g.lastP {
			a.migP++
			if s != nil {
				s.migP++
			}
		}
		if m := ev.Thread(); m != trace.NoThread && g.lastM != trace.NoThread && m != g.lastM {
			a.migM++
			if s != nil {
				s.migM++
			}
		}
	}
	g.started = true
}

// block records a GoRunning → GoWaiting transition.
func (a *analyzer) block(g *gstate, st *trace.StateTransition, t trace.Time) {
	why := blockKind(st.Reason)
	// A goroutine blocks where it blocked last time more often than not
	// (a loop's receive): the stack's user frame is remembered per
	// goroutine, which spares the cache's hash of the stack.
	if st.Stack != g.blockStack {
		g.blockStack = st.Stack
		g.blockStackLoc = a.locs.user(st.Stack)
		g.blockStackLock = a.locs.isLock(st.Stack)
	}
	loc := g.blockStackLoc
	g.blocked = true
	g.why = why
	if why == wakeSleep {
		ss := a.sleeps[loc]
		if ss == nil {
			ss = &sleepSite{}
			a.sleeps[loc] = ss
		}
		ss.n++
		if g.lastSleepLoc == loc {
			ss.repeats++
		}
		g.lastSleepLoc = loc
	} else {
		g.lastSleepLoc = noLoc
	}
	g.blockLoc = loc
	g.onLock = why == wakeSync && g.blockStackLock
	g.wk.how = a.waitHow(st.Reason, st.Stack)
	if s := a.siteOf(g, st.Stack); s != nil {
		s.blocks[why]++
		if k := (blockKey{why, loc}); g.blockCount == nil || g.blockCountKey != k {
			// A goroutine's site is set once (siteOf), so the counter
			// stays the right one while the key is the same.
			c := s.blockLocs[k]
			if c == nil {
				c = new(int)
				s.blockLocs[k] = c
			}
			g.blockCount, g.blockCountKey = c, k
		}
		*g.blockCount++
	}
}

// endWait records how long a goroutine waited, for sleeps and locks.
func (a *analyzer) endWait(id trace.GoID, g *gstate, t trace.Time) {
	d := t.Sub(g.since)
	switch g.why {
	case wakeSleep:
		if ss := a.sleeps[g.blockLoc]; ss != nil {
			ss.slept.Add(d)
		}
	case wakeSync:
		if !g.onLock {
			return
		}
		ws := a.locks[g.blockLoc]
		if ws == nil {
			ws = &waitSite{goroutines: map[trace.GoID]struct{}{}}
			a.locks[g.blockLoc] = ws
		}
		ws.n++
		if len(ws.goroutines) < maxTrackedWaiters {
			ws.goroutines[id] = struct{}{}
		}
		ws.wait.Add(d)
	}
}

// maxTrackedWaiters bounds the per-lock set of distinct waiting goroutines.
const maxTrackedWaiters = 4096

func (a *analyzer) endSyscall(g *gstate, t trace.Time, handoff bool) {
	ss := a.syscalls[g.syscallLoc]
	if ss == nil {
		ss = &syscallSite{}
		a.syscalls[g.syscallLoc] = ss
	}
	ss.n++
	if handoff {
		ss.handoffs++
		ss.handDur.Add(t.Sub(g.since))
	}
	if g.syscallBatched {
		ss.batched++
	}
	ss.dur.Add(t.Sub(g.since))
	if g.site >= 0 && (handoff || t.Sub(g.since) >= syscallWaits) {
		a.sites[g.site].syscallWaits++
	}
}

// retire folds a goroutine that ended (or was alive at the end of the
// trace) into its site.
func (a *analyzer) retire(g *gstate) {
	if g.site < 0 {
		return
	}
	s := a.sites[g.site]
	if g.stopped && !g.blocked {
		s.neverBlocked++
		s.neverBlockedRun += g.run
		if g.yielded {
			s.yieldOnly++
		}
	}
}

// finish closes the states still open at the end of the trace.
func (a *analyzer) finish() {
	t := a.last
	a.wakerFinish()
	a.spikeFinish()
	for _, g := range a.gs {
		if g.state == trace.GoRunning {
			d := t.Sub(g.since)
			g.run += d
			if g.site >= 0 {
				// Still running at the end: the stretch's end is unknown,
				// counted with the exits (neither a block nor a stop).
				a.sites[g.site].running += d
				a.sites[g.site].runEnd[endExit] += d
			}
		}
		a.retire(g)
	}
	for _, p := range a.ps {
		if p.running {
			p.busy += t.Sub(p.since)
		}
	}
	a.runningPs.add(t, 0)
	a.runnable.add(t, 0)
}

// level integrates a count that changes over time (running Ps, runnable
// goroutines): its time-weighted mean, its maximum, the time spent at each
// value, and optionally a timeline in bins that double in width so that any
// trace length fits in maxBins.
type level struct {
	cur      int
	at       trace.Time
	started  bool
	area     float64 // count × ns
	max      int
	timeAt   [levelCap + 1]time.Duration
	timeline bool
	binW     time.Duration
	origin   trace.Time
	bins     []float64 // count × ns per bin
}

const (
	levelCap = 256
	maxBins  = 512
)

func newLevel(timeline bool) level {
	return level{timeline: timeline, binW: 10 * time.Millisecond}
}

func (l *level) add(t trace.Time, delta int) {
	if !l.started {
		l.started, l.at, l.origin = true, t, t
	}
	if d := t.Sub(l.at); d > 0 {
		l.area += float64(l.cur) * float64(d)
		l.timeAt[min(max(l.cur, 0), levelCap)] += d
		if l.timeline {
			l.spread(l.at, t)
		}
	}
	l.at = t
	l.cur += delta
	l.max = max(l.max, l.cur)
}

// spread adds cur × (overlap) to every bin that [from, to) covers.
func (l *level) spread(from, to trace.Time) {
	if l.cur == 0 {
		return
	}
	for from < to {
		i := int(from.Sub(l.origin) / l.binW)
		for i >= maxBins {
			l.coarsen()
			i = int(from.Sub(l.origin) / l.binW)
		}
		for len(l.bins) <= i {
			l.bins = append(l.bins, 0)
		}
		end := l.origin + trace.Time(time.Duration(i+1)*l.binW)
		end = min(end, to)
		l.bins[i] += float64(l.cur) * float64(end.Sub(from))
		from = end
	}
}

// coarsen halves the number of bins by doubling their width.
func (l *level) coarsen() {
	n := (len(l.bins) + 1) / 2
	for i := 0; i < n; i++ {
		v := l.bins[2*i]
		if 2*i+1 < len(l.bins) {
			v += l.bins[2*i+1]
		}
		l.bins[i] = v
	}
	l.bins = l.bins[:n]
	l.binW *= 2
}

// mean is the time-weighted mean over the time observed.
func (l *level) mean() float64 {
	var total time.Duration
	for _, d := range l.timeAt {
		total += d
	}
	if total == 0 {
		return 0
	}
	return l.area / float64(total)
}

// shareAbove is the share of the observed time the level spent above n.
func (l *level) shareAbove(n int) float64 {
	var total, above time.Duration
	for v, d := range l.timeAt {
		total += d
		if v > n {
			above += d
		}
	}
	if total == 0 {
		return 0
	}
	return float64(above) / float64(total)
}

// endOf is how a running stretch that leaves for state to ends.
func endOf(to trace.GoState, reason string) end {
	switch to {
	case trace.GoRunnable:
		if reason == "runtime.Gosched" {
			return endYield
		}
		return endPreempt
	case trace.GoWaiting:
		return endBlock
	case trace.GoSyscall:
		return endSyscall
	}
	return endExit
}

// sample records a CPU profile sample the trace carries: the process had
// the CPU then, in the goroutine the event names (if any).
func (a *analyzer) sample(ev *trace.Event, t trace.Time) {
	if a.samples == 0 {
		a.firstSample = t
	}
	a.samples++
	a.lastSample = t
	id := ev.Goroutine()
	if id == trace.NoGoroutine {
		return
	}
	g := a.gs[id]
	if g == nil || g.site < 0 {
		return
	}
	s := a.sites[g.site]
	s.samples++
	stk := ev.Stack()
	if a.locs.inSpinCode(stk) {
		s.spinSamples++
	} else if a.locs.inWorkCode(stk) {
		s.workSamples++
	}
	if loc := a.locs.user(stk); loc != noLoc && isUserFunc(a.locs.get(loc).Function) {
		s.sampleLocs[loc]++
	}
}

// tail is one long stall: a stop-the-world pause or a wait for a P.
type tail struct {
	At   time.Duration // from the trace's start
	Dur  time.Duration
	What string
	Loc  locID
}

// maxTail is how many of the longest stalls are kept.
const maxTail = 5

// topN keeps the n longest stalls, longest first.
type topN struct {
	n    int
	list []tail
}

func (t *topN) accepts(d time.Duration) bool {
	return len(t.list) < t.n || d > t.list[len(t.list)-1].Dur
}

func (t *topN) add(x tail) {
	if !t.accepts(x.Dur) {
		return
	}
	i := len(t.list)
	for i > 0 && t.list[i-1].Dur < x.Dur {
		i--
	}
	t.list = append(t.list, tail{})
	copy(t.list[i+1:], t.list[i:])
	t.list[i] = x
	if len(t.list) > t.n {
		t.list = t.list[:t.n]
	}
}
