package exectrace

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Spike windows (docs/trace.md): the trace is cut into windows of one
// width from its start; a window is a candidate when the scheduling
// latency of its starts after a wait or a creation has a p99 at or above
// SpikeOptions.P99, or when its runnable goroutines peak at or above
// SpikeOptions.Runnable × GOMAXPROCS, and it is marked when it also stands
// out from the trace's quieter windows (spikeOverBaseline). Adjacent
// marked windows merge into one spike, whose cause is who filled the run
// queues. A spike in a 10s trace is invisible in the trace's own p99: it
// is 1% of the starts.

// SpikeOptions say how spike windows are cut and marked. The zero value is
// the default (DefaultSpikeWindow, DefaultSpikeP99, DefaultSpikeRunnable).
type SpikeOptions struct {
	// Window is the width of one window; 0: DefaultSpikeWindow. At least
	// MinSpikeWindow.
	Window time.Duration
	// P99 marks a window whose starts' p99 latency reaches it (with at
	// least spikeMinStarts starts); 0: DefaultSpikeP99.
	P99 time.Duration
	// Runnable marks a window whose runnable goroutines peak at or above
	// this many per P (GOMAXPROCS); 0: DefaultSpikeRunnable.
	Runnable float64
}

// Defaults of the spike windows, measured in docs/trace.md ("The
// defaults, measured"): no window of a healthy lab program or of the
// corpus's real programs peaked above 22 runnable goroutines per P, while
// the spikes lab's bursts peaked at 1,000–1,500 per P on 2 Ps with a p99
// of 92–387ms. A p99 of 10ms is passed by healthy programs on a crowded
// host too (workerpool's windows reached 187ms): the baseline and the
// cause keep those out of the findings, and dt/schedstat's 1ms marked most
// windows of every program here.
const (
	DefaultSpikeWindow   = 100 * time.Millisecond
	DefaultSpikeP99      = 10 * time.Millisecond
	DefaultSpikeRunnable = 8.0
	// MinSpikeWindow is the narrowest window: a preemption takes 10ms,
	// so a narrower one marks every time slice.
	MinSpikeWindow = 10 * time.Millisecond
	// spikeMinStarts is how many starts a window needs for its p99 to
	// mark it: the p99 of fewer is their maximum.
	spikeMinStarts = 20
	// spikeBurstPerP: a burst that causes a spike makes at least this
	// many goroutines runnable per P, and the run queues peak as high
	// (at least spikeBurstFloor): 21 wake-ups spread over 100ms on 2 Ps,
	// 3 runnable at most, are no burst (the lab's workerpool on a
	// crowded machine waited 187ms for the host, not for them).
	spikeBurstPerP  = 4
	spikeBurstFloor = 16
	// spikeMinWindows is how many windows a trace needs for a baseline:
	// in a shorter one, no window can stand out.
	spikeMinWindows = 5
	// spikeRunnableFloor is the least runnable peak that marks a window
	// whatever GOMAXPROCS: with one P, 8 runnable goroutines are a
	// handful of wake-ups from one event.
	spikeRunnableFloor = 32
	// maxSpikes is how many spikes are kept in full; the rest are counted
	// (SpikeWindows.Dropped) and still folded into their cause.
	maxSpikes = 100
	// maxWindowSites bounds the sites counted in one window (creations,
	// wakers, goroutines holding Ps); the rest are counted (Spike.LeftOut).
	maxWindowSites = 256
	// spikeHoldStretch is a running stretch long enough to count as holding
	// a P in a spike: a time slice (sysmon preempts at 10ms).
	spikeHoldStretch = time.Millisecond
	// spikeWarnP99 is the p99 in a spike from which the spike is a
	// warning: SD301's p99 gate, reached within one window.
	spikeWarnP99 = latencyP99
	// spikeCauseShare is the share of a spike's new runnable goroutines
	// one cause must hold to be named: below it the spike is "mixed".
	spikeCauseShare = 0.3
	// spikeMinRepeats is how many spikes of one cause make a warning (a
	// pattern, not one event), unless one of them reached spikeWarnP99
	// for longer than spikeLongSpike.
	spikeMinRepeats = 2
	spikeLongSpike  = 500 * time.Millisecond
)

func (o SpikeOptions) withDefaults() SpikeOptions {
	if o.Window <= 0 {
		o.Window = DefaultSpikeWindow
	}
	o.Window = max(o.Window, MinSpikeWindow)
	if o.P99 <= 0 {
		o.P99 = DefaultSpikeP99
	}
	if o.Runnable <= 0 {
		o.Runnable = DefaultSpikeRunnable
	}
	return o
}

