package exectrace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/viz"
)

// Summary is the figures of one trace. It marshals to the "summary" object
// of schedoctor's JSON output; durations are in nanoseconds.
type Summary struct {
	Trace      TraceInfo        `json:"trace"`
	Latency    LatencySummary   `json:"latency"`
	Procs      ProcSummary      `json:"procs"`
	Runnable   RunnableSummary  `json:"runnable"`
	Migrations MigrationSummary `json:"migrations"`
	Syscalls   SyscallSummary   `json:"syscalls"`
	GC         GCSummary        `json:"gc"`
	Sites      []SiteSummary    `json:"sites"`  // by running time, most first
	Sleeps     []SleepSummary   `json:"sleeps"` // by count, most first
	Locks      []LockSummary    `json:"locks"`  // by total wait, most first
	Truncated  *Truncation      `json:"truncated,omitempty"`
	// Spinning are the user sites whose goroutines spend most of their
	// running time in stretches that end in preemption or a yield, not a
	// block: compute or a spin (the trace alone cannot tell; the source at
	// HotLine can), by running time.
	Spinning []SpinSite `json:"spinning"`
	// SpinPct is the Spinning sites' share of the Ps' busy time.
	SpinPct float64 `json:"spin_pct"`
	// SpikeWindows says how the trace was cut into windows and how many
	// were marked (spikes.go); Spikes are the merged marked windows, in
	// time order (at most maxSpikes), SpikeCauses the spikes grouped by
	// their dominant cause, most spikes first.
	SpikeWindows SpikeWindows `json:"spike_windows"`
	Spikes       []Spike      `json:"spikes"`
	SpikeCauses  []SpikeCause `json:"spike_causes"`
	// Wakers are who woke the goroutines that waited (wakers.go), by
	// wake-ups, most first.
	Wakers []WakerSummary `json:"wakers"`
	// Thin, when set, says why the trace is too thin to rule causes out,
	// with the figures and what to record instead.
	Thin string `json:"thin,omitempty"`
	// Visual is the HTML report's pictures of the trace (Visuals).
	Visual *viz.Set `json:"-"`
}

// SpinSite is a site whose goroutines run until something takes the CPU
// away, with the figures that show it.
type SpinSite struct {
	Function string           `json:"function"`
	Creator  finding.Location `json:"creator"`
	// HotLine is where the goroutines were: the user line most CPU samples
	// hit (when the trace has them), else the line at least
	// hotPreemptMinimum preemptions hit most, else StopAt (see spinning).
	HotLine finding.Location `json:"hot_line"`
	// HotFrom says what placed HotLine: "cpu samples" or "preemptions"
	// (where the time goes), or "stops" (where preemptions and yields hit
	// most, too few preemptions to place the time: a yield is where the
	// goroutine chose to stop, not where its time went).
	HotFrom string           `json:"hot_from"`
	StopAt  finding.Location `json:"stop_at"` // where preemptions and yields hit most
	// Callers are the user frames above HotLine, then above StopAt, on a
	// stack seen there, innermost first: where to look for the loop when
	// the hot line is in no loop (a library's non-blocking call retried
	// by its caller).
	Callers    []finding.Location `json:"callers,omitempty"`
	Running    time.Duration      `json:"running_ns"`
	BusyPct    float64            `json:"busy_pct"`     // of the Ps' busy time
	Cores      float64            `json:"cores"`        // running time over the trace's duration
	StopRunPct float64            `json:"stop_run_pct"` // of its running time: in stretches ended by preemption or a yield
	MeanRun    time.Duration      `json:"mean_run_ns"`  // mean running stretch
	Preempts   int                `json:"preempts"`
	Yields     int                `json:"yields"`
	Blocked    int                `json:"blocked"`
	Samples    int                `json:"samples"`
	// SpinCodePct is the share of its CPU samples in the runtime's select
	// or yield code (selectgo, sellock, Gosched), when there are samples.
	SpinCodePct float64 `json:"spin_code_pct"`
	// WorkCodePct is the share of its CPU samples in standard-library
	// callees (crypto, encoding, I/O): a loop whose CPU is there works.
	WorkCodePct float64 `json:"work_code_pct"`
}

// Stall is one long wait: a stop-the-world pause, or a goroutine's wait
// for a P after a wake-up.
type Stall struct {
	At       time.Duration    `json:"at_ns"` // from the trace's start
	Duration time.Duration    `json:"duration_ns"`
	What     string           `json:"what"` // the pause's reason, or what the goroutine waited on
	Location finding.Location `json:"location"`
}

// TraceInfo describes the input.
type TraceInfo struct {
	Bytes       int64         `json:"bytes"`
	Events      int64         `json:"events"`
	Generations int           `json:"generations"`
	Duration    time.Duration `json:"duration_ns"`
}

// LatencySummary is scheduling latency: from GoRunnable to GoRunning.
type LatencySummary struct {
	Overall Percentiles `json:"overall"`
	// Woken is the latency of starts after a wait (not after a preemption
	// or a yield): what requests feel.
	Woken    Percentiles     `json:"woken"`
	Buckets  []Bucket        `json:"buckets"`
	ByReason []ReasonLatency `json:"by_reason"`
	// WokenLongest are the longest waits for a P after a wake-up.
	WokenLongest []Stall `json:"woken_longest"`
}

