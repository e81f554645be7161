package live

import "math"

// The exported scheduling-latency histogram (State.LatencyHistogram) keeps
// every runtime bucket boundary that is about twice the one before, from
// latencyHistLow to the first at or past latencyHistHigh. The runtime's
// /sched/latencies buckets are a quarter of a power of two of nanoseconds
// wide, so this picks 2^13 ns (8.192µs), 2^14 ns, … 2^30 ns (1.07s): 18
// bounds, each a runtime boundary, so every runtime bucket falls whole into
// one exported bucket and nothing is split or guessed. client_golang's Go
// collector re-buckets the same histogram to powers of ten, where a p99 of
// 1ms and one of 9ms share the bucket (1ms, 10ms]; here they are four
// buckets apart (1.05ms and 8.39–16.8ms).
const (
	latencyHistLow  = 8e-6
	latencyHistHigh = 1.0
)

// latencyHistBounds picks the exported bounds from the runtime's bucket
// boundaries (ascending; the first may be -Inf and the last is +Inf).
func latencyHistBounds(runtime []float64) []float64 {
	var out []float64
	for _, b := range runtime {
		if math.IsInf(b, 0) || b < latencyHistLow {
			continue
		}
		// The bounds are nanoseconds over 1e9: allow a rounding error when
		// testing for "twice the previous".
		if n := len(out); n > 0 && b < 2*out[n-1]*(1-1e-9) {
			continue
		}
		out = append(out, b)
		if b >= latencyHistHigh {
			break
		}
	}
	return out
}

// latencyHist accumulates the differences of successive readings of
// /sched/latencies into the exported buckets: counts since the monitor
// started, a cumulative histogram whose every increment is a delta the
// monitor measured. Only the sampling goroutine calls add; State copies it
// under the monitor's lock.
type latencyHist struct {
	runtimeBounds []float64
	// to maps a runtime bucket to the exported bucket that holds it whole
	// (len(d.Bounds) for the open tail).
	to []int
	d  Distribution
}

func newLatencyHist(runtimeBounds []float64) *latencyHist {
	h := &latencyHist{runtimeBounds: runtimeBounds, d: newDistribution(latencyHistBounds(runtimeBounds))}
	h.to = make([]int, max(len(runtimeBounds)-1, 0))
	for i := range h.to {
		// Runtime bucket i is [runtimeBounds[i], runtimeBounds[i+1]): it
		// belongs to the first exported bound at or above its upper end.
		// Exported bounds are runtime boundaries, so there is no straddle.
		hi := runtimeBounds[i+1]
		j := len(h.d.Bounds)
		for k, b := range h.d.Bounds {
			if hi <= b*(1+1e-12) {
				j = k
				break
			}
		}
		h.to[i] = j
	}
	return h
}

// add adds cur − old bucket by bucket (old nil: nothing is added, the
// first reading is the baseline). A bucket that went down (it cannot with
// one runtime) adds nothing. It allocates nothing.
func (h *latencyHist) add(cur, old []uint64) {
	if old == nil || len(cur) != len(h.to) || len(old) != len(cur) {
		return
	}
	for i, c := range cur {
		if c <= old[i] {
			continue
		}
		n := c - old[i]
		h.d.Counts[h.to[i]] += n
		h.d.Count += n
		h.d.Sum += float64(n) * h.mid(i)
	}
}

// mid is the value a sample of runtime bucket i counts for in the sum: the
// bucket's middle, or its lower bound when the bucket is open above. The
// runtime keeps no sum, so Distribution.Sum is this estimate: off by at
// most half a bucket per sample, an eighth of the value from a few
// microseconds up, where the buckets are a quarter of a power of two.
func (h *latencyHist) mid(i int) float64 {
	lo, hi := max(h.runtimeBounds[i], 0), h.runtimeBounds[i+1]
	if math.IsInf(hi, 1) {
		return lo
	}
	return (lo + hi) / 2
}