// Spike is one run of adjacent marked windows.
type Spike struct {
	Start   time.Duration `json:"start_ns"` // from the trace's start
	End     time.Duration `json:"end_ns"`
	Windows int           `json:"windows"`
	// Starts are the goroutine starts in the spike; Latency their
	// scheduling latency.
	Starts  int         `json:"starts"`
	Latency Percentiles `json:"latency"`
	// RunnablePeak is the most runnable goroutines at one instant.
	RunnablePeak int `json:"runnable_peak"`
	// Runnable counts the goroutines that became runnable, by why
	// (created, channel or select, sync, sleep or timer, network, syscall
	// returned, preempted, yielded).
	Runnable []ReasonCount `json:"runnable"`
	// Created are the creation sites of the goroutines created in it,
	// most first.
	Created []SiteCount `json:"created"`
	// Wakers are who woke goroutines in it (see WakerSummary), most first.
	Wakers []WakerCount `json:"wakers"`
	// Held are the sites whose goroutines held the Ps, in stretches of at
	// least spikeHoldStretch, by their running time in the spike.
	Held []Holder `json:"held"`
	GC   SpikeGC  `json:"gc"`
	// LeftOut counts the rows (creation sites, wakers, holders) beyond the
	// ones kept per window (maxWindowSites, then maxKeptSites).
	LeftOut int `json:"left_out,omitempty"`
	// Cause is the spike's dominant cause.
	Cause SpikeCauseKey `json:"cause"`
}

// ReasonCount is how many goroutines became runnable for one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// SiteCount is how many goroutines one creation site made in a spike,
// and how long the goroutines it made waited for a P there.
type SiteCount struct {
	Creator  finding.Location `json:"creator"`
	Function string           `json:"function"`
	Count    int              `json:"count"`
	Wait     time.Duration    `json:"wait_ns"`
}

// WakerCount is how many goroutines one waker woke in a spike, and how
// long they waited for a P there.
type WakerCount struct {
	Location finding.Location `json:"location"` // empty: the runtime (timers, the network poller)
	How      string           `json:"how"`
	Count    int              `json:"count"`
	Wait     time.Duration    `json:"wait_ns"`
}

// Holder is a site whose goroutines ran in a spike.
type Holder struct {
	Function string           `json:"function"`
	Creator  finding.Location `json:"creator"`
	System   bool             `json:"system"`
	Running  time.Duration    `json:"running_ns"` // within the spike
	Longest  time.Duration    `json:"longest_ns"` // the longest stretch without a stop, within the spike
}

// SpikeGC is the GC's work inside a spike.
type SpikeGC struct {
	STW     int           `json:"stw"` // stop-the-world pauses that ended in it
	STWTime time.Duration `json:"stw_ns"`
	Mark    time.Duration `json:"mark_ns"` // time a concurrent mark phase ran in it
}

// SpikeCauseKey names a spike's cause: Kind is "created" (a burst of go
// statements at Location), "woken" (one waker's wake-ups; Location empty:
// the runtime), "preempted" (goroutines of Function ran until preempted),
// "gc" (stop-the-world pauses), or "mixed". The cause is who filled the
// run queues: the maker (creation site, waker, preemption) whose
// goroutines spent the most time runnable in the spike, which is the sum
// of their waits; a burst of 2,000 goroutines queues mostly behind itself.
type SpikeCauseKey struct {
	Kind     string           `json:"kind"`
	Location finding.Location `json:"location"`
	Function string           `json:"function"`
	How      string           `json:"how,omitempty"` // a waker's operation
	// Share is the cause's part of the time goroutines spent runnable in
	// the spike (for "gc": the pauses' part of the spike's p99).
	Share float64 `json:"share"`
}

// SpikeCause is the spikes of one cause.
type SpikeCause struct {
	SpikeCauseKey
	Spikes int           `json:"spikes"`
	First  time.Duration `json:"first_ns"`
	Last   time.Duration `json:"last_ns"`
	// Every is the mean time between the spikes' starts (0: one spike).
	Every time.Duration `json:"every_ns"`
	// P99 is the median of the spikes' p99; P99Max the largest.
	P99    time.Duration `json:"p99_ns"`
	P99Max time.Duration `json:"p99_max_ns"`
	// Burst is the mean number of goroutines the cause made runnable in
	// one spike; RunnablePeak the largest peak.
	Burst        int           `json:"burst"`
	RunnablePeak int           `json:"runnable_peak"`
	Duration     time.Duration `json:"duration_ns"` // the spikes' total length
}

