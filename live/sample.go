package live

import (
	"math"
	"runtime/metrics"
	"time"
)

// The runtime/metrics this package reads (Go 1.26 names). A metric the
// running Go does not have (KindBad) reads as zero and is listed in
// State.Missing, so an older runtime degrades instead of failing.
const (
	mGomaxprocs = "/sched/gomaxprocs:threads"
	mGoroutines = "/sched/goroutines:goroutines"
	mRunnable   = "/sched/goroutines/runnable:goroutines"
	mRunning    = "/sched/goroutines/running:goroutines"
	mWaiting    = "/sched/goroutines/waiting:goroutines"
	mNotInGo    = "/sched/goroutines/not-in-go:goroutines"
	mCreated    = "/sched/goroutines-created:goroutines"
	mThreads    = "/sched/threads/total:threads"
	mLatency    = "/sched/latencies:seconds"
	mGCPauses   = "/sched/pauses/total/gc:seconds"
	mGCStopping = "/sched/pauses/stopping/gc:seconds"
	mGCCycles   = "/gc/cycles/total:gc-cycles"
	mGCForced   = "/gc/cycles/forced:gc-cycles"
	mGCCPU      = "/cpu/classes/gc/total:cpu-seconds"
	mTotalCPU   = "/cpu/classes/total:cpu-seconds"
	mIdleCPU    = "/cpu/classes/idle:cpu-seconds"
	mMutexWait  = "/sync/mutex/wait/total:seconds"
	mAllocBytes = "/gc/heap/allocs:bytes"
)

var metricNames = []string{
	mGomaxprocs, mGoroutines, mRunnable, mRunning, mWaiting, mNotInGo, mCreated, mThreads,
	mLatency, mGCPauses, mGCStopping, mGCCycles, mGCForced, mGCCPU, mTotalCPU, mIdleCPU, mMutexWait, mAllocBytes,
}

// sample is one reading of the runtime's metrics. Counters and histograms
// are cumulative since the process started; the window keeps samples and
// every figure over a span is the difference of two of them.
type sample struct {
	at         time.Time
	gomaxprocs int64
	goroutines int64
	runnable   int64
	running    int64
	waiting    int64
	notInGo    int64
	created    uint64
	threads    int64
	gcCycles   uint64
	gcForced   uint64
	allocBytes uint64
	gcCPU      float64 // cpu-seconds; refreshed by the runtime only at GC
	totalCPU   float64
	idleCPU    float64
	mutexWait  float64 // seconds, all waiters
	latency    []uint64
	gcPauses   []uint64
	gcStopping []uint64 // the part of each pause spent stopping the world
}

// reader reads the metrics into samples, reusing its metrics.Sample slice.
type reader struct {
	samples []metrics.Sample
	missing []string
	// Bucket boundaries of the two histograms: fixed for the life of the
	// process, so they are kept once and the samples hold counts only.
	latBounds   []float64
	pauseBounds []float64
}

func newReader() *reader {
	r := &reader{samples: make([]metrics.Sample, len(metricNames))}
	for i, n := range metricNames {
		r.samples[i].Name = n
	}
	return r
}

// read takes a reading. The histograms' counts go into old's slices when
// old is given (the ring slot the reading will overwrite), so a full ring
// allocates nothing.
func (r *reader) read(now time.Time, old *sample) sample {
	metrics.Read(r.samples)
	s := sample{at: now}
	if old != nil {
		s.latency, s.gcPauses, s.gcStopping = old.latency[:0], old.gcPauses[:0], old.gcStopping[:0]
	}
	r.missing = r.missing[:0]
	for _, m := range r.samples {
		v := m.Value
		if v.Kind() == metrics.KindBad {
			r.missing = append(r.missing, m.Name)
			continue
		}
		switch m.Name {
		case mGomaxprocs:
			s.gomaxprocs = int64(v.Uint64())
		case mGoroutines:
			s.goroutines = int64(v.Uint64())
		case mRunnable:
			s.runnable = int64(v.Uint64())
		case mRunning:
			s.running = int64(v.Uint64())
		case mWaiting:
			s.waiting = int64(v.Uint64())
		case mNotInGo:
			s.notInGo = int64(v.Uint64())
		case mCreated:
			s.created = v.Uint64()
		case mThreads:
			s.threads = int64(v.Uint64())
		case mGCCycles:
			s.gcCycles = v.Uint64()
		case mGCForced:
			s.gcForced = v.Uint64()
		case mAllocBytes:
			s.allocBytes = v.Uint64()
		case mGCCPU:
			s.gcCPU = v.Float64()
		case mTotalCPU:
			s.totalCPU = v.Float64()
		case mIdleCPU:
			s.idleCPU = v.Float64()
		case mMutexWait:
			s.mutexWait = v.Float64()
		case mLatency:
			h := v.Float64Histogram()
			if r.latBounds == nil {
				r.latBounds = append([]float64(nil), h.Buckets...)
			}
			// The runtime reuses the histogram's slices on the next Read:
			// copy the counts.
			s.latency = append(s.latency, h.Counts...)
		case mGCPauses:
			h := v.Float64Histogram()
			if r.pauseBounds == nil {
				r.pauseBounds = append([]float64(nil), h.Buckets...)
			}
			s.gcPauses = append(s.gcPauses, h.Counts...)
		case mGCStopping:
			// Same bucket bounds as the total pauses (both time histograms).
			s.gcStopping = append(s.gcStopping, v.Float64Histogram().Counts...)
		}
	}
	return s
}

