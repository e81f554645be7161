package exectrace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedoctor/schedoctor/finding"
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
	Duration Percentiles      `json:"duration"`
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
	// NeverBlocked counts goroutines that were stopped (preempted or
	// yielded) but never blocked, and NeverBlockedRun their running time.
	NeverBlocked    int              `json:"never_blocked"`
	NeverBlockedRun time.Duration    `json:"never_blocked_running_ns"`
	YieldOnly       int              `json:"yield_only"`
	Starts          int              `json:"starts"`
	PMoves          int              `json:"p_moves"`
	MMoves          int              `json:"m_moves"`
	StopAt          finding.Location `json:"stop_at"` // where preemptions and yields hit most
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

	procs := a.gomaxprocs
	if procs == 0 {
		procs = len(a.ps)
	}
	var busy time.Duration
	for _, p := range a.ps {
		busy += p.busy
	}
	ps := ProcSummary{GOMAXPROCS: procs, CPUs: opt.CPUs, BusyMean: a.runningPs.mean(), BusyMax: a.runningPs.max, Steals: a.steals, Timeline: []float64{}}
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
		s.Syscalls.Sites = append(s.Syscalls.Sites, SyscallSite{Location: a.locs.get(loc), Count: ss.n, Handoffs: ss.handoffs, Duration: ss.dur.Percentiles()})
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
	s.GC = g

	for _, st := range a.sites {
		ss := SiteSummary{
			Blocks:  []BlockCount{},
			Creator: a.locs.get(st.key.creator), Function: a.locs.get(st.key.fn).Function, System: st.system,
			Goroutines: st.goroutines, Running: st.running, Latency: st.latency.Percentiles(),
			Preempts: st.preempts, Yields: st.yields, NeverBlocked: st.neverBlocked, NeverBlockedRun: st.neverBlockedRun,
			YieldOnly: st.yieldOnly, Starts: st.starts, PMoves: st.migP, MMoves: st.migM,
			StopAt: a.locs.get(topLoc(st.stopLocs)),
		}
		for _, n := range st.blocks {
			ss.Blocked += n
		}
		for k, n := range st.blockLocs {
			ss.Blocks = append(ss.Blocks, BlockCount{Reason: wakeNames[k.why], Location: a.locs.get(k.loc), Count: n})
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
	return s
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

// WriteText prints the figures as tables, for the text report.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	p("trace: %s, %d events, %d generations, %v\n", byteSize(s.Trace.Bytes), s.Trace.Events, s.Trace.Generations, s.Trace.Duration.Round(time.Millisecond))
	if s.Truncated != nil {
		p("truncated: %s\n", s.Truncated)
	}
	cpus := "unknown (set -cpus)"
	if s.Procs.CPUs > 0 {
		cpus = fmt.Sprintf("%g (busy Ps per CPU %.0f%%)", s.Procs.CPUs, s.Procs.PerCPUPct)
	}
	p("\nPs: GOMAXPROCS %d, busy %.2f on average (%.0f%%), peak %.2f over %v, GC workers %.1f%%; CPUs %s\n",
		s.Procs.GOMAXPROCS, s.Procs.BusyMean, s.Procs.UtilPct, s.Procs.BusyPeak, s.Procs.TimelineBin, s.Procs.GCPct, cpus)
	p("runnable goroutines: mean %.2f, max %d, more than GOMAXPROCS %.1f%% of the time\n", s.Runnable.Mean, s.Runnable.Max, s.Runnable.AboveProcsPct)
	p("migrations: %.0f/s across Ps, %.0f/s across threads (%.0f%% of %d starts)\n", s.Migrations.PMovesPerS, s.Migrations.MMovesPerS, s.Migrations.MMovePct, s.Migrations.Starts)
	p("syscalls: %d, %d returned without their P, %v in total\n", s.Syscalls.Count, s.Syscalls.Handoffs, s.Syscalls.Time.Round(time.Microsecond))
	p("GC: %d cycles; stop-the-world %d for %v (%.2f%% of the time, max %v); assists %d running %v (%.2f%% of the Ps' time)\n",
		s.GC.Cycles, s.GC.STW.Count, s.GC.STW.Total.Round(time.Microsecond), s.GC.STWPct, s.GC.STW.Max.Round(time.Microsecond),
		s.GC.Assist.Count, s.GC.Assist.Total.Round(time.Microsecond), s.GC.AssistPct)

	p("\nscheduling latency (runnable → running)\tcount\tp50\tp90\tp99\tmax\n")
	row := func(name string, q Percentiles) {
		p("  %s\t%d\t%v\t%v\t%v\t%v\n", name, q.Count, dur(q.P50), dur(q.P90), dur(q.P99), dur(q.Max))
	}
	row("all", s.Latency.Overall)
	row("after a wait", s.Latency.Woken)
	for _, r := range s.Latency.ByReason {
		row(r.Reason, r.Percentiles)
	}

	p("\ngoroutines by creation site\tgoroutines\trunning\twoken p99\tblocks\tpreempts\tyields\tnever blocked\tmoves (M)\n")
	shown, system := 0, 0
	for _, st := range s.Sites {
		if st.System {
			system++ // the runtime's own goroutines: in -json only
			continue
		}
		if shown == 10 {
			p("  ... more sites in -json\n")
			break
		}
		shown++
		where := st.Function
		if st.Creator.File != "" {
			where = fmt.Sprintf("%s at %s:%d", st.Function, shortFile(st.Creator.File), st.Creator.Line)
		}
		p("  %s\t%d\t%v\t%v\t%d\t%d\t%d\t%d\t%d\n", where, st.Goroutines, st.Running.Round(time.Millisecond), dur(st.Latency.P99), st.Blocked, st.Preempts, st.Yields, st.NeverBlocked, st.MMoves)
	}
	if system > 0 {
		p("  (%d sites of runtime goroutines: see -json)\n", system)
	}
	if len(s.Sleeps) > 0 {
		p("\nsleeps by call site\tcount\tper s\trepeats\tslept p50\n")
		for _, sl := range first(s.Sleeps, 5) {
			p("  %s\t%d\t%.0f\t%d\t%v\n", locString(sl.Location), sl.Count, sl.PerS, sl.Repeats, dur(sl.Slept.P50))
		}
	}
	if len(s.Locks) > 0 {
		p("\nsync waits by call site\tcount\tgoroutines\twait total\twaiting (mean)\n")
		for _, l := range first(s.Locks, 5) {
			p("  %s\t%d\t%d\t%v\t%.2f\n", locString(l.Location), l.Count, l.Goroutines, l.Wait.Total.Round(time.Microsecond), l.Waiting)
		}
	}
	if len(s.Syscalls.Sites) > 0 {
		p("\nsyscalls by call site\tcount\twithout P\tp50\tp99\n")
		for _, sc := range first(s.Syscalls.Sites, 5) {
			p("  %s\t%d\t%d\t%v\t%v\n", locString(sc.Location), sc.Count, sc.Handoffs, dur(sc.Duration.P50), dur(sc.Duration.P99))
		}
	}
	return tw.Flush()
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

func locString(l finding.Location) string {
	if l.File == "" {
		if l.Function == "" {
			return "(no stack)"
		}
		return l.Function
	}
	return fmt.Sprintf("%s:%d (%s)", shortFile(l.File), l.Line, l.Function)
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
