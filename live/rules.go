package live

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// figures computes State's figures from the window.
func figures(st *State, w *ring, o Options, rd *reader) {
	last := w.last()
	if last == nil {
		return
	}
	first := w.at(0)
	st.Time = last.at
	st.Readings = w.len()
	st.Window = last.at.Sub(first.at).Seconds()
	st.GOMAXPROCS = last.gomaxprocs
	st.Goroutines = Goroutines{Total: last.goroutines, Runnable: last.runnable, Running: last.running,
		Waiting: last.waiting, NotInGo: last.notInGo}
	st.Threads = last.threads
	if last.gomaxprocs > 0 {
		st.RunnablePerP = round(float64(last.runnable)/float64(last.gomaxprocs), 2)
	}

	span := o.LatencySpan.Seconds() + o.Interval.Seconds()/2
	if old := w.since(span); old != nil {
		secs := last.at.Sub(old.at).Seconds()
		if secs > 0 {
			st.Goroutines.CreatedPerS = round(float64(last.created-min(old.created, last.created))/secs, 1)
			st.MutexWait = round(max(last.mutexWait-old.mutexWait, 0)/secs, 4)
		}
		st.RunnablePerPMean = round(meanRunnablePerP(w, old), 2)
		h := delta(rd.latBounds, last.latency, old.latency)
		st.Latency = latencyOf(h, secs, o)
	}

	g := GC{}
	g.Cycles = last.gcCycles - min(first.gcCycles, last.gcCycles)
	g.Forced = last.gcForced - min(first.gcForced, last.gcForced)
	if used := (last.totalCPU - first.totalCPU) - (last.idleCPU - first.idleCPU); used > 0 && g.Cycles > 0 {
		g.CPUShare = round(max(last.gcCPU-first.gcCPU, 0)/used, 3)
	}
	ph := delta(rd.pauseBounds, last.gcPauses, first.gcPauses)
	g.PauseCount = ph.n
	g.PauseP99 = ph.quantile(0.99)
	g.PauseMax = ph.quantile(1)
	if len(last.gcStopping) == len(last.gcPauses) {
		g.StoppingP99 = delta(rd.pauseBounds, last.gcStopping, first.gcStopping).quantile(0.99)
	}
	if st.Window > 0 {
		g.AllocBytesPS = round(float64(last.allocBytes-min(first.allocBytes, last.allocBytes))/st.Window, 0)
	}
	st.GC = g
}

func latencyOf(h hist, secs float64, o Options) Latency {
	l := Latency{Span: round(secs, 2), Sampled: h.n}
	if h.n == 0 {
		return l
	}
	l.P50, l.P90, l.P99, l.P999, l.Max = h.quantile(0.5), h.quantile(0.9), h.quantile(0.99), h.quantile(0.999), h.quantile(1)
	l.P99Low, l.P99High = h.interval(0.99)
	l.Judged = h.n >= uint64(o.MinLatencySamples)
	l.Resolved = "buckets a quarter of a power of two wide: quantiles are bucket upper bounds"
	return l
}

