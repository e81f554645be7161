// Package viz is the data of the HTML report's pictures: a flame graph, CPU
// by cause, a latency histogram, a P timeline, sweep curves.
//
// Its types are plain data, with JSON tags, that a user of the module can
// name and read: profile.Summary.Visuals, exectrace.Summary.Visuals and
// sweep.Summary.Visuals return a *Set, profile.Summary.Flame is a *Flame,
// and htmlreport.Collect gathers the Sets of a report's summary. Each
// source builds its Set from what it measured (profile/viz.go,
// exectrace/viz.go, sweep/viz.go); the HTML renderer draws any Provider's
// Set without knowing the source, so a program that implements Provider
// on its own summary gets its pictures drawn too.
//
// Every picture the sources build is bounded whatever the input's size: a
// flame graph keeps the nodes above a fraction of the CPU, a timeline a
// fixed number of buckets per P, so that a report stays a few MB for any
// trace or profile. The builders that keep them bounded are internal
// (internal/vizbuild); this package holds only the result. Labels come
// from input: Clean makes every label of a Set safe to draw. Palette and
// Slot give each name the sources draw (a cause, a wait reason, a P
// state) one colour in every picture of every report.
//
// The package imports only the standard library and internal/textsafe.
package viz

import "github.com/schedoctor/schedoctor/internal/textsafe"

// Provider is implemented by a source's summary that has pictures. A nil
// Set means none.
type Provider interface {
	Visuals() *Set
}

// Visuals makes a Set its own Provider, so that a summary can hold one
// as a field (a demo's per-program pictures) and the renderer finds it.
func (s *Set) Visuals() *Set { return s }

// Set is the pictures of one source. Any part may be nil or empty.
type Set struct {
	// Title names the source ("profile", "trace", "sweep") as a heading.
	Title string `json:"title"`
	// Causes is CPU by cause in cores, largest first.
	Causes []CauseCPU `json:"causes,omitempty"`
	// Flame is the classified profile's flame graph.
	Flame *Flame `json:"flame,omitempty"`
	// Latency is the scheduling-latency histogram by reason.
	Latency *Histogram `json:"latency,omitempty"`
	// Timeline is the Ps' states and the runnable goroutines over time.
	Timeline *Timeline `json:"timeline,omitempty"`
	// Curves are measurements against a swept parameter (GOMAXPROCS).
	Curves []Curve `json:"curves,omitempty"`
}

// CauseCPU is one cause's CPU.
type CauseCPU struct {
	Cause string  `json:"cause"`
	Cores float64 `json:"cores"`
	Share float64 `json:"share"` // % of the profile's CPU
}

// Flame is a flame graph: a tree of frames from the root (the outermost
// caller) down, each node's Value the CPU of the samples through it.
// Names are interned in Names and causes in Causes to keep the JSON small.
type Flame struct {
	Names  []string `json:"names"`
	Causes []string `json:"causes"` // cause index → name; the colours follow this order
	// Unit of Value: "ns" of CPU.
	Unit string `json:"unit"`
	// Total is the CPU of all samples (the root's value).
	Total int64 `json:"total"`
	// Cores converts a value to cores: value / Total × Cores.
	Cores float64 `json:"cores"`
	// MinShare is the pruning threshold: nodes under this fraction of
	// Total were dropped (their CPU stays in their parent's).
	MinShare float64 `json:"min_share"`
	// Nodes is the number of nodes kept, Pruned the number dropped.
	Nodes  int        `json:"nodes"`
	Pruned int        `json:"pruned"`
	Root   *FlameNode `json:"root"`
}

// FlameNode is one frame of the flame graph.
type FlameNode struct {
	Name  int   `json:"n"` // index into Flame.Names
	Value int64 `json:"v"`
	// Cause is the index (into Flame.Causes) of the cause with most of
	// the node's CPU; CauseValues the CPU per cause as [index, value]
	// pairs when the node has more than one.
	Cause       int          `json:"c"`
	CauseValues [][2]int64   `json:"cv,omitempty"`
	Children    []*FlameNode `json:"k,omitempty"`
}