// hist is a histogram over a span: the difference of two cumulative
// readings, with the runtime's bucket bounds (len(bounds) == len(counts)+1;
// the first bound may be -Inf and the last is +Inf).
type hist struct {
	bounds []float64
	counts []uint64
	n      uint64
}

// delta returns cur − old bucket by bucket. A nil old (no earlier reading)
// means since the process started.
func delta(bounds []float64, cur, old []uint64) hist {
	h := hist{bounds: bounds, counts: make([]uint64, len(cur))}
	for i, c := range cur {
		if i < len(old) && old[i] <= c {
			c -= old[i]
		}
		h.counts[i] = c
		h.n += c
	}
	return h
}

// Quantile is a quantile read from a histogram. The runtime's buckets are a
// quarter of a power of two wide, so the value is the upper bound of the
// bucket holding the rank (never an understatement); when that bucket is the
// open-ended top one, Seconds is its lower bound and AtLeast is set: the
// tail is reported as "at least", never clipped to a made-up bound.
type Quantile struct {
	Seconds float64 `json:"seconds"`
	AtLeast bool    `json:"at_least,omitempty"`
}

func (q Quantile) Duration() time.Duration { return time.Duration(q.Seconds * 1e9) }

func (q Quantile) String() string {
	s := fmtDur(q.Duration())
	if q.AtLeast {
		return "≥" + s
	}
	return s
}

// bucketAt returns the index of the bucket that holds the rank-th value
// (1-based) in ascending order.
func (h hist) bucketAt(rank uint64) int {
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if cum >= rank {
			return i
		}
	}
	return len(h.counts) - 1
}

func (h hist) upper(i int) Quantile {
	hi := h.bounds[i+1]
	if math.IsInf(hi, 1) {
		return Quantile{Seconds: max(h.bounds[i], 0), AtLeast: true}
	}
	return Quantile{Seconds: hi}
}

func (h hist) lower(i int) float64 {
	lo := h.bounds[i]
	if math.IsInf(lo, -1) || lo < 0 {
		return 0
	}
	return lo
}

// quantile returns the q-quantile, or the zero Quantile of an empty
// histogram.
func (h hist) quantile(q float64) Quantile {
	if h.n == 0 {
		return Quantile{}
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	return h.upper(h.bucketAt(rank))
}

// interval returns a 95% confidence interval for the q-quantile of the
// population the histogram samples: the order statistics at ranks
// n·q ± 1.96·√(n·q·(1−q)) (the normal approximation of the binomial count
// of samples below the true quantile), widened to the bounds of the
// buckets that hold them. It states both errors at once: that of
// sampling one transition in eight, and that of the buckets' width.
func (h hist) interval(q float64) (lo float64, hi Quantile) {
	if h.n == 0 {
		return 0, Quantile{}
	}
	n := float64(h.n)
	half := 1.96 * math.Sqrt(n*q*(1-q))
	rlo := max(math.Floor(n*q-half), 1)
	rhi := min(math.Ceil(n*q+half), n)
	return h.lower(h.bucketAt(uint64(rlo))), h.upper(h.bucketAt(uint64(rhi)))
}

// above counts the values in buckets whose lower bound is at least d.
func (h hist) above(d float64) uint64 {
	var c uint64
	for i, n := range h.counts {
		if h.lower(i) >= d {
			c += n
		}
	}
	return c
}

// fmtDur prints a duration with three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return trimFloat(d.Seconds(), "s")
	case d >= time.Millisecond:
		return trimFloat(float64(d)/1e6, "ms")
	case d >= time.Microsecond:
		return trimFloat(float64(d)/1e3, "µs")
	}
	return trimFloat(float64(d), "ns")
}