// meanRunnablePerP is the mean of runnable/GOMAXPROCS over the readings
// from old to the last one.
func meanRunnablePerP(w *ring, old *sample) float64 {
	var sum float64
	var n int
	for i := w.len() - 1; i >= 0; i-- {
		s := w.at(i)
		if s.gomaxprocs > 0 {
			sum += float64(s.runnable) / float64(s.gomaxprocs)
			n++
		}
		if s == old {
			break
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// growth is the SD701/SD703 test on one gauge over the window: the
// window's readings are cut into four quarters and the lowest value of
// each quarter must rise every quarter, by at least minRise and a quarter
// of the first quarter's lowest in all. Lowest values ignore bursts (a
// load peak that drains is not growth) and four strictly rising troughs
// rule out a step to a new plateau (a pool that grew once and stays).
type growthResult struct {
	troughs [4]int64
	rise    int64
	secs    float64
}

func growth(w *ring, o Options, val func(*sample) int64, minRise int) (growthResult, bool) {
	n := w.len()
	var g growthResult
	if n < 8 {
		return g, false
	}
	g.secs = w.last().at.Sub(w.at(0).at).Seconds()
	// Judge only a window at least half full: growth over a few seconds
	// after start-up is the program starting, not a leak.
	if g.secs < o.Window.Seconds()/2 {
		return g, false
	}
	for q := range 4 {
		lo, hi := q*n/4, (q+1)*n/4
		m := int64(math.MaxInt64)
		for i := lo; i < hi; i++ {
			m = min(m, val(w.at(i)))
		}
		g.troughs[q] = m
	}
	for q := 1; q < 4; q++ {
		if g.troughs[q] <= g.troughs[q-1] {
			return g, false
		}
	}
	g.rise = g.troughs[3] - g.troughs[0]
	need := max(int64(minRise), (g.troughs[0]+3)/4)
	return g, g.rise >= need
}

func (g growthResult) troughList() string {
	s := make([]string, 4)
	for i, t := range g.troughs {
		s[i] = strconv.FormatInt(t, 10)
	}
	return strings.Join(s, " → ")
}

// evaluate returns the online findings SD701–SD704 and the conditions of
// the triggers that hold now (kind → the figures behind it).
func evaluate(st *State, w *ring, o Options) ([]finding.Finding, map[string]string) {
	var fs []finding.Finding
	conds := map[string]string{}
	last := w.last()
	if last == nil {
		return nil, conds
	}

	if g, ok := growth(w, o, func(s *sample) int64 { return s.waiting }, o.GoroutineGrowth); ok {
		rate := float64(g.rise) / g.secs
		fs = append(fs, finding.Finding{
			Rule:     "SD701",
			Severity: finding.Warning,
			What:     fmt.Sprintf("%d more goroutines waiting than %s ago (%.2f/s)", g.rise, fmtDur(secDur(g.secs)), rate),
			Because: fmt.Sprintf("waiting goroutines never drain: "+
				"the lowest count rose in every quarter of the window (%s)", g.troughList()),
			Evidence: []finding.Evidence{
				{Label: "waiting goroutines, lowest in first quarter", Value: float64(g.troughs[0]), Unit: "goroutines"},
				{Label: "waiting goroutines, lowest in last quarter", Value: float64(g.troughs[3]), Unit: "goroutines"},
				{Label: "growth", Value: round(rate, 3), Unit: "goroutines/s"},
				{Label: "window", Value: round(g.secs, 1), Unit: "s"},
				{Label: "goroutines created", Value: st.Goroutines.CreatedPerS, Unit: "/s"},
			},
			Fix: "Take a goroutine dump (curl -so g.txt 'HOST/debug/pprof/goroutine?debug=2') twice a minute apart and run " +
				"`schedoctor goroutines g1.txt g2.txt`: it names the line where the growing group waits and the go statement " +
				"that made it. " + ruleFix("SD701"),
		})
		conds["goroutines"] = fmt.Sprintf("waiting goroutines rose by %d over %s", g.rise, fmtDur(secDur(g.secs)))
	}

	if g, ok := growth(w, o, func(s *sample) int64 { return s.threads }, o.ThreadGrowth); ok {
		fs = append(fs, finding.Finding{
			Rule:     "SD703",
			Severity: finding.Warning,
			What:     fmt.Sprintf("%d more OS threads than %s ago (%d now)", g.rise, fmtDur(secDur(g.secs)), last.threads),
			Because: fmt.Sprintf("threads blocked in syscalls or cgo calls "+
				"keep being added and are not released: the lowest count rose in every quarter of the window (%s)", g.troughList()),
			Evidence: []finding.Evidence{
				{Label: "threads, lowest in first quarter", Value: float64(g.troughs[0]), Unit: "threads"},
				{Label: "threads, lowest in last quarter", Value: float64(g.troughs[3]), Unit: "threads"},
				{Label: "growth", Value: round(float64(g.rise)/g.secs, 3), Unit: "threads/s"},
				{Label: "goroutines not in Go (syscall, cgo)", Value: float64(last.notInGo), Unit: "goroutines"},
				{Label: "window", Value: round(g.secs, 1), Unit: "s"},
			},
			Fix: ruleFix("SD703"),
		})
		conds["threads"] = fmt.Sprintf("threads rose by %d over %s", g.rise, fmtDur(secDur(g.secs)))
	}

	if l := st.Latency; l.Judged && l.P99Low >= o.LatencyP99.Seconds() {
		sev := finding.Warning
		if l.P99Low >= latencyCritical*o.LatencyP99.Seconds() {
			sev = finding.Critical
		}
		fs = append(fs, finding.Finding{
			Rule:     "SD702",
			Severity: sev,
			What: fmt.Sprintf("p99 scheduling latency %s (95%% interval %s–%s, %d sampled transitions, one in eight) over the last %s",
				l.P99, fmtDur(secDur(l.P99Low)), l.P99High, l.Sampled, fmtDur(secDur(l.Span))),
			Because: latencyCause(st, o),
			Evidence: []finding.Evidence{
				{Label: "p99 scheduling latency", Value: round(l.P99.Seconds*1e3, 3), Unit: "ms"},
				{Label: "p99, 95% interval low", Value: round(l.P99Low*1e3, 3), Unit: "ms"},
				{Label: "p99, 95% interval high", Value: round(l.P99High.Seconds*1e3, 3), Unit: "ms"},
				{Label: "threshold", Value: round(o.LatencyP99.Seconds()*1e3, 3), Unit: "ms"},
				{Label: "sampled transitions", Value: float64(l.Sampled), Unit: "transitions"},
				{Label: "runnable goroutines per P, mean", Value: st.RunnablePerPMean, Unit: "goroutines/P"},
				{Label: "GOMAXPROCS", Value: float64(st.GOMAXPROCS), Unit: "Ps"},
			},
			Fix: ruleFix("SD702"),
		})
		conds["latency"] = fmt.Sprintf("p99 scheduling latency %s (interval low %s) over the last %s",
			l.P99, fmtDur(secDur(l.P99Low)), fmtDur(secDur(l.Span)))
	}
	if last.gomaxprocs > 0 && float64(last.runnable) > o.RunnablePerP*float64(last.gomaxprocs) {
		conds["runnable"] = fmt.Sprintf("%d runnable goroutines on %d Ps (%.1f per P, trigger above %g)",
			last.runnable, last.gomaxprocs, float64(last.runnable)/float64(last.gomaxprocs), o.RunnablePerP)
	}

	if f, ok := gcFinding(st, o); ok {
		fs = append(fs, f)
	}
	return fs, conds
}

// latencyCritical is how many times Options.LatencyP99 the low end of the
// p99's confidence interval must be for SD702 to be critical.
const latencyCritical = 10

// latencyCause says why goroutines waited, from what the metrics show.
func latencyCause(st *State, o Options) string {
	switch {
	case st.RunnablePerPMean >= 1:
		return fmt.Sprintf("goroutines queued for the Ps: %.1f runnable per P on average (GOMAXPROCS %d), more work than Ps "+
			"(a flight-recorder trace, with `schedoctor trace`, says whose)", st.RunnablePerPMean, st.GOMAXPROCS)
	case st.GC.PauseCount > 0 && st.GC.PauseP99.Seconds >= o.LatencyP99.Seconds()/2:
		return fmt.Sprintf("GC stop-the-world pauses hold every goroutine: p99 pause %s over %d pauses", st.GC.PauseP99, st.GC.PauseCount)
	}
	return fmt.Sprintf("waits came in bursts: only %.2f runnable per P on average (GOMAXPROCS %d), so either short bursts "+
		"outnumber the Ps or the host did not run the Ps' threads (CPU quota, throttling: `schedoctor procs`)",
		st.RunnablePerPMean, st.GOMAXPROCS)
}

func gcFinding(st *State, o Options) (finding.Finding, bool) {
	g := st.GC
	// /cpu/classes is refreshed at GC only: two cycles at least make a span.
	cpuHigh := g.Cycles >= 2 && g.CPUShare >= o.GCCPUShare
	pauseHigh := g.PauseCount >= 2 && (g.PauseP99.AtLeast || g.PauseP99.Seconds >= o.GCPauseP99.Seconds())
	if !cpuHigh && !pauseHigh {
		return finding.Finding{}, false
	}
	var what string
	switch {
	case cpuHigh && pauseHigh:
		what = fmt.Sprintf("GC took %.0f%% of the CPU the process used and its p99 stop-the-world pause is %s", g.CPUShare*100, g.PauseP99)
	case cpuHigh:
		what = fmt.Sprintf("GC took %.0f%% of the CPU the process used", g.CPUShare*100)
	default:
		what = fmt.Sprintf("p99 GC stop-the-world pause %s", g.PauseP99)
	}
	var why string
	switch {
	case !cpuHigh && g.StoppingP99.Seconds >= g.PauseP99.Seconds/2:
		// Long pauses that are mostly stopping: goroutines slow to reach a
		// preemption point, or threads the host did not run.
		why = fmt.Sprintf("stopping the world took most of it (p99 %s): goroutines slow to reach a preemption point "+
			"(long loops in assembly or cgo calls) or threads the host did not run (CPU quota, throttling: `schedoctor procs`)",
			g.StoppingP99)
	case !cpuHigh:
		why = fmt.Sprintf("the pauses' own work was long once the world stopped (stopping p99 only %s), which a host "+
			"that withholds CPU from the process also causes (CPU quota, throttling: `schedoctor procs`)", g.StoppingP99)
	case g.Forced*2 >= g.Cycles && g.Forced > 0:
		why = fmt.Sprintf("%d of the %d cycles were forced (runtime.GC or debug.FreeOSMemory calls)", g.Forced, g.Cycles)
	default:
		why = fmt.Sprintf("the program allocates %s/s, which ran %d GC cycles in %s", byteSize(g.AllocBytesPS), g.Cycles, fmtDur(secDur(st.Window)))
	}
	return finding.Finding{
		Rule:     "SD704",
		Severity: finding.Warning,
		What:     what,
		Because:  why,
		Evidence: []finding.Evidence{
			{Label: "GC share of used CPU", Value: round(g.CPUShare*100, 1), Unit: "%"},
			{Label: "GC cycles", Value: float64(g.Cycles), Unit: "cycles"},
			{Label: "forced GC cycles", Value: float64(g.Forced), Unit: "cycles"},
			{Label: "p99 GC pause", Value: round(g.PauseP99.Seconds*1e3, 3), Unit: "ms"},
			{Label: "p99 time to stop the world for GC", Value: round(g.StoppingP99.Seconds*1e3, 3), Unit: "ms"},
			{Label: "GC pauses", Value: float64(g.PauseCount), Unit: "pauses"},
			{Label: "allocation rate", Value: g.AllocBytesPS, Unit: "bytes/s"},
			{Label: "window", Value: round(st.Window, 1), Unit: "s"},
		},
		Fix: ruleFix("SD704"),
	}, true
}

func ruleFix(id string) string {
	if r, ok := finding.Lookup(id); ok {
		return r.Fix
	}
	return ""
}

func secDur(s float64) time.Duration { return time.Duration(s * 1e9) }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func trimFloat(v float64, unit string) string {
	var s string
	switch {
	case v >= 100:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + unit
}

func byteSize(b float64) string {
	switch {
	case b >= 1<<30:
		return trimFloat(b/(1<<30), " GiB")
	case b >= 1<<20:
		return trimFloat(b/(1<<20), " MiB")
	case b >= 1<<10:
		return trimFloat(b/(1<<10), " KiB")
	}
	return trimFloat(b, " B")
}
