package exectrace

import (
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/finding"
)

// Who woke whom (docs/trace.md). Every wake-up (a goroutine leaving a wait
// for the run queue) is charged to the goroutine running in the event's
// context, at its innermost user frame, with the operation that woke (a
// close, a send, a Cond.Broadcast, a WaitGroup release, an Unlock); a
// wake-up with no goroutine running, or none of whose frames is the
// user's, is the runtime's (a timer, the network poller). Wake-ups by one
// waker in quick succession are one burst: a close of a channel that 1,000
// goroutines wait on wakes them all in a few hundred microseconds, and
// each then queues behind the others for a P.

// wakeHow is the operation that woke a goroutine, as its wait shows it:
// the trace records a waker's stack from its own code down (the runtime's
// frames, closechan or notifyListNotifyAll, are cut off), so the wakee's
// wait says what woke it. A receiver is woken by a send or a close; one
// waker waking a thousand receivers within microseconds closed a channel,
// or sent in a loop.
type wakeHow uint8

const (
	howOther wakeHow = iota
	howChanRecv
	howChanSend
	howSelect
	howCond
	howWaitGroup
	howUnlock
	howSync
	howTimer
	howNetwork
	nHow
)

var howNames = [nHow]string{
	howOther:     "a wake-up",
	howChanRecv:  "a channel close or send",
	howChanSend:  "a channel receive",
	howSelect:    "a channel operation (select)",
	howCond:      "a sync.Cond Broadcast or Signal",
	howWaitGroup: "a WaitGroup release",
	howUnlock:    "an Unlock",
	howSync:      "a sync release",
	howTimer:     "a timer",
	howNetwork:   "the network poller",
}

func (h wakeHow) String() string { return howNames[h] }

// waitHow is what will wake a goroutine that blocks with this reason and
// stack (cached for the generation: stacks are a generation's handles).
func (a *analyzer) waitHow(reason string, s trace.Stack) wakeHow {
	switch reason {
	case "chan receive":
		return howChanRecv
	case "chan send":
		return howChanSend
	case "select":
		return howSelect
	case "sync.(*Cond).Wait":
		return howCond
	case "sleep":
		return howTimer
	case "network":
		return howNetwork
	case "sync":
	default:
		return howOther
	}
	wk := a.wk
	if wk.howGen != a.syncs {
		clear(wk.howOf)
		wk.howGen = a.syncs
	}
	if h, ok := wk.howOf[s]; ok {
		return h
	}
	h := howSync
	// the innermost sync frame says which primitive; the user's own frame
	// before any ends the search
	for f := range s.Frames() {
		if x := syncHow(f.Func); x != howOther {
			h = x
			break
		}
		if isUserFunc(f.Func) {
			break
		}
	}
	wk.howOf[s] = h
	return h
}

// syncHow is the primitive a sync frame belongs to, howOther for none.
func syncHow(fn string) wakeHow {
	switch {
	case strings.HasPrefix(fn, "sync.(*WaitGroup)."):
		return howWaitGroup
	case strings.HasPrefix(fn, "sync.(*Mutex)."), strings.HasPrefix(fn, "sync.(*RWMutex)."), strings.HasPrefix(fn, "internal/sync.(*Mutex)."):
		return howUnlock
	case strings.HasPrefix(fn, "sync.(*Cond)."):
		return howCond
	}
	return howOther
}

// wakerKey identifies a waker: its innermost user frame, or, for the
// runtime (noLoc), the operation; a timer's or the network poller's
// wake-ups that happen in a user goroutine's context stay apart by
// operation too (the user did not wake them). Otherwise a user line is
// one waker whatever its wakees waited on: a close wakes the
// receivers in a select and those in a plain receive at once, and the
// goroutines that already waited when the trace began have no recorded
// wait (howOther): keyed by operation, cskr/pubsub's send loop woke its
// 300 subscribers as "a wake-up" in the first burst of a trace and as "a
// channel close or send" in the next ones, two rows of one line, and the
// first spike was left out of its SD315 (docs/ACCURACY.md, issue 22).
type wakerKey struct {
	loc locID
	how wakeHow // howOther for a user line's own operations
}