// ReasonLatency is the latency of goroutines made runnable for one reason.
type ReasonLatency struct {
	Reason string `json:"reason"`
	Percentiles
}

// ProcSummary is P utilisation.
type ProcSummary struct {
	GOMAXPROCS int     `json:"gomaxprocs"`
	CPUs       float64 `json:"cpus"`                  // as given; 0 when unknown
	BusyMean   float64 `json:"busy_mean"`             // time-weighted mean of running Ps
	BusyPeak   float64 `json:"busy_peak"`             // highest mean over one timeline bin
	BusyMax    int     `json:"busy_max"`              // most Ps running at one instant
	UtilPct    float64 `json:"util_pct"`              // busy_mean over GOMAXPROCS
	GCPct      float64 `json:"gc_pct"`                // GC mark workers' share of P time
	IdlePct    float64 `json:"idle_pct"`              // 100 - util_pct
	PerCPUPct  float64 `json:"per_cpu_pct,omitempty"` // busy_mean over cpus, when known
	Steals     int     `json:"steals"`                // Ps taken from threads blocked in syscalls
	// ProcessCPU is the CPU the process really got in the trace's window:
	// its CPU samples × 10ms (ProcessCPUFrom "cpu samples"), or as given
	// (Options.ProcessCPU, "given"); 0 and "" when unknown.
	ProcessCPU     time.Duration `json:"process_cpu_ns"`
	CPUSamples     int           `json:"cpu_samples"` // CPU profile samples the trace carries
	ProcessCPUFrom string        `json:"process_cpu_from,omitempty"`
	ProcessCores   float64       `json:"process_cores,omitempty"`
	// BusyPerCorePct is the Ps' busy time over ProcessCPU: far above 100
	// means the Ps "ran" while the host gave their threads no CPU.
	BusyPerCorePct float64 `json:"busy_per_core_pct,omitempty"`
	// Timeline is the mean number of running Ps per bin of TimelineBin.
	Timeline    []float64     `json:"timeline"`
	TimelineBin time.Duration `json:"timeline_bin_ns"`
}

// RunnableSummary is the number of runnable goroutines over time (the run
// queues' length, summed).
type RunnableSummary struct {
	Mean          float64 `json:"mean"`
	Max           int     `json:"max"`
	AboveProcsPct float64 `json:"above_procs_pct"` // share of time with more runnable goroutines than Ps
}

// MigrationSummary counts starts on another P or thread than the last.
type MigrationSummary struct {
	Starts     int     `json:"starts"`
	PMoves     int     `json:"p_moves"`
	MMoves     int     `json:"m_moves"`
	PMovesPerS float64 `json:"p_moves_per_s"`
	MMovesPerS float64 `json:"m_moves_per_s"`
	MMovePct   float64 `json:"m_move_pct"` // of starts
}

// SyscallSummary counts syscalls and the ones that lost their P.
type SyscallSummary struct {
	Count    int           `json:"count"`
	Handoffs int           `json:"handoffs"` // returned to find their P gone
	Time     time.Duration `json:"time_ns"`
	Sites    []SyscallSite `json:"sites"`
}

// SyscallSite is the syscalls made from one line.
type SyscallSite struct {
	Location finding.Location `json:"location"`
	Count    int              `json:"count"`
	Handoffs int              `json:"handoffs"`
	// Batched counts the calls made through a frame that batches I/O
	// (finding.BatchingFrame: bufio's Flush, writev, io.Copy's buffer).
	Batched  int         `json:"batched,omitempty"`
	Duration Percentiles `json:"duration"`
	// HandoffDuration is the duration of the calls that lost their P: a
	// wait (an event loop's epoll_wait) loses it by design.
	HandoffDuration Percentiles `json:"handoff_duration"`
}

// GCSummary is the GC's stop-the-world and assist time.
type GCSummary struct {
	Cycles     int           `json:"cycles"` // concurrent mark phases seen
	MarkTime   time.Duration `json:"mark_ns"`
	STW        Percentiles   `json:"stw"`
	STWReasons []NamedTime   `json:"stw_reasons"`
	Assist     Percentiles   `json:"assist"`
	AssistPct  float64       `json:"assist_pct"` // assists' running time, of the Ps' time (duration × GOMAXPROCS)
	STWPct     float64       `json:"stw_pct"`    // of the trace's duration
	AssistBy   []LocTime     `json:"assist_by"`
	// Forced collections: runtime.GC or debug.FreeOSMemory calls.
	ForcedCycles int           `json:"forced_cycles"`
	STWForced    time.Duration `json:"stw_forced_ns"`
	ForcedBy     []LocTime     `json:"forced_by"` // stop-the-world time by the caller of runtime.GC
	STWLongest   []Stall       `json:"stw_longest"`
}

// NamedTime is a total time under a name.
type NamedTime struct {
	Name string        `json:"name"`
	Time time.Duration `json:"time_ns"`
}

// LocTime is a total time at a location.
type LocTime struct {
	Location finding.Location `json:"location"`
	Time     time.Duration    `json:"time_ns"`
}