// SpikeWindows says how the windows were cut and what was found.
type SpikeWindows struct {
	Window   time.Duration `json:"window_ns"`
	P99      time.Duration `json:"p99_ns"`
	Runnable float64       `json:"runnable_per_p"`
	// RunnableMark is the runnable peak that marked a window (Runnable ×
	// GOMAXPROCS, at least spikeRunnableFloor).
	RunnableMark int `json:"runnable_mark"`
	// BaselineP99 and BaselinePeak are the trace's quieter windows' (the
	// first quartile of its windows): a spike stands out from them
	// (spikeOverBaseline).
	BaselineP99  time.Duration `json:"baseline_p99_ns"`
	BaselinePeak int           `json:"baseline_peak"`
	Windows      int           `json:"windows"` // windows examined
	Marked       int           `json:"marked"`  // windows in spikes
	Spikes       int           `json:"spikes"`  // merged spikes kept
	// Dropped counts the marked windows and spikes let go to bound memory
	// (over maxCandidates windows, maxSpikes spikes).
	Dropped int `json:"dropped"`
}

// winSite is a site's figures in one window or spike.
type winSite struct {
	running time.Duration
	longest time.Duration
}

// tally is how many goroutines one maker made runnable, and how long the
// goroutines it made runnable waited for a P, in one window or spike.
type tally struct {
	n    int
	wait time.Duration
}

// winStats is what one window (or a spike, their merge) holds; its size is
// fixed but for the site maps, which maxWindowSites bounds.
type winStats struct {
	latency Histogram // of starts after a wait or a creation
	peak    int
	wakes   [nWake]int
	created map[int32]*tally   // by site index
	wakers  map[int32]*tally   // by waker index (wakerStats.sites)
	held    map[int32]*winSite // by site index, running in stretches ≥ spikeHoldStretch
	// preempted is the wait of preempted and yielding goroutines, waitAll
	// every start's
	preempted, waitAll time.Duration
	overflow           int // rows beyond maxWindowSites
	stw                int
	stwTime            time.Duration
	mark               time.Duration
}

func newWinStats() *winStats {
	return &winStats{created: map[int32]*tally{}, wakers: map[int32]*tally{}, held: map[int32]*winSite{}}
}

func (w *winStats) reset() {
	w.latency = Histogram{}
	w.peak = 0
	w.wakes = [nWake]int{}
	clear(w.created)
	clear(w.wakers)
	clear(w.held)
	w.preempted, w.waitAll, w.overflow = 0, 0, 0
	w.stw, w.stwTime, w.mark = 0, 0, 0
}

// row returns m's row for k, nil when m is full (counted in overflow).
func row[V any](w *winStats, m map[int32]*V, k int32) *V {
	x := m[k]
	if x == nil {
		if len(m) >= maxWindowSites {
			w.overflow++
			return nil
		}
		x = new(V)
		m[k] = x
	}
	return x
}

func (w *winStats) merge(o *winStats) {
	w.latency.Merge(&o.latency)
	w.peak = max(w.peak, o.peak)
	for i, n := range o.wakes {
		w.wakes[i] += n
	}
	for k, t := range o.created {
		if x := row(w, w.created, k); x != nil {
			x.n += t.n
			x.wait += t.wait
		}
	}
	for k, t := range o.wakers {
		if x := row(w, w.wakers, k); x != nil {
			x.n += t.n
			x.wait += t.wait
		}
	}
	for k, h := range o.held {
		if x := row(w, w.held, k); x != nil {
			x.running += h.running
			x.longest = max(x.longest, h.longest)
		}
	}
	w.preempted += o.preempted
	w.waitAll += o.waitAll
	w.overflow += o.overflow
	w.stw += o.stw
	w.stwTime += o.stwTime
	w.mark += o.mark
}

// spikeState is the streaming state of the spike windows.
type spikeState struct {
	opt     SpikeOptions
	started bool
	start   trace.Time // the current window's start
	end     trace.Time // and end
	cur     *winStats
	running []*gstate  // goroutines running now (at most GOMAXPROCS; gstate.spk)
	markAt  trace.Time // start of the open mark phase
	marking bool

	// Every window's p99 (0 with fewer than spikeMinStarts starts) and
	// runnable peak, for the trace's baseline: a spike is a window that
	// stands out from the trace's typical one.
	p99s, peaks Histogram
	windows     int
	mark        int // the runnable mark in force (set at each window's close)
	// cands are the windows that passed the absolute thresholds, in time
	// order (at most maxCandidates; dropped counts the rest).
	cands   []*window
	dropped int
	spikes  []rawSpike
	marked  int
	causes  map[causeKey]*causeAgg
}

// window is a marked window kept until the end, when the trace's baseline
// is known.
type window struct {
	start, end trace.Time
	w          *winStats
}