// wakeBurst is a waker's wake-ups in quick succession (gstate.wk, or the
// runtime's).
type wakeBurst struct {
	id uint32 // of the open burst, 0: none
	n  int32
	// pending are the goroutines it woke that have not started yet, peak
	// their most: the goroutines runnable at once because of it. A
	// producer that hands work to 2,000 pool workers one after the other
	// in one running stretch (the corpus's ants pool) wakes each as the
	// last one starts: 2,000 wake-ups, one runnable at a time.
	pending, peak int32
	site          int32 // the waker's index in wakerStats.sites
	last          trace.Time
	stretch       trace.Time // the start of the waker's running stretch it began in (0: none)
}

// wakeState is what a goroutine carries for the waker analysis: the burst
// it is making as a waker, and, as a wakee, the burst that woke it and its
// waker's index (for the latency it then suffers).
type wakeState struct {
	burst wakeBurst
	// the last stack it woke from, the wakee's wait then and the waker
	// index they gave (+1): a waker wakes from the same line again and
	// again (a ping-pong's two goroutines alternate, so one cache for all
	// would miss every time)
	lastStack trace.Stack
	lastGen   int32
	lastHow   wakeHow
	lastSite  int32
	how       wakeHow // what will wake it, while it waits (waitHow)
	wokenIn   uint32
	in        *wakeBurst // the waker's burst that woke it (its id is wokenIn while open)
	by        int32      // 1 + index into wakerStats.sites, 0: none
}

// burstGap is the longest pause between two wake-ups of one burst: a close
// of a channel wakes its waiters back to back (a few hundred nanoseconds
// apart each), a producer's sends are spaced by its work.
const burstGap = 100 * time.Microsecond

// Thresholds of the heavy unblockers (SD316, docs/trace.md).
const (
	// a burst is heavy from this many goroutines, and from heavyBurstProcs
	// per P: with 16 Ps, 64 wake-ups are 4 each, a queue of 4 stretches
	heavyBurstMin   = 64
	heavyBurstProcs = 8
	// heavy bursts needed at one site to report it (a pattern, not one)
	heavyBurstRepeats = 3
	// the wakees' p99 latency from which it is a warning
	heavyWarnP99 = 5 * time.Millisecond
)

// wakerSite is what one waker did.
type wakerSite struct {
	key        wakerKey
	wakes      int
	bursts     int
	maxBurst   int
	heavy      int // bursts of heavyMark or more
	heavyWakes int
	first      trace.Time // of its first and last heavy burst
	last       trace.Time
	kinds      [nWake]int // what the wakees waited on
	hows       [nHow]int  // the operations that woke them (waitHow)
	latency    Histogram  // the wakees' scheduling latency
}

// wakerStats is the streaming state of the waker analysis.
type wakerStats struct {
	sites  []*wakerSite
	index  map[wakerKey]int32
	rt     wakeState // the runtime as a waker (no goroutine)
	nextID uint32
	howGen int // the generation howOf is of
	// user says, by locID, whether a location is the user's (1) or not
	// (2); the last waker stack and its user frame, and the last waker's
	// index + 1: caches of the per-wake-up look-ups
	user      []int8
	lastOK    bool
	lastStack trace.Stack
	lastGen   int
	lastLoc   locID
	lastSite  int32
	howOf     map[trace.Stack]wakeHow // this generation's stacks → operation
}

func newWakerStats() *wakerStats {
	return &wakerStats{index: map[wakerKey]int32{}, howOf: map[trace.Stack]wakeHow{}}
}

// heavyMark is the burst size that makes a burst heavy with procs Ps.
func heavyMark(procs int) int { return max(heavyBurstMin, heavyBurstProcs*procs) }

// wakerIndex is wakerOf's waker as an index into wakerStats.sites, with
// the waker goroutine's cache of its last stack.
func (a *analyzer) wakerIndex(ev *trace.Event, g *gstate) (int32, *wakeState, trace.Time) {
	if id := ev.Goroutine(); id != trace.NoGoroutine {
		if w := a.gs[id]; w != nil && w.wk.lastSite > 0 && w.wk.lastStack == ev.Stack() && w.wk.lastGen == int32(a.syncs) && w.wk.lastHow == g.wk.how {
			stretch := trace.Time(0)
			if w.state == trace.GoRunning {
				stretch = w.since
			}
			return w.wk.lastSite - 1, &w.wk, stretch
		}
	}
	k, ws, stretch := a.wakerOf(ev, g)
	i := a.wakerSiteFor(k)
	if ws != &a.wk.rt {
		ws.lastStack, ws.lastGen, ws.lastHow, ws.lastSite = ev.Stack(), int32(a.syncs), g.wk.how, i+1
	}
	return i, ws, stretch
}