// SiteSummary is what the goroutines of one creation site did.
type SiteSummary struct {
	Creator    finding.Location `json:"creator"`  // the go statement; empty for goroutines alive at trace start
	Function   string           `json:"function"` // what the goroutines run
	System     bool             `json:"system"`   // a runtime goroutine
	Goroutines int              `json:"goroutines"`
	Running    time.Duration    `json:"running_ns"`
	Latency    Percentiles      `json:"latency"` // of starts after a wait
	Blocked    int              `json:"blocked"` // blocks of any kind
	Blocks     []BlockCount     `json:"blocks"`  // the most frequent reasons and lines
	Preempts   int              `json:"preempts"`
	Yields     int              `json:"yields"`
	// SyscallWaits are the syscalls that waited (lost their P, or took
	// 1ms or more): blocks that the trace records as syscalls.
	SyscallWaits int `json:"syscall_waits"`
	// NeverBlocked counts goroutines that were stopped (preempted or
	// yielded) but never blocked, and NeverBlockedRun their running time.
	NeverBlocked    int              `json:"never_blocked"`
	NeverBlockedRun time.Duration    `json:"never_blocked_running_ns"`
	YieldOnly       int              `json:"yield_only"`
	Starts          int              `json:"starts"`
	PMoves          int              `json:"p_moves"`
	MMoves          int              `json:"m_moves"`
	StopAt          finding.Location `json:"stop_at"` // where preemptions and yields hit most
	// PreemptAt is where preemptions alone hit most: where the time goes
	// (see spinning).
	PreemptAt finding.Location `json:"-"`
	// Callers holds, for HotLine, StopAt and PreemptAt, the user frames
	// above them on a stack seen there (innermost first): the loop that
	// retries a library's non-blocking call is a caller's.
	Callers map[finding.Location][]finding.Location `json:"-"`
	// StopRunPct is the share of the running time spent in stretches that
	// ended in preemption or a yield (the rest ended in a block, a
	// syscall, or the goroutine's end); MeanRun the mean stretch.
	StopRunPct float64       `json:"stop_run_pct"`
	MeanRun    time.Duration `json:"mean_run_ns"`
	// Samples are the CPU samples taken in the site's goroutines, SpinCode
	// those in select or yield code, HotLine the user line most hit.
	Samples  int              `json:"samples"`
	SpinCode int              `json:"spin_code"`
	WorkCode int              `json:"work_code"` // in standard-library callees
	HotLine  finding.Location `json:"hot_line"`
}

// BlockCount is how often a site's goroutines blocked for one reason at one line.
type BlockCount struct {
	Reason   string           `json:"reason"`
	Location finding.Location `json:"location"`
	Count    int              `json:"count"`
}

// SleepSummary is the sleeps from one call site.
type SleepSummary struct {
	Location finding.Location `json:"location"`
	Count    int              `json:"count"`
	Repeats  int              `json:"repeats"` // the same goroutine slept here again with no other block between
	PerS     float64          `json:"per_s"`
	Slept    Percentiles      `json:"slept"`
}

// LockSummary is the waits on sync primitives at one call site.
type LockSummary struct {
	Location   finding.Location `json:"location"`
	Count      int              `json:"count"`
	Goroutines int              `json:"goroutines"`
	Wait       Percentiles      `json:"wait"`
	// Waiting is the mean number of goroutines waiting here at once.
	Waiting float64 `json:"waiting"`
}

// maxRows bounds the per-site tables in the summary.
const maxRows = 50