// rawSpike is a merged spike before its sites are resolved.
type rawSpike struct {
	start, end trace.Time
	windows    int
	w          *winStats
	cause      causeKey
	share      float64
}

type causeKey struct {
	kind string
	site int32 // "created", "preempted": the site index; "woken": the waker index
}

type causeAgg struct {
	spikes      int
	first, last trace.Time
	p99s        []time.Duration // at most maxSpikes
	p99Max      time.Duration
	burst       int
	peak        int
	dur         time.Duration
	share       float64
}

// Bounds and the baseline of the spike windows.
const (
	// maxCandidates bounds the windows kept until the end (4 KB and a few
	// rows each); when full, those that do not stand out from the
	// baseline so far are let go.
	maxCandidates = 1024
	// maxKeptSites bounds the rows a kept window holds per table.
	maxKeptSites = 16
	// spikeOverBaseline: a spike's p99 (or runnable peak) must be this
	// many times the baseline window's, the spikeBaseline quantile of the
	// trace's windows: a program whose every window is slow has a latency
	// problem (SD301, SD302), not spikes. The baseline is the quieter
	// quarter of the windows, not the median: on a crowded 2-CPU machine
	// the lab's bursts every 500ms lasted 300ms, half of the windows.
	spikeOverBaseline = 4.0
	spikeBaseline     = 0.25
)

func newSpikeState(o SpikeOptions) *spikeState {
	return &spikeState{opt: o.withDefaults(), cur: newWinStats(), causes: map[causeKey]*causeAgg{}}
}

// runnableMark is the runnable peak that marks a window.
func (sp *spikeState) runnableMark(procs int) int {
	return max(int(sp.opt.Runnable*float64(procs)+0.5), spikeRunnableFloor)
}

// spikeAdvance closes the windows that end at or before t.
func (a *analyzer) spikeAdvance(t trace.Time) {
	sp := a.spk
	if !sp.started {
		sp.started = true
		sp.start = t
		sp.end = t + trace.Time(sp.opt.Window)
		sp.cur.peak = a.runnable.cur
		return
	}
	for t >= sp.end {
		a.closeWindow(sp.end)
		sp.start = sp.end
		sp.end += trace.Time(sp.opt.Window)
		sp.cur.peak = a.runnable.cur
		if t-sp.end > trace.Time(64*sp.opt.Window) && a.runnable.cur < sp.mark && len(sp.running) == 0 && !sp.marking {
			// a long gap with nothing in flight: the empty windows
			// between are quiet, count them at once
			n := (t - sp.end) / trace.Time(sp.opt.Window)
			sp.windows += int(n)
			for range min(n, 1<<20) {
				sp.p99s.Add(0)
				sp.peaks.Add(time.Duration(a.runnable.cur))
			}
			sp.start += n * trace.Time(sp.opt.Window)
			sp.end += n * trace.Time(sp.opt.Window)
		}
	}
}

// closeWindow judges the window that ends at end: one that passes the
// absolute thresholds is kept, to be compared with the baseline at the end.
func (a *analyzer) closeWindow(end trace.Time) {
	sp := a.spk
	w := sp.cur
	// the goroutines still running hold their P through the window's end
	for _, g := range sp.running {
		a.spikeRun(g, end)
	}
	if sp.marking {
		w.mark += end.Sub(max(sp.markAt, sp.start))
	}
	procs := a.gomaxprocs
	if procs == 0 {
		procs = len(a.ps)
	}
	sp.mark = sp.runnableMark(max(procs, 1))
	sp.windows++
	p99 := time.Duration(0)
	if w.latency.Count() >= spikeMinStarts {
		p99 = w.latency.Quantile(.99)
	}
	sp.p99s.Add(p99)
	sp.peaks.Add(time.Duration(w.peak))
	if p99 < sp.opt.P99 && w.peak < sp.mark {
		w.reset()
		return
	}
	if len(sp.cands) == maxCandidates {
		a.pruneCandidates()
	}
	if len(sp.cands) == maxCandidates {
		sp.dropped++
		w.reset()
		return
	}
	w.trim()
	sp.cands = append(sp.cands, &window{start: sp.start, end: end, w: w})
	sp.cur = newWinStats()
}

// standsOut reports whether a window (or a merged spike) with this p99
// and runnable peak stands out from the baseline.
func (sp *spikeState) standsOut(p99 time.Duration, peak int) bool {
	base99 := sp.p99s.Quantile(spikeBaseline)
	basePeak := int(sp.peaks.Quantile(spikeBaseline))
	return p99 >= sp.opt.P99 && float64(p99) >= spikeOverBaseline*float64(base99) ||
		peak >= sp.mark && float64(peak) >= spikeOverBaseline*float64(basePeak)
}