// wakerOf is who woke g, whose wait ended in ev: the goroutine running in
// the event's context at its innermost user frame, else the runtime; and
// the start of the waker's running stretch (0: none known).
func (a *analyzer) wakerOf(ev *trace.Event, g *gstate) (wakerKey, *wakeState, trace.Time) {
	how := g.wk.how
	id := ev.Goroutine()
	if id == trace.NoGoroutine {
		return wakerKey{loc: noLoc, how: how}, &a.wk.rt, 0
	}
	w := a.gs[id]
	loc := a.userLoc(ev.Stack())
	if loc == noLoc || w == nil {
		// a runtime goroutine (the timer's, a GC worker) or a stack of
		// runtime frames only: never point at the runtime
		st := &a.wk.rt
		if w != nil {
			st = &w.wk
		}
		return wakerKey{loc: noLoc, how: how}, st, 0
	}
	stretch := trace.Time(0)
	if w.state == trace.GoRunning {
		stretch = w.since
	}
	if how != howTimer && how != howNetwork {
		// the user's own operation: one waker per line (wakerKey)
		how = howOther
	}
	return wakerKey{loc: loc, how: how}, &w.wk, stretch
}

// how is the operation that woke the waker's wakees: the one of its key
// (the runtime's, a timer or the network poller), else the one that woke
// most of them, not counting the wakees whose wait the trace does not say
// (howOther) unless no other.
func (s *wakerSite) how() wakeHow {
	if s.key.how != howOther {
		return s.key.how
	}
	best := howOther
	for h := howOther + 1; h < nHow; h++ {
		if s.hows[h] > s.hows[best] || (best == howOther && s.hows[h] > 0) {
			best = h
		}
	}
	return best
}

// userLoc is the innermost user frame of a waker's stack, noLoc for none
// (a stack of runtime or standard-library frames only). The last stack's
// answer is kept: a waker wakes in runs (a close, a ping-pong), and this
// runs for every wake-up.
func (a *analyzer) userLoc(s trace.Stack) locID {
	wk := a.wk
	if wk.lastOK && wk.lastStack == s && wk.lastGen == a.syncs {
		return wk.lastLoc
	}
	loc := a.locs.user(s)
	if loc != noLoc {
		if int(loc) >= len(wk.user) {
			wk.user = append(wk.user, make([]int8, int(loc)+1-len(wk.user))...)
		}
		if wk.user[loc] == 0 {
			wk.user[loc] = 2
			if isUserFunc(a.locs.get(loc).Function) {
				wk.user[loc] = 1
			}
		}
		if wk.user[loc] != 1 {
			loc = noLoc
		}
	}
	wk.lastOK, wk.lastStack, wk.lastGen, wk.lastLoc = true, s, a.syncs, loc
	return loc
}

func (a *analyzer) wakerSiteFor(k wakerKey) int32 {
	wk := a.wk
	if wk.lastSite > 0 && wk.sites[wk.lastSite-1].key == k {
		return wk.lastSite - 1
	}
	i, ok := wk.index[k]
	if !ok {
		i = int32(len(wk.sites))
		wk.sites = append(wk.sites, &wakerSite{key: k})
		wk.index[k] = i
	}
	wk.lastSite = i + 1
	return i
}

// woke records that g was woken by ev at t, and returns the waker's index.
func (a *analyzer) woke(ev *trace.Event, g *gstate, t trace.Time) int32 {
	i, ws, stretch := a.wakerIndex(ev, g)
	s := a.wk.sites[i]
	s.wakes++
	s.kinds[g.why]++
	s.hows[g.wk.how]++
	b := &ws.burst
	// a burst goes on while the waker runs on (a close of a channel that
	// 1,000 goroutines wait on readies them in one stretch, which a
	// descheduled thread can stretch past burstGap), or within burstGap
	sameStretch := stretch != 0 && b.stretch == stretch
	if b.id != 0 && (b.site != i || (!sameStretch && t.Sub(b.last) > burstGap) || g.wk.wokenIn == b.id) {
		a.closeBurst(b)
	}
	if b.id == 0 {
		a.wk.nextID++
		if a.wk.nextID == 0 {
			a.wk.nextID++
		}
		b.id, b.n, b.site, b.stretch = a.wk.nextID, 0, i, stretch
		b.pending, b.peak = 0, 0
	}
	b.n++
	b.pending++
	b.peak = max(b.peak, b.pending)
	g.wk.in = b
	b.last = t
	g.wk.wokenIn = b.id
	g.wk.by = i + 1
	return i
}