// Histogram counts durations in buckets, one series per reason.
type Histogram struct {
	// Bounds are the buckets' upper bounds in nanoseconds, increasing;
	// bucket i holds durations in (Bounds[i-1], Bounds[i]].
	Bounds []int64    `json:"bounds_ns"`
	Series []Series   `json:"series"`
	Quants []Quantile `json:"quantiles,omitempty"`
}

// Series is one reason's counts, one per bucket.
type Series struct {
	Name   string  `json:"name"`
	Counts []int64 `json:"counts"`
}

// Quantile marks a percentile on the histogram.
type Quantile struct {
	Name  string `json:"name"` // "p50", "p99"
	Value int64  `json:"ns"`
}

// Timeline is the Ps' states over time in fixed buckets: each bucket holds
// the share of its time each P spent in each state, so that spans narrower
// than a pixel add up instead of vanishing or multiplying.
type Timeline struct {
	Start    int64     `json:"start_ns"`  // of the first bucket, from the trace's start
	BucketNs int64     `json:"bucket_ns"` // width of one bucket
	Buckets  int       `json:"buckets"`
	States   []string  `json:"states"` // state index → name ("running", "idle", "gc", "syscall", ...)
	Procs    []ProcRow `json:"procs"`
	// OmittedProcs is how many Ps were not drawn (beyond the bound).
	OmittedProcs int `json:"omitted_procs,omitempty"`
	// Runnable is the mean number of runnable goroutines per bucket.
	Runnable []float64 `json:"runnable"`
}

// ProcRow is one P's share of each bucket per state, in per mille (0..1000)
// so that the JSON stays small; States[i] is absent (nil) when the P was
// never in state i.
type ProcRow struct {
	ID     int64     `json:"id"`
	States [][]int16 `json:"states"`
}

// Curve is a measurement against a swept parameter, with intervals.
type Curve struct {
	Title  string  `json:"title"`
	XLabel string  `json:"x_label"`
	YLabel string  `json:"y_label"`
	Points []Point `json:"points"`
	// Mark is the x value to mark (the knee), 0 for none; MarkLabel says
	// what it is.
	Mark      float64 `json:"mark,omitempty"`
	MarkLabel string  `json:"mark_label,omitempty"`
}

// Point is one x value's measurement: Y with its interval [Lo, Hi] (equal
// to Y when there is none).
type Point struct {
	X  float64 `json:"x"`
	Y  float64 `json:"y"`
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Clean returns a copy of s whose every label (title, cause and state
// names, frame names, series, quantile and curve labels) is safe to show:
// control characters, bidi overrides and invalid UTF-8 escaped, and cut at
// textsafe.MaxField (textsafe.String). The labels come from input — a
// frame's function name, a benchmark's metric — and the HTML report's
// script draws them as text, where a raw right-to-left override would
// reorder the label on screen. Values are shared with s, not copied; a nil
// slice stays nil.
func Clean(s *Set) *Set {
	if s == nil {
		return nil
	}
	q := textsafe.String
	c := *s
	c.Title = q(s.Title)
	c.Causes = mapSlice(s.Causes, func(x CauseCPU) CauseCPU { x.Cause = q(x.Cause); return x })
	if f := s.Flame; f != nil {
		cf := *f
		cf.Names = mapSlice(f.Names, q)
		cf.Causes = mapSlice(f.Causes, q)
		c.Flame = &cf
	}
	if h := s.Latency; h != nil {
		ch := *h
		ch.Series = mapSlice(h.Series, func(x Series) Series { x.Name = q(x.Name); return x })
		ch.Quants = mapSlice(h.Quants, func(x Quantile) Quantile { x.Name = q(x.Name); return x })
		c.Latency = &ch
	}
	if t := s.Timeline; t != nil {
		ct := *t
		ct.States = mapSlice(t.States, q)
		c.Timeline = &ct
	}
	c.Curves = mapSlice(s.Curves, func(x Curve) Curve {
		x.Title, x.XLabel, x.YLabel, x.MarkLabel = q(x.Title), q(x.XLabel), q(x.YLabel), q(x.MarkLabel)
		return x
	})
	return &c
}

// mapSlice applies f to each element of xs, in a new slice; nil stays nil.
func mapSlice[T any](xs []T, f func(T) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