func (w *winStats) p99() time.Duration {
	if w.latency.Count() < spikeMinStarts {
		return 0
	}
	return w.latency.Quantile(.99)
}

// pruneCandidates lets go of the kept windows that do not stand out from
// the baseline so far.
func (a *analyzer) pruneCandidates() {
	sp := a.spk
	kept := sp.cands[:0]
	for _, c := range sp.cands {
		if sp.standsOut(c.w.p99(), c.w.peak) {
			kept = append(kept, c)
		} else {
			sp.dropped++
		}
	}
	clear(sp.cands[len(kept):])
	sp.cands = kept
}

// trim keeps the maxKeptSites largest rows of each table.
func (w *winStats) trim() {
	trimMap(w.created, &w.overflow, func(t *tally) int64 { return int64(t.wait) })
	trimMap(w.wakers, &w.overflow, func(t *tally) int64 { return int64(t.wait) })
	trimMap(w.held, &w.overflow, func(h *winSite) int64 { return int64(h.running) })
}

func trimMap[K comparable, V any](m map[K]V, over *int, size func(V) int64) {
	if len(m) <= maxKeptSites {
		return
	}
	sizes := make([]int64, 0, len(m))
	for _, v := range m {
		sizes = append(sizes, size(v))
	}
	slices.Sort(sizes)
	cut := sizes[len(sizes)-maxKeptSites]
	kept := 0
	for k, v := range m {
		if size(v) > cut || size(v) == cut && kept < maxKeptSites {
			kept++
			continue
		}
		*over++
		delete(m, k)
	}
}

// spikeFinish closes the last (partial) window at the trace's end, then
// keeps the windows that stand out from the trace's baseline, merges the
// adjacent ones into spikes and names each spike's cause.
func (a *analyzer) spikeFinish() {
	sp := a.spk
	if !sp.started {
		return
	}
	// the last window, cut short by the trace's end, is judged when it
	// covers half a window: the end of a run (workers told to stop, the
	// trace stopping) in a few milliseconds is no spike
	end := min(a.last, sp.end)
	if end.Sub(sp.start) >= sp.opt.Window/2 {
		a.closeWindow(end)
		sp.start = end
	}
	if sp.windows < spikeMinWindows {
		sp.dropped += len(sp.cands)
		sp.cands = nil
		return
	}
	var open *rawSpike
	flush := func() {
		if open != nil {
			a.addSpike(*open)
			open = nil
		}
	}
	for _, c := range sp.cands {
		if !sp.standsOut(c.w.p99(), c.w.peak) {
			flush()
			continue
		}
		sp.marked++
		if open != nil && open.end == c.start {
			open.w.merge(c.w)
			open.end = c.end
			open.windows++
			continue
		}
		flush()
		open = &rawSpike{start: c.start, end: c.end, windows: 1, w: c.w}
	}
	flush()
	sp.cands = nil
}

// addSpike names a merged spike's cause and folds it into its cause's row.
func (a *analyzer) addSpike(r rawSpike) {
	sp := a.spk
	r.cause, r.share = a.dominant(r.w)
	p99 := r.w.latency.Quantile(.99)
	c := sp.causes[r.cause]
	if c == nil {
		c = &causeAgg{first: r.start}
		sp.causes[r.cause] = c
	}
	c.spikes++
	c.last = r.start
	c.p99Max = max(c.p99Max, p99)
	if len(c.p99s) < maxSpikes {
		c.p99s = append(c.p99s, p99)
	}
	c.burst += a.causeBurst(r.w, r.cause)
	c.peak = max(c.peak, r.w.peak)
	c.dur += r.end.Sub(r.start)
	c.share += r.share
	if len(sp.spikes) < maxSpikes {
		sp.spikes = append(sp.spikes, r)
	} else {
		sp.dropped++
	}
}