// closeBurst folds a waker's burst into its site.
func (a *analyzer) closeBurst(b *wakeBurst) {
	if b.id == 0 {
		return
	}
	s := a.wk.sites[b.site]
	s.bursts++
	n := int(b.peak)
	s.maxBurst = max(s.maxBurst, n)
	procs := a.gomaxprocs
	if procs == 0 {
		procs = len(a.ps)
	}
	if n >= heavyMark(max(procs, 1)) {
		if s.heavy == 0 {
			s.first = b.last
		}
		s.heavy++
		s.heavyWakes += n
		s.last = b.last
	}
	*b = wakeBurst{}
}

// wokenStarted charges a wakee's scheduling latency to its waker.
func (a *analyzer) wokenStarted(g *gstate, d time.Duration) {
	if b := g.wk.in; b != nil {
		if b.id == g.wk.wokenIn {
			b.pending--
		}
		g.wk.in = nil
	}
	if g.wk.by > 0 {
		a.wk.sites[g.wk.by-1].latency.Add(d)
		g.wk.by = 0
	}
}

// wakerFinish closes the bursts still open at the end of the trace.
func (a *analyzer) wakerFinish() {
	for _, g := range a.gs {
		a.closeBurst(&g.wk.burst)
	}
	a.closeBurst(&a.wk.rt.burst)
}

// wakerLoc is the location of a waker, empty for the runtime.
func (a *analyzer) wakerLoc(k wakerKey) finding.Location {
	if k.loc == noLoc {
		return finding.Location{}
	}
	return a.locs.get(k.loc)
}

// WakerSummary is one waker: the goroutines it woke and how they then
// waited for a P.
type WakerSummary struct {
	// Location is the waker's innermost user frame; empty for the runtime
	// (a timer, the network poller, or a goroutine with no user frame).
	Location finding.Location `json:"location"`
	How      string           `json:"how"` // the operation: "a close of a channel", ...
	Wakes    int              `json:"wakes"`
	Bursts   int              `json:"bursts"`
	MaxBurst int              `json:"max_burst"`
	// Heavy are the bursts of HeavyMark goroutines or more, HeavyPerS
	// their rate, HeavyMean their mean size.
	Heavy     int     `json:"heavy"`
	HeavyMark int     `json:"heavy_mark"`
	HeavyPerS float64 `json:"heavy_per_s"`
	HeavyMean int     `json:"heavy_mean"`
	// Waited is what the wakees waited on, most first.
	Waited []ReasonCount `json:"waited"`
	// Latency is the wakees' scheduling latency.
	Latency Percentiles `json:"latency"`
}

// wakerSummary fills the summary's wakers: by wake-ups, most first.
func (a *analyzer) wakerSummary(s *Summary) {
	secs := max(s.Trace.Duration.Seconds(), 1e-9)
	mark := heavyMark(max(s.Procs.GOMAXPROCS, 1))
	s.Wakers = []WakerSummary{}
	for _, w := range a.wk.sites {
		ws := WakerSummary{Location: a.wakerLoc(w.key), How: w.how().String(), Wakes: w.wakes, Bursts: w.bursts, MaxBurst: w.maxBurst,
			Heavy: w.heavy, HeavyMark: mark, Waited: []ReasonCount{}, Latency: w.latency.Percentiles()}
		if w.heavy > 0 {
			ws.HeavyMean = w.heavyWakes / w.heavy
			ws.HeavyPerS = round2(float64(w.heavy) / secs)
		}
		for why, n := range w.kinds {
			if n > 0 {
				ws.Waited = append(ws.Waited, ReasonCount{Reason: wakeNames[why], Count: n})
			}
		}
		sortTop(&ws.Waited, func(x ReasonCount) int64 { return int64(x.Count) }, func(ReasonCount) finding.Location { return finding.Location{} })
		s.Wakers = append(s.Wakers, ws)
	}
	sortTop(&s.Wakers, func(x WakerSummary) int64 { return int64(x.Wakes) }, func(x WakerSummary) finding.Location { return x.Location })
}

// madeRunnable records that g became runnable (from state from, why in
// g.why): for the spike windows, and, for a wake-up, its waker.
func (a *analyzer) madeRunnable(ev *trace.Event, g *gstate, from trace.GoState, t trace.Time) {
	waker := int32(-1)
	if from == trace.GoWaiting {
		waker = a.woke(ev, g, t)
	}
	a.spikeRunnable(g, waker)
}