func (a *analyzer) summary(bytes int64, opt Options) *Summary {
	dur := a.last.Sub(a.first)
	secs := max(dur.Seconds(), 1e-9)
	s := &Summary{
		// Empty lists, not null, in JSON.
		Sites: []SiteSummary{}, Sleeps: []SleepSummary{}, Locks: []LockSummary{},
		Syscalls: SyscallSummary{Sites: []SyscallSite{}},
		Latency:  LatencySummary{Buckets: []Bucket{}, ByReason: []ReasonLatency{}},
		Trace:    TraceInfo{Bytes: bytes, Events: a.events, Generations: max(a.syncs-1, 0), Duration: dur}}

	s.Latency.Overall = a.latency.Percentiles()
	s.Latency.Buckets = append(s.Latency.Buckets, a.latency.Buckets()...)
	var woken Histogram
	for w := range nWake {
		if w.woken() {
			woken.Merge(&a.byWhy[w])
		}
		if a.byWhy[w].Count() > 0 {
			s.Latency.ByReason = append(s.Latency.ByReason, ReasonLatency{Reason: wakeNames[w], Percentiles: a.byWhy[w].Percentiles()})
		}
	}

	s.Latency.Woken = woken.Percentiles()
	s.Latency.WokenLongest = a.stalls(&a.wokenTop)

	procs := a.gomaxprocs
	if procs == 0 {
		procs = len(a.ps)
	}
	var busy time.Duration
	for _, p := range a.ps {
		busy += p.busy
	}
	// Busy Ps run Go code: the time their goroutines waited in syscalls is
	// taken off (pstate).
	busyMean := a.runningPs.mean()
	if dur > 0 {
		busyMean = max(busyMean-float64(a.waitBusy)/float64(dur), 0)
	}
	ps := ProcSummary{GOMAXPROCS: procs, CPUs: opt.CPUs, BusyMean: busyMean, BusyMax: a.runningPs.max, Steals: a.steals, Timeline: []float64{}}
	ps.TimelineBin = a.runningPs.binW
	for i, v := range a.runningPs.bins {
		w := float64(a.runningPs.binW)
		if i == len(a.runningPs.bins)-1 {
			// the last bin is partial
			w = float64(a.last.Sub(a.runningPs.origin) - time.Duration(i)*a.runningPs.binW)
		}
		m := 0.0
		if w > 0 {
			m = round2(v / w)
		}
		ps.Timeline = append(ps.Timeline, m)
		if i < len(a.runningPs.bins)-1 || len(a.runningPs.bins) == 1 {
			ps.BusyPeak = max(ps.BusyPeak, m)
		}
	}
	if procs > 0 {
		ps.UtilPct = round2(100 * ps.BusyMean / float64(procs))
		ps.IdlePct = round2(100 - ps.UtilPct)
		if dur > 0 {
			ps.GCPct = round2(100 * float64(a.gcWorker) / (float64(dur) * float64(procs)))
		}
	}
	if opt.CPUs > 0 {
		ps.PerCPUPct = round2(100 * ps.BusyMean / opt.CPUs)
	}
	a.processCPU(&ps, opt, dur)
	ps.BusyMean = round2(ps.BusyMean)
	s.Procs = ps

	s.Runnable = RunnableSummary{Mean: round2(a.runnable.mean()), Max: a.runnable.max, AboveProcsPct: round2(100 * a.runnable.shareAbove(procs))}

	s.Migrations = MigrationSummary{Starts: a.starts, PMoves: a.migP, MMoves: a.migM,
		PMovesPerS: round2(float64(a.migP) / secs), MMovesPerS: round2(float64(a.migM) / secs)}
	if a.starts > 0 {
		s.Migrations.MMovePct = round2(100 * float64(a.migM) / float64(a.starts))
	}

	for loc, ss := range a.syscalls {
		s.Syscalls.Count += ss.n
		s.Syscalls.Handoffs += ss.handoffs
		s.Syscalls.Time += ss.dur.Sum()
		s.Syscalls.Sites = append(s.Syscalls.Sites, SyscallSite{Location: a.locs.get(loc), Count: ss.n, Handoffs: ss.handoffs, Batched: ss.batched, Duration: ss.dur.Percentiles(),
			HandoffDuration: ss.handDur.Percentiles()})
	}
	sortTop(&s.Syscalls.Sites, func(x SyscallSite) int64 { return int64(x.Count) }, func(x SyscallSite) finding.Location { return x.Location })

	var running time.Duration
	for _, st := range a.sites {
		running += st.running
	}
	g := GCSummary{Cycles: int(a.mark.Count()), MarkTime: a.mark.Sum(), STW: a.stw.Percentiles(), Assist: a.assist.Percentiles(),
		STWReasons: []NamedTime{}, AssistBy: []LocTime{}}
	for name, d := range a.stwWhy {
		g.STWReasons = append(g.STWReasons, NamedTime{name, d})
	}
	slices.SortFunc(g.STWReasons, func(x, y NamedTime) int { return cmp.Or(cmp.Compare(y.Time, x.Time), strings.Compare(x.Name, y.Name)) })
	for loc, d := range a.assistBy {
		g.AssistBy = append(g.AssistBy, LocTime{a.locs.get(loc), d})
	}
	sortTop(&g.AssistBy, func(x LocTime) int64 { return int64(x.Time) }, func(x LocTime) finding.Location { return x.Location })
	if dur > 0 && procs > 0 {
		g.AssistPct = round2(100 * float64(a.assist.Sum()) / (float64(dur) * float64(procs)))
	}
	if dur > 0 {
		g.STWPct = round2(100 * float64(a.stw.Sum()) / float64(dur))
	}
	g.ForcedCycles, g.STWForced, g.ForcedBy = a.forcedMarks, a.stwForced, []LocTime{}
	for loc, d := range a.forcedBy {
		g.ForcedBy = append(g.ForcedBy, LocTime{a.locs.get(loc), d})
	}
	sortTop(&g.ForcedBy, func(x LocTime) int64 { return int64(x.Time) }, func(x LocTime) finding.Location { return x.Location })
	g.STWLongest = a.stalls(&a.stwTop)
	s.GC = g

	for _, st := range a.sites {
		ss := SiteSummary{
			Blocks:  []BlockCount{},
			Creator: a.locs.get(st.key.creator), Function: a.locs.get(st.key.fn).Function, System: st.system,
			Goroutines: st.goroutines, Running: st.running, Latency: st.latency.Percentiles(),
			Preempts: st.preempts, Yields: st.yields, SyscallWaits: st.syscallWaits, NeverBlocked: st.neverBlocked, NeverBlockedRun: st.neverBlockedRun,
			YieldOnly: st.yieldOnly, Starts: st.starts, PMoves: st.migP, MMoves: st.migM,
			StopAt: a.locs.get(topLoc(st.stopLocs)), PreemptAt: a.locs.get(topLoc(st.preemptLocs)),
			Samples: st.samples, SpinCode: st.spinSamples, WorkCode: st.workSamples, HotLine: a.locs.get(topLoc(st.sampleLocs)),
			Callers: map[finding.Location][]finding.Location{},
		}
		for _, id := range []locID{topLoc(st.stopLocs), topLoc(st.preemptLocs), topLoc(st.sampleLocs)} {
			if c := a.locs.callersOf(id); len(c) > 0 {
				ss.Callers[a.locs.get(id)] = c
			}
		}
		if st.running > 0 {
			ss.StopRunPct = round2(100 * float64(st.runEnd[endPreempt]+st.runEnd[endYield]) / float64(st.running))
		}
		var stretches int
		for _, n := range st.nEnds {
			stretches += n
		}
		if stretches > 0 {
			ss.MeanRun = st.running / time.Duration(stretches)
		}
		for _, n := range st.blocks {
			ss.Blocked += n
		}
		for k, n := range st.blockLocs {
			ss.Blocks = append(ss.Blocks, BlockCount{Reason: wakeNames[k.why], Location: a.locs.get(k.loc), Count: *n})
		}
		slices.SortFunc(ss.Blocks, func(x, y BlockCount) int {
			return cmp.Or(cmp.Compare(y.Count, x.Count), strings.Compare(x.Reason, y.Reason), cmpLoc(x.Location, y.Location))
		})
		if len(ss.Blocks) > 5 {
			ss.Blocks = ss.Blocks[:5]
		}
		s.Sites = append(s.Sites, ss)
	}
	sortTop(&s.Sites, func(x SiteSummary) int64 { return int64(x.Running) }, func(x SiteSummary) finding.Location { return x.Creator })

	for loc, sl := range a.sleeps {
		s.Sleeps = append(s.Sleeps, SleepSummary{Location: a.locs.get(loc), Count: sl.n, Repeats: sl.repeats, PerS: round2(float64(sl.n) / secs), Slept: sl.slept.Percentiles()})
	}
	sortTop(&s.Sleeps, func(x SleepSummary) int64 { return int64(x.Count) }, func(x SleepSummary) finding.Location { return x.Location })

	for loc, w := range a.locks {
		s.Locks = append(s.Locks, LockSummary{Location: a.locs.get(loc), Count: w.n, Goroutines: len(w.goroutines), Wait: w.wait.Percentiles(),
			Waiting: round2(float64(w.wait.Sum()) / float64(max(dur, 1)))})
	}
	sortTop(&s.Locks, func(x LockSummary) int64 { return int64(x.Wait.Total) }, func(x LockSummary) finding.Location { return x.Location })
	s.Spinning, s.SpinPct = spinning(s, busy, dur)
	s.Thin = a.thin(dur)
	a.spikeSummary(s)
	a.wakerSummary(s)
	return s
}