// dominant is the maker whose goroutines spent the most time runnable in
// w: one creation site's go statements, one waker's wake-ups, or
// preemptions (named by the site that held the Ps longest); stop-the-world
// pauses as long as the spike's p99 come first.
func (a *analyzer) dominant(w *winStats) (causeKey, float64) {
	p99 := w.latency.Quantile(.99)
	if p99 > 0 && w.stwTime >= p99 {
		return causeKey{kind: "gc", site: -1}, round2(min(float64(w.stwTime)/float64(p99), 1))
	}
	best, bestW := causeKey{kind: "mixed", site: -1}, time.Duration(0)
	for s, t := range w.created {
		if t.wait > bestW || t.wait == bestW && best.kind == "created" && s < best.site {
			best, bestW = causeKey{kind: "created", site: s}, t.wait
		}
	}
	for s, t := range w.wakers {
		if t.wait > bestW || t.wait == bestW && best.kind == "woken" && s < best.site {
			best, bestW = causeKey{kind: "woken", site: s}, t.wait
		}
	}
	if w.preempted > bestW {
		if s := topHolder(w); s >= 0 {
			best, bestW = causeKey{kind: "preempted", site: s}, w.preempted
		}
	}
	if w.waitAll == 0 || float64(bestW) < spikeCauseShare*float64(w.waitAll) {
		return causeKey{kind: "mixed", site: -1}, 0
	}
	procs := a.gomaxprocs
	if procs == 0 {
		procs = len(a.ps)
	}
	if (best.kind == "created" || best.kind == "woken") && (w.peak < burstMark(procs) || a.causeBurst(w, best) < burstMark(procs)) {
		// the run queues never filled: a few goroutines that waited
		// long are no burst (a host that withheld the CPU, SD303)
		return causeKey{kind: "mixed", site: -1}, 0
	}
	return best, round2(float64(bestW) / float64(w.waitAll))
}

// burstMark is the least burst, and run-queue peak, that a burst cause
// needs with procs Ps.
func burstMark(procs int) int { return max(spikeBurstPerP*procs, spikeBurstFloor) }

// topHolder is the site that ran longest in w, -1 for none.
func topHolder(w *winStats) int32 {
	best, bestD := int32(-1), time.Duration(0)
	for s, h := range w.held {
		if h.running > bestD || h.running == bestD && s < best {
			best, bestD = s, h.running
		}
	}
	return best
}

// causeBurst is how many goroutines the cause made runnable in w.
func (a *analyzer) causeBurst(w *winStats, c causeKey) int {
	switch c.kind {
	case "created":
		if t := w.created[c.site]; t != nil {
			return t.n
		}
	case "woken":
		if t := w.wakers[c.site]; t != nil {
			return t.n
		}
	case "preempted":
		return w.wakes[wakePreempted]
	}
	return 0
}

// spikeRunnable counts a goroutine made runnable in the current window:
// created at its site, or woken by waker (an index into wakerStats.sites,
// -1 for none).
func (a *analyzer) spikeRunnable(g *gstate, waker int32) {
	w := a.spk.cur
	w.wakes[g.why]++
	w.peak = max(w.peak, a.runnable.cur)
	switch {
	case g.why == wakeCreated && g.site >= 0:
		if t := row(w, w.created, g.site); t != nil {
			t.n++
		}
	case waker >= 0:
		if t := row(w, w.wakers, waker); t != nil {
			t.n++
		}
	}
}

// spikeStart records a start in the current window: its wait, charged to
// whoever made g runnable, and its latency when g was woken or created,
// what something waits for. A preempted or yielding goroutine queues
// behind the others by design: CPU-bound work on 2 Ps waits a time slice
// (10–30ms) at every preemption, and counting its latency marked every
// window of the lab's healthy workerpool. It is called before the waker
// analysis forgets g's waker (wokenStarted).
func (a *analyzer) spikeStart(g *gstate, d time.Duration) {
	w := a.spk.cur
	w.waitAll += d
	switch {
	case g.why == wakeCreated:
		w.latency.Add(d)
		if g.site >= 0 {
			if t := row(w, w.created, g.site); t != nil {
				t.wait += d
			}
		}
	case g.why.woken():
		w.latency.Add(d)
		if g.wk.by > 0 {
			if t := row(w, w.wakers, g.wk.by-1); t != nil {
				t.wait += d
			}
		}
	case g.why == wakePreempted || g.why == wakeYield:
		w.preempted += d
	}
}

// spikeRunning tracks the running goroutines: g starts running (on) or
// stops at t. They are a slice (gstate.spk is 1 + the index): a map's
// insert and delete at every start cost 3% of a ping-pong's analysis.
func (a *analyzer) spikeRunning(g *gstate, on bool, t trace.Time) {
	sp := a.spk
	if on {
		if g.spk == 0 {
			sp.running = append(sp.running, g)
			g.spk = int32(len(sp.running))
		}
		return
	}
	if g.spk == 0 {
		return
	}
	a.spikeRun(g, t)
	i := g.spk - 1
	last := sp.running[len(sp.running)-1]
	sp.running[i] = last
	last.spk = i + 1
	sp.running[len(sp.running)-1] = nil
	sp.running = sp.running[:len(sp.running)-1]
	g.spk = 0
}

