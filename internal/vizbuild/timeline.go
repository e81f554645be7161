package vizbuild

import (
	"math"
	"slices"

	"github.com/schedoctor/schedoctor/viz"
)

// Timeline accumulates per-P state spans and a runnable-goroutine
// count into a fixed number of buckets while a trace streams: when a span
// reaches past the last bucket, neighbouring buckets are merged pairwise
// and the bucket width doubles, so any trace length fits in maxBuckets and
// spans narrower than a bucket add up instead of being drawn one by one.
type Timeline struct {
	states     []string
	maxBuckets int
	maxProcs   int
	origin     int64
	started    bool
	width      int64
	procs      map[int64]*procAcc
	dense      []*procAcc // procs by id for small ids: Span runs on every state change
	order      []int64
	omitted    map[int64]bool
	runnable   []float64 // count × ns per bucket
	end        int64
}

// denseIDs is the P ids kept in a slice rather than only the map.
const denseIDs = 1024

type procAcc struct {
	byState [][]float64 // state → ns per bucket
}

// NewTimeline starts a timeline of the given states, at most
// maxBuckets buckets (at least 2) and maxProcs Ps (more are counted as
// omitted), with a first bucket width of initialNs (doubled as needed).
func NewTimeline(states []string, maxBuckets, maxProcs int, initialNs int64) *Timeline {
	return &Timeline{states: states, maxBuckets: max(maxBuckets, 2), maxProcs: maxProcs,
		width: max(initialNs, 1), procs: map[int64]*procAcc{}, omitted: map[int64]bool{}}
}

// Start sets the time origin; spans before it are clipped. Without a call,
// the first span's start is the origin.
func (b *Timeline) Start(t int64) {
	if !b.started {
		b.started, b.origin = true, t
	}
}

// Span adds the time [from, to) that P id spent in state (an index into
// the states). Empty, reversed or out-of-range spans are ignored.
func (b *Timeline) Span(id int64, state int, from, to int64) {
	if state < 0 || state >= len(b.states) {
		return
	}
	b.Start(from)
	from = max(from, b.origin)
	if to <= from {
		return
	}
	var p *procAcc
	if id >= 0 && id < int64(len(b.dense)) {
		p = b.dense[id]
	} else {
		p = b.procs[id]
	}
	if p == nil {
		if len(b.procs) >= b.maxProcs {
			b.omitted[id] = true
			return
		}
		p = &procAcc{byState: make([][]float64, len(b.states))}
		b.procs[id] = p
		b.order = append(b.order, id)
		if id >= 0 && id < denseIDs {
			for int64(len(b.dense)) <= id {
				b.dense = append(b.dense, nil)
			}
			b.dense[id] = p
		}
	}
	b.fit(to)
	p.byState[state] = b.spread(p.byState[state], from, to, 1)
}

// Runnable adds n runnable goroutines over [from, to).
func (b *Timeline) Runnable(n int, from, to int64) {
	if n <= 0 {
		return
	}
	b.Start(from)
	from = max(from, b.origin)
	if to <= from {
		return
	}
	b.fit(to)
	b.runnable = b.spread(b.runnable, from, to, float64(n))
}

// End records the end of the trace: the timeline reaches at least t.
func (b *Timeline) End(t int64) {
	if b.started && t > b.end {
		b.fit(t)
	}
}

func (b *Timeline) index(t int64) int {
	d := (t - b.origin) / b.width
	if d > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(d)
}

// fit widens the buckets until time to falls in the last of them.
func (b *Timeline) fit(to int64) {
	b.end = max(b.end, to)
	for b.index(to-1) >= b.maxBuckets {
		b.coarsen()
	}
}

// spread adds k × the overlap of [from, to) with every bucket of s it
// covers, growing s as needed (fit has made room). Called for every state
// change of every P, so it allocates nothing once s has grown.
func (b *Timeline) spread(s []float64, from, to int64, k float64) []float64 {
	for from < to {
		i := b.index(from)
		end := min(b.origin+int64(i+1)*b.width, to)
		for len(s) <= i {
			s = append(s, 0)
		}
		s[i] += k * float64(end-from)
		from = end
	}
	return s
}

// coarsen merges buckets pairwise and doubles their width.
func (b *Timeline) coarsen() {
	half := func(s []float64) []float64 {
		n := (len(s) + 1) / 2
		for i := 0; i < n; i++ {
			v := s[2*i]
			if 2*i+1 < len(s) {
				v += s[2*i+1]
			}
			s[i] = v
		}
		return s[:n]
	}
	for _, p := range b.procs {
		for i, s := range p.byState {
			p.byState[i] = half(s)
		}
	}
	b.runnable = half(b.runnable)
	b.width *= 2
}

// Build returns the timeline; nil when no span was added.
func (b *Timeline) Build() *viz.Timeline {
	if !b.started || b.end <= b.origin {
		return nil
	}
	// Many Ps share the cells of 64 full rows: a GOMAXPROCS of 256 gets a
	// quarter of the buckets, so that the report stays a few MB.
	for len(b.procs) > 64 && len(b.procs)*(b.index(b.end-1)+1) > 64*b.maxBuckets {
		b.coarsen()
	}
	n := b.index(b.end-1) + 1
	slices.Sort(b.order)
	tl := &viz.Timeline{BucketNs: b.width, Buckets: n, States: b.states, OmittedProcs: len(b.omitted)}
	for _, id := range b.order {
		p := b.procs[id]
		row := viz.ProcRow{ID: id, States: make([][]int16, len(b.states))}
		for si, s := range p.byState {
			if len(s) == 0 {
				continue
			}
			out := make([]int16, n)
			any := false
			for i := 0; i < n && i < len(s); i++ {
				v := int16(math.Round(1000 * s[i] / float64(b.width)))
				out[i] = min(max(v, 0), 1000)
				any = any || out[i] > 0
			}
			if any {
				row.States[si] = out
			}
		}
		tl.Procs = append(tl.Procs, row)
	}
	tl.Runnable = make([]float64, n)
	for i := 0; i < n && i < len(b.runnable); i++ {
		tl.Runnable[i] = math.Round(100*b.runnable[i]/float64(b.width)) / 100
	}
	return tl
}