// stalls turns the kept longest stalls into the summary's rows.
func (a *analyzer) stalls(t *topN) []Stall {
	out := []Stall{}
	for _, x := range t.list {
		out = append(out, Stall{At: x.At, Duration: x.Dur, What: x.What, Location: a.locs.get(x.Loc)})
	}
	return out
}

// Figures that decide whether the trace's CPU samples measure the
// process's CPU: enough of them, spread over most of the window (a CPU
// profile that ran for part of the trace would understate it).
const (
	samplePeriod    = 10 * time.Millisecond // runtime/pprof's 100 Hz
	samplesMinimum  = 20
	sampleSpanShare = 0.8
)

// processCPU fills in the CPU the process got in the window, when known.
func (a *analyzer) processCPU(ps *ProcSummary, opt Options, dur time.Duration) {
	ps.CPUSamples = a.samples
	switch {
	case a.samples >= samplesMinimum && dur > 0 && float64(a.lastSample.Sub(a.firstSample)) >= sampleSpanShare*float64(dur):
		ps.ProcessCPU = time.Duration(a.samples) * samplePeriod
		ps.ProcessCPUFrom = "cpu samples"
	case opt.ProcessCPU > 0:
		ps.ProcessCPU = opt.ProcessCPU
		ps.ProcessCPUFrom = "given"
	default:
		return
	}
	if dur > 0 {
		ps.ProcessCores = round2(ps.ProcessCPU.Seconds() / dur.Seconds())
		ps.BusyPerCorePct = round2(100 * ps.BusyMean * dur.Seconds() / ps.ProcessCPU.Seconds())
	}
}

// Thresholds of the spin shape (docs/trace.md): a site whose goroutines
// spend at least spinStopPct of their running time in stretches that end
// in preemption or a yield, run at least spinMinCores of a P on average,
// and were stopped at least preemptMinimum times.
const (
	spinStopPct  = 80.0
	spinMinCores = 0.1
	// a site whose CPU samples (20 or more) are this much in select or
	// yield code has the spin shape however its stretches end: a spin
	// that leaves Ps idle is not preempted (issue 20: 8 spinning handlers
	// on 16 Ps gave no trace finding)
	spinCodePct = 50.0
)

// hotPreemptMinimum is how many preemptions place a site's time without
// CPU samples: ten are 100ms of running, each at a point in time.
const hotPreemptMinimum = 10

// stopPlacesTime is the mean running stretch under which the line where
// the stretches stop places the goroutines' time without CPU samples.
const stopPlacesTime = 100 * time.Microsecond