// spikeRun adds g's running in the current window, up to t, when its
// stretch is long enough to hold a P.
func (a *analyzer) spikeRun(g *gstate, t trace.Time) {
	if g.site < 0 || t.Sub(g.since) < spikeHoldStretch {
		return
	}
	sp := a.spk
	w := sp.cur
	h := row(w, w.held, g.site)
	if h == nil {
		return
	}
	from := max(g.since, sp.start)
	h.running += t.Sub(from)
	h.longest = max(h.longest, t.Sub(g.since))
}

// spikeSTW records a stop-the-world pause that ended at t.
func (a *analyzer) spikeSTW(d time.Duration) {
	a.spk.cur.stw++
	a.spk.cur.stwTime += d
}

// spikeMark records the start (on) or end of a concurrent mark phase.
func (a *analyzer) spikeMark(on bool, t trace.Time) {
	sp := a.spk
	if on {
		sp.marking, sp.markAt = true, t
		return
	}
	if sp.marking {
		sp.cur.mark += t.Sub(max(sp.markAt, sp.start))
		sp.marking = false
	}
}

// spikeSummary turns the spikes into the summary's rows.
func (a *analyzer) spikeSummary(s *Summary) {
	sp := a.spk
	procs := max(s.Procs.GOMAXPROCS, 1)
	s.SpikeWindows = SpikeWindows{Window: sp.opt.Window, P99: sp.opt.P99, Runnable: sp.opt.Runnable, RunnableMark: sp.runnableMark(procs),
		Windows: sp.windows, Marked: sp.marked, Spikes: len(sp.spikes), Dropped: sp.dropped,
		BaselineP99: sp.p99s.Quantile(spikeBaseline), BaselinePeak: int(sp.peaks.Quantile(spikeBaseline))}
	s.Spikes = []Spike{}
	for _, r := range sp.spikes {
		s.Spikes = append(s.Spikes, a.spikeRow(r))
	}
	s.SpikeCauses = []SpikeCause{}
	for k, c := range sp.causes {
		sc := SpikeCause{SpikeCauseKey: a.causeKeyOf(k, round2(c.share/float64(c.spikes))), Spikes: c.spikes, First: c.first.Sub(a.first), Last: c.last.Sub(a.first),
			P99Max: c.p99Max, Burst: c.burst / c.spikes, RunnablePeak: c.peak, Duration: c.dur}
		if c.spikes > 1 {
			sc.Every = time.Duration(c.last-c.first) / time.Duration(c.spikes-1)
		}
		p := slices.Clone(c.p99s)
		slices.Sort(p)
		sc.P99 = p[len(p)/2]
		s.SpikeCauses = append(s.SpikeCauses, sc)
	}
	slices.SortFunc(s.SpikeCauses, func(x, y SpikeCause) int {
		return cmp.Or(cmp.Compare(y.Spikes, x.Spikes), cmp.Compare(y.Duration, x.Duration), cmp.Compare(x.First, y.First))
	})
}

func (a *analyzer) causeKeyOf(k causeKey, share float64) SpikeCauseKey {
	out := SpikeCauseKey{Kind: k.kind, Share: share}
	switch k.kind {
	case "created", "preempted":
		st := a.sites[k.site]
		out.Location, out.Function = a.locs.get(st.key.creator), a.locs.get(st.key.fn).Function
	case "woken":
		site := a.wk.sites[k.site]
		out.Location, out.How = a.wakerLoc(site.key), site.how().String()
		out.Function = out.Location.Function
	}
	return out
}

