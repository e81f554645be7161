package exectrace

import (
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/viz"
)

// This file builds the HTML report's pictures of a trace while it streams:
// a P timeline in a fixed number of buckets (vizbuild.Timeline: spans
// narrower than a bucket add up, the buckets widen as the trace goes on),
// and the scheduling-latency histogram by reason from the analysis's own
// histograms. Nothing per event is kept.

// P states on the timeline, in the order viz.Timeline.States lists them.
const (
	vsRunning = iota // a user goroutine runs on the P
	vsGC             // a GC mark worker, or a goroutine paying a mark assist
	vsSyscall        // the P's goroutine is in a system call (the P is still held)
	vsSched          // the P is held with no goroutine: the scheduler looks for work
	vsIdle           // the P is idle
	nVizStates
)

var vizStateNames = []string{vsRunning: "running", vsGC: "gc", vsSyscall: "syscall", vsSched: "scheduler", vsIdle: "idle"}

const (
	// vizBuckets is how many buckets a P's row has at most: about one per
	// pixel of a report's width.
	vizBuckets = 800
	// vizProcs bounds the Ps drawn; a trace of more (a GOMAXPROCS of
	// hundreds) says how many were left out.
	vizProcs = 256
	// vizFirstBucket is the first bucket width: a 100ms trace fills the
	// row; longer ones double it as they go.
	vizFirstBucket = int64(125 * time.Microsecond)
)

// vizCollector follows the Ps' states for the timeline.
type vizCollector struct {
	tl *vizbuild.Timeline
	// ps is indexed by P id: ids run from 0 to GOMAXPROCS-1. An id past
	// vizMaxID (a corrupt trace) is not followed.
	ps       []vizP
	runnable int
	runSince int64
}

type vizP struct {
	seen  bool
	state int
	since int64
}

// vizMaxID bounds the P ids followed (and so the slice of their states).
const vizMaxID = 4096

func newVizCollector() *vizCollector {
	return &vizCollector{
		tl: vizbuild.NewTimeline(vizStateNames, vizBuckets, vizProcs, vizFirstBucket),
	}
}

// set moves P id to state at t, closing its previous span.
func (v *vizCollector) set(id trace.ProcID, state int, t int64) {
	if id < 0 || id >= vizMaxID {
		return // NoProc, or an id no runtime hands out
	}
	for int(id) >= len(v.ps) {
		v.ps = append(v.ps, vizP{})
	}
	p := &v.ps[id]
	if !p.seen {
		*p = vizP{seen: true, state: state, since: t}
		return
	}
	if p.state == state {
		return
	}
	v.tl.Span(int64(id), p.state, p.since, t)
	p.state, p.since = state, t
}

// transition follows a state transition, after the analyzer has handled it
// (so that the goroutine's site, GC worker or not, is known). Only
// transitions change what the timeline shows: the Ps' states and the
// number of runnable goroutines.
func (v *vizCollector) transition(a *analyzer, ev *trace.Event, st *trace.StateTransition, tt trace.Time) {
	if v == nil {
		return
	}
	t := int64(tt)
	v.tl.Start(int64(a.first))
	if n := a.runnable.cur; n != v.runnable {
		v.tl.Runnable(v.runnable, v.runSince, t)
		v.runnable, v.runSince = n, t
	}
	switch st.Resource.Kind {
	case trace.ResourceProc:
		from, to := st.Proc()
		if from == to {
			return
		}
		if id := st.Resource.Proc(); from == trace.ProcUndetermined && id >= 0 && int(id) < len(v.ps) && v.ps[id].seen {
			return // re-announced: a generation read on its own (stitch.go)
		}
		switch to {
		case trace.ProcRunning:
			v.set(st.Resource.Proc(), vsSched, t)
		case trace.ProcIdle:
			v.set(st.Resource.Proc(), vsIdle, t)
		}
	case trace.ResourceGoroutine:
		from, to := st.Goroutine()
		if from == to {
			return
		}
		p := ev.Proc()
		switch {
		case to == trace.GoRunning:
			state := vsRunning
			if g := a.gs[st.Resource.Goroutine()]; g != nil && (g.inAssist || (g.site >= 0 && a.sites[g.site].gcWorker)) {
				state = vsGC
			}
			v.set(p, state, t)
		case to == trace.GoSyscall:
			v.set(p, vsSyscall, t)
		case from == trace.GoRunning || from == trace.GoSyscall:
			// The goroutine left the P (blocked, yielded, ended): the P
			// is the scheduler's until the next one starts.
			if p >= 0 && int(p) < len(v.ps) && v.ps[p].seen && v.ps[p].state != vsIdle {
				v.set(p, vsSched, t)
			}
		}
	}
}

// build closes the open spans at the end of the trace and returns the
// report's pictures of it.
func (v *vizCollector) build(a *analyzer) *viz.Set {
	set := &viz.Set{Title: "trace", Latency: latencyHistogram(a)}
	if v != nil {
		end := int64(a.last)
		for id, p := range v.ps {
			if p.seen {
				v.tl.Span(int64(id), p.state, p.since, end)
			}
		}
		v.tl.Runnable(v.runnable, v.runSince, end)
		v.tl.End(end)
		set.Timeline = v.tl.Build()
	}
	return set
}

// latencyHistogram folds the analysis's per-reason latency histograms
// (eight buckets per power of two) into one bucket per power of two, from
// the lowest to the highest that holds a start.
func latencyHistogram(a *analyzer) *viz.Histogram {
	lo, hi := histBuckets, -1
	for w := range a.byWhy {
		for b, n := range a.byWhy[w].counts {
			if n > 0 {
				lo, hi = min(lo, b/histSub), max(hi, b/histSub)
			}
		}
	}
	if hi < 0 {
		return nil
	}
	h := &viz.Histogram{}
	for p := lo; p <= hi; p++ {
		h.Bounds = append(h.Bounds, int64(bucketUpper(p*histSub+histSub-1)))
	}
	for w := range a.byWhy {
		if a.byWhy[w].n == 0 {
			continue
		}
		s := viz.Series{Name: wakeNames[w], Counts: make([]int64, hi-lo+1)}
		for b, n := range a.byWhy[w].counts {
			if n > 0 {
				s.Counts[b/histSub-lo] += int64(min(n, 1<<62))
			}
		}
		h.Series = append(h.Series, s)
	}
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}} {
		h.Quants = append(h.Quants, viz.Quantile{Name: q.name, Value: int64(a.latency.Quantile(q.q))})
	}
	return h
}

// Visuals returns the trace's pictures for the HTML report: the P
// timeline and the latency histogram (nil when the analysis made none).
func (s *Summary) Visuals() *viz.Set {
	if s == nil {
		return nil
	}
	return s.Visual
}