// callersOf returns the callers recorded for each of locs in turn,
// without repeats.
func (st SiteSummary) callersOf(locs ...finding.Location) []finding.Location {
	var out []finding.Location
	for _, l := range locs {
		for _, c := range st.Callers[l] {
			if l.File != "" && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// spinning picks the sites of the spin shape.
func spinning(s *Summary, busy, dur time.Duration) ([]SpinSite, float64) {
	out := []SpinSite{}
	var total time.Duration
	for _, st := range s.Sites {
		if st.System || dur <= 0 || busy <= 0 {
			continue
		}
		cores := st.Running.Seconds() / dur.Seconds()
		// A spin that leaves Ps idle may never be preempted (each wait
		// shorter than a time slice): its CPU samples show it, in the
		// runtime's select or yield code.
		sampled := st.Samples >= samplesMinimum && 100*float64(st.SpinCode) >= spinCodePct*float64(st.Samples)
		if cores < spinMinCores || !sampled && (st.StopRunPct < spinStopPct || st.Preempts+st.Yields < preemptMinimum) {
			continue
		}
		sp := SpinSite{Function: st.Function, Creator: st.Creator, HotLine: st.HotLine, HotFrom: "cpu samples",
			Running: st.Running, BusyPct: round2(100 * float64(st.Running) / float64(busy)), Cores: round2(cores),
			StopRunPct: st.StopRunPct, MeanRun: st.MeanRun, Preempts: st.Preempts, Yields: st.Yields, Blocked: st.Blocked,
			Samples: st.Samples, StopAt: st.StopAt}
		if !isUserFunc(sp.StopAt.Function) {
			sp.StopAt = finding.Location{}
		}
		if st.Samples > 0 {
			sp.SpinCodePct = round2(100 * float64(st.SpinCode) / float64(st.Samples))
			sp.WorkCodePct = round2(100 * float64(st.WorkCode) / float64(st.Samples))
		}
		if sp.HotLine.File == "" || st.Samples < samplesMinimum {
			// Without CPU samples, preemptions stand in for them: a
			// goroutine that runs on is preempted every 10ms wherever it
			// is. Yields are not samples of its time: a consumer that
			// hashes until its queue is empty, then yields, stops at its
			// wait loop although it computes (the lab's ringbuffer: 228
			// yields at the wait, 31 preemptions in the hashing). With
			// too few preemptions to place the time, the stops decide.
			// Stretches as short as stopPlacesTime end where they ran: a
			// goroutine that yields every microsecond is at its loop all
			// the time.
			sp.HotLine, sp.HotFrom = st.StopAt, "stops"
			if st.MeanRun <= stopPlacesTime {
				sp.HotFrom = "preemptions"
			}
			if st.Preempts >= hotPreemptMinimum && st.PreemptAt.File != "" && isUserFunc(st.PreemptAt.Function) {
				sp.HotLine, sp.HotFrom = st.PreemptAt, "preemptions"
			}
		}
		if !isUserFunc(sp.HotLine.Function) {
			sp.HotLine, sp.HotFrom = finding.Location{}, ""
		}
		sp.Callers = st.callersOf(sp.HotLine, sp.StopAt)
		total += st.Running
		out = append(out, sp)
	}
	return out, round2(100 * float64(total) / float64(max(busy, 1)))
}

// Thin evidence: a trace shorter than thinDuration cannot show tails (a
// preemption takes 10ms, a GC cycle often more) and its rates rest on a
// sliver; one with fewer than thinStarts goroutine starts has latency
// percentiles of too few samples.
const (
	thinDuration = 100 * time.Millisecond
	thinStarts   = 100
)

func (a *analyzer) thin(dur time.Duration) string {
	switch {
	case dur < thinDuration:
		return fmt.Sprintf("the trace covers %v (%d goroutine starts): too short to see tails or to rule causes out; record at least 1s under the load in question (runtime/trace, or /debug/pprof/trace?seconds=5)",
			dur.Round(time.Microsecond), a.starts)
	case a.starts < thinStarts:
		return fmt.Sprintf("only %d goroutine starts in %v: latency and migration figures rest on too few starts; record longer, or while the program serves its load",
			a.starts, dur.Round(time.Millisecond))
	}
	return ""
}

// sortTop sorts rows by key, largest first (ties by location), and keeps maxRows.
func sortTop[T any](rows *[]T, key func(T) int64, loc func(T) finding.Location) {
	slices.SortStableFunc(*rows, func(x, y T) int {
		return cmp.Or(cmp.Compare(key(y), key(x)), cmpLoc(loc(x), loc(y)))
	})
	if len(*rows) > maxRows {
		*rows = (*rows)[:maxRows]
	}
}

func cmpLoc(x, y finding.Location) int {
	return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), strings.Compare(x.Function, y.Function))
}

// topLoc is the most frequent location of m (ties: the lowest ID, which is
// the first seen).
func topLoc(m map[locID]int) locID {
	best, bestN := noLoc, 0
	for l, n := range m {
		if n > bestN || (n == bestN && l < best) {
			best, bestN = l, n
		}
	}
	return best
}

func round2(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v*100+0.5)) / 100
	}
	return float64(int64(v*100+0.5)) / 100
}

// ThinEvidence says why the trace is too thin to rule causes out, "" when
// it is not (report.ThinSummary: the renderers put it at the top).
func (s *Summary) ThinEvidence() string {
	if s == nil {
		return ""
	}
	return s.Thin
}