func (a *analyzer) spikeRow(r rawSpike) Spike {
	w := r.w
	sp := Spike{Start: r.start.Sub(a.first), End: r.end.Sub(a.first), Windows: r.windows, Starts: int(w.latency.Count()),
		Latency: w.latency.Percentiles(), RunnablePeak: w.peak, Runnable: []ReasonCount{}, Created: []SiteCount{}, Wakers: []WakerCount{}, Held: []Holder{},
		GC: SpikeGC{STW: w.stw, STWTime: w.stwTime, Mark: w.mark}, LeftOut: w.overflow,
		Cause: a.causeKeyOf(r.cause, r.share)}
	for why, n := range w.wakes {
		if n > 0 {
			sp.Runnable = append(sp.Runnable, ReasonCount{Reason: wakeNames[why], Count: n})
		}
	}
	slices.SortStableFunc(sp.Runnable, func(x, y ReasonCount) int { return cmp.Compare(y.Count, x.Count) })
	for s, t := range w.created {
		st := a.sites[s]
		sp.Created = append(sp.Created, SiteCount{Creator: a.locs.get(st.key.creator), Function: a.locs.get(st.key.fn).Function, Count: t.n, Wait: t.wait})
	}
	slices.SortFunc(sp.Created, func(x, y SiteCount) int {
		return cmp.Or(cmp.Compare(y.Wait, x.Wait), cmp.Compare(y.Count, x.Count), cmpLoc(x.Creator, y.Creator), strings.Compare(x.Function, y.Function))
	})
	sp.Created = first(sp.Created, 3)
	for i, t := range w.wakers {
		site := a.wk.sites[i]
		sp.Wakers = append(sp.Wakers, WakerCount{Location: a.wakerLoc(site.key), How: site.how().String(), Count: t.n, Wait: t.wait})
	}
	slices.SortFunc(sp.Wakers, func(x, y WakerCount) int {
		return cmp.Or(cmp.Compare(y.Wait, x.Wait), cmp.Compare(y.Count, x.Count), cmpLoc(x.Location, y.Location), strings.Compare(x.How, y.How))
	})
	sp.Wakers = first(sp.Wakers, 3)
	for s, h := range w.held {
		st := a.sites[s]
		sp.Held = append(sp.Held, Holder{Function: a.locs.get(st.key.fn).Function, Creator: a.locs.get(st.key.creator), System: st.system, Running: h.running, Longest: h.longest})
	}
	slices.SortFunc(sp.Held, func(x, y Holder) int {
		return cmp.Or(cmp.Compare(y.Running, x.Running), strings.Compare(x.Function, y.Function), cmpLoc(x.Creator, y.Creator))
	})
	sp.Held = first(sp.Held, 3)
	return sp
}

// String is the spike's time span, for text.
func (s Spike) String() string {
	return fmt.Sprintf("%v–%v", s.Start.Round(time.Millisecond), s.End.Round(time.Millisecond))
}

// writeSpikes prints the spike windows and the heavy unblockers, when
// there are any, within width columns; p formats a wrapped line.
func (s *Summary) writeSpikes(b *strings.Builder, p func(string, ...any), width int) {
	q := textsafe.String
	sw := s.SpikeWindows
	if len(s.Spikes) > 0 {
		b.WriteString("\n")
		p("latency spikes: %d in %d windows of %v (p99 of starts after a wait or a creation ≥ %v, or %d runnable, and %g× the baseline, the quieter quarter of the windows: p99 %v, %d runnable)",
			sw.Spikes, sw.Windows, sw.Window, sw.P99, sw.RunnableMark, spikeOverBaseline, dur(sw.BaselineP99), sw.BaselinePeak)
		t := &textlayout.Table{Header: []string{"spike", "p99", "starts", "runnable", "cause"}, Right: []bool{false, true, true, true, false}, Stack: 4}
		for _, sp := range first(s.Spikes, 10) {
			t.Add("  "+sp.String(), fmt.Sprint(dur(sp.Latency.P99)), fmt.Sprint(sp.Starts), fmt.Sprint(sp.RunnablePeak), q(sp.Cause.text()))
		}
		t.Write(b, width)
		if len(s.Spikes) > 10 {
			b.WriteString("  ... more spikes in the JSON report\n")
		}
	}
	heavy := &textlayout.Table{Header: []string{"wakers of many at once", "wake-ups", "heavy bursts", "mean", "max", "woken p99"}, Right: []bool{false, true, true, true, true, true}}
	for _, w := range s.Wakers {
		if w.Heavy == 0 || len(heavy.Rows) == 5 {
			continue
		}
		where := "the runtime: " + q(w.How)
		if w.Location.File != "" {
			where = locString(w.Location) + ": " + q(w.How)
		}
		heavy.Add("  "+where, fmt.Sprint(w.Wakes), fmt.Sprint(w.Heavy), fmt.Sprint(w.HeavyMean), fmt.Sprint(w.MaxBurst), fmt.Sprint(dur(w.Latency.P99)))
	}
	if len(heavy.Rows) > 0 {
		b.WriteString("\n")
		heavy.Write(b, width)
	}
}

// text is the cause in a table cell.
func (c SpikeCauseKey) text() string {
	where := func(l finding.Location) string {
		if l.File == "" {
			return "the runtime"
		}
		return fmt.Sprintf("%s:%d", shortFile(l.File), l.Line)
	}
	switch c.Kind {
	case "created":
		return fmt.Sprintf("created at %s (%.0f%%)", where(c.Location), 100*c.Share)
	case "woken":
		return fmt.Sprintf("woken by %s, %s (%.0f%%)", where(c.Location), c.How, 100*c.Share)
	case "preempted":
		return fmt.Sprintf("preempted, %s held the Ps (%.0f%%)", c.Function, 100*c.Share)
	case "gc":
		return "stop-the-world pauses"
	}
	return "mixed"
}