// Hints asks for what a trace does not record and its judgements need:
// the CPUs the process may use (SD303), and its CPU time when the trace
// holds too few CPU samples to tell a host that withheld CPU.
func (s *Summary) Hints() []finding.Note {
	var hs []finding.Note
	if s.Procs.CPUs <= 0 {
		hs = append(hs, finding.HintNote(finding.HintCPUs, "give the CPUs the process may use (quota, cpuset), to judge the Ps against them"))
	}
	if s.Procs.ProcessCPU <= 0 {
		hs = append(hs, finding.HintNote(finding.HintProcessCPU, "give the process's CPU time over the trace, to tell whether the host withheld CPU"))
	}
	return hs
}

// WriteText prints the figures as tables, for the text report, in 80
// columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the figures within width columns (0: one line per
// row however wide): prose is wrapped, and a table too wide has its first
// column (the creation site, the function) stacked above the numbers.
// Every name from the trace (functions, files, wait reasons) is escaped
// (textsafe): a trace is input like any other.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	p := func(format string, args ...any) {
		b.WriteString(textlayout.Wrap("", "  ", fmt.Sprintf(format, args...), width))
	}
	q := textsafe.String
	p("trace: %s, %d events, %d generations, %v", byteSize(s.Trace.Bytes), s.Trace.Events, s.Trace.Generations, s.Trace.Duration.Round(time.Millisecond))
	if s.Truncated != nil {
		p("truncated: %s", q(fmt.Sprint(s.Truncated)))
	}
	cpus := "unknown (not recorded in a trace)"
	if s.Procs.CPUs > 0 {
		cpus = fmt.Sprintf("%g (busy Ps per CPU %.0f%%)", s.Procs.CPUs, s.Procs.PerCPUPct)
	}
	b.WriteString("\n")
	p("Ps: GOMAXPROCS %d, busy %.2f on average (%.0f%%), peak %.2f over %v, GC workers %.1f%%; CPUs %s",
		s.Procs.GOMAXPROCS, s.Procs.BusyMean, s.Procs.UtilPct, s.Procs.BusyPeak, s.Procs.TimelineBin, s.Procs.GCPct, cpus)
	switch {
	case s.Procs.ProcessCPU > 0:
		p("process CPU: %v (%.2f cores, from %s): the Ps were busy %.0f%% of it", s.Procs.ProcessCPU.Round(time.Millisecond), s.Procs.ProcessCores, q(s.Procs.ProcessCPUFrom), s.Procs.BusyPerCorePct)
	case s.Procs.CPUSamples > 0:
		p("process CPU: unknown (%d CPU samples in the trace, too few or not spread over it): cannot tell whether the host withheld CPU", s.Procs.CPUSamples)
	default:
		p("process CPU: unknown (no CPU samples in the trace: no CPU profile ran): cannot tell whether the host withheld CPU")
	}
	p("runnable goroutines: mean %.2f, max %d, more than GOMAXPROCS %.1f%% of the time", s.Runnable.Mean, s.Runnable.Max, s.Runnable.AboveProcsPct)
	p("migrations: %.0f/s across Ps, %.0f/s across threads (%.0f%% of %d starts)", s.Migrations.PMovesPerS, s.Migrations.MMovesPerS, s.Migrations.MMovePct, s.Migrations.Starts)
	p("syscalls: %d, %d returned without their P, %v in total", s.Syscalls.Count, s.Syscalls.Handoffs, s.Syscalls.Time.Round(time.Microsecond))
	p("GC: %d cycles; stop-the-world %d for %v (%.2f%% of the time, max %v); assists %d running %v (%.2f%% of the Ps' time)",
		s.GC.Cycles, s.GC.STW.Count, s.GC.STW.Total.Round(time.Microsecond), s.GC.STWPct, s.GC.STW.Max.Round(time.Microsecond),
		s.GC.Assist.Count, s.GC.Assist.Total.Round(time.Microsecond), s.GC.AssistPct)

	table := func(t *textlayout.Table) {
		b.WriteString("\n")
		t.Write(&b, width)
	}
	right := func(n int) []bool { // every column but the first is a number
		r := make([]bool, n)
		for i := 1; i < n; i++ {
			r[i] = true
		}
		return r
	}
	lat := &textlayout.Table{Header: []string{"scheduling latency (runnable → running)", "count", "p50", "p90", "p99", "max"}, Right: right(6)}
	row := func(name string, pc Percentiles) {
		lat.Add("  "+name, fmt.Sprint(pc.Count), fmt.Sprint(dur(pc.P50)), fmt.Sprint(dur(pc.P90)), fmt.Sprint(dur(pc.P99)), fmt.Sprint(dur(pc.Max)))
	}
	row("all", s.Latency.Overall)
	row("after a wait", s.Latency.Woken)
	for _, r := range s.Latency.ByReason {
		row(q(r.Reason), r.Percentiles)
	}
	table(lat)

	sites := &textlayout.Table{
		Header: []string{"goroutines by creation site", "goroutines", "running", "woken p99", "blocks", "preempts", "yields", "never blocked", "moves (M)"},
		Short:  []string{"goroutines by creation site", "count", "running", "wake p99", "blocks", "preempt", "yields", "never-blk", "M moves"},
		Right:  right(9),
	}
	shown, system, more := 0, 0, false
	for _, st := range s.Sites {
		if st.System {
			system++ // the runtime's own goroutines: in -json only
			continue
		}
		if shown == 10 {
			more = true
			break
		}
		shown++
		where := q(st.Function)
		if st.Creator.File != "" {
			where = fmt.Sprintf("%s at %s:%d", q(st.Function), q(shortFile(st.Creator.File)), st.Creator.Line)
		}
		sites.Add("  "+where, fmt.Sprint(st.Goroutines), fmt.Sprint(st.Running.Round(time.Millisecond)), fmt.Sprint(dur(st.Latency.P99)),
			fmt.Sprint(st.Blocked), fmt.Sprint(st.Preempts), fmt.Sprint(st.Yields), fmt.Sprint(st.NeverBlocked), fmt.Sprint(st.MMoves))
	}
	table(sites)
	if more {
		b.WriteString("  ... more sites in the JSON report\n")
	}
	if system > 0 {
		fmt.Fprintf(&b, "  (%d sites of runtime goroutines: see the JSON report)\n", system)
	}
	if len(s.Spinning) > 0 {
		b.WriteString("\n")
		p("goroutines that run until preempted: %.0f%% of the Ps' busy time", s.SpinPct)
		spin := &textlayout.Table{
			Header: []string{"function", "busy", "Ps", "ended by preemption/yield", "mean stretch", "blocks", "hot line"},
			Short:  []string{"function", "busy", "Ps", "preempted", "stretch", "blocks", "hot line"},
			Right:  []bool{false, true, true, true, true, true, false},
		}
		for _, sp := range first(s.Spinning, 5) {
			hot := "(no user line)"
			if sp.HotLine.File != "" {
				hot = fmt.Sprintf("%s:%d (%s)", q(shortFile(sp.HotLine.File)), sp.HotLine.Line, q(sp.HotFrom))
			}
			spin.Add("  "+q(sp.Function), fmt.Sprintf("%.0f%%", sp.BusyPct), fmt.Sprintf("%.2f", sp.Cores), fmt.Sprintf("%.0f%%", sp.StopRunPct), fmt.Sprint(dur(sp.MeanRun)), fmt.Sprint(sp.Blocked), hot)
		}
		spin.Write(&b, width)
	}
	if len(s.GC.STWLongest) > 0 || len(s.Latency.WokenLongest) > 0 {
		stalls := &textlayout.Table{Header: []string{"longest stalls", "duration", "at", "what"}, Short: []string{"longest stalls", "duration", "at", ""},
			Right: []bool{false, true, true, false}, Stack: 3}
		for _, x := range first(s.GC.STWLongest, 3) {
			stalls.Add("  stop-the-world", fmt.Sprint(dur(x.Duration)), fmt.Sprint(x.At.Round(time.Millisecond)), q(x.What))
		}
		for _, x := range first(s.Latency.WokenLongest, 3) {
			what := q(x.What)
			if x.Location.File != "" {
				what += " at " + locString(x.Location)
			}
			stalls.Add("  wait for a P after a wake-up", fmt.Sprint(dur(x.Duration)), fmt.Sprint(x.At.Round(time.Millisecond)), what)
		}
		table(stalls)
	}
	s.writeSpikes(&b, p, width)
	if len(s.Sleeps) > 0 {
		t := &textlayout.Table{Header: []string{"sleeps by call site", "count", "per s", "repeats", "slept p50"}, Right: right(5)}
		for _, sl := range first(s.Sleeps, 5) {
			t.Add("  "+locString(sl.Location), fmt.Sprint(sl.Count), fmt.Sprintf("%.0f", sl.PerS), fmt.Sprint(sl.Repeats), fmt.Sprint(dur(sl.Slept.P50)))
		}
		table(t)
	}
	if len(s.Locks) > 0 {
		t := &textlayout.Table{Header: []string{"sync waits by call site", "count", "goroutines", "wait total", "waiting (mean)"}, Right: right(5)}
		for _, l := range first(s.Locks, 5) {
			t.Add("  "+locString(l.Location), fmt.Sprint(l.Count), fmt.Sprint(l.Goroutines), fmt.Sprint(l.Wait.Total.Round(time.Microsecond)), fmt.Sprintf("%.2f", l.Waiting))
		}
		table(t)
	}
	if len(s.Syscalls.Sites) > 0 {
		t := &textlayout.Table{Header: []string{"syscalls by call site", "count", "without P", "p50", "p99"}, Right: right(5)}
		for _, sc := range first(s.Syscalls.Sites, 5) {
			t.Add("  "+locString(sc.Location), fmt.Sprint(sc.Count), fmt.Sprint(sc.Handoffs), fmt.Sprint(dur(sc.Duration.P50)), fmt.Sprint(dur(sc.Duration.P99)))
		}
		table(t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func first[T any](s []T, n int) []T { return s[:min(n, len(s))] }

// dur rounds a duration for a table cell.
func dur(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(100 * time.Nanosecond)
	}
	return d
}

// locString is a location for a table cell, its names escaped.
func locString(l finding.Location) string {
	if l.File == "" {
		if l.Function == "" {
			return "(no stack)"
		}
		return textsafe.String(l.Function)
	}
	return fmt.Sprintf("%s:%d (%s)", textsafe.String(shortFile(l.File)), l.Line, textsafe.String(l.Function))
}

// shortFile keeps the last two elements of a path, for tables; findings
// carry the full path.
func shortFile(f string) string {
	i := strings.LastIndexByte(f, '/')
	if i <= 0 {
		return f
	}
	if j := strings.LastIndexByte(f[:i], '/'); j >= 0 {
		return f[j+1:]
	}
	return f
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
