package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// Histogram records durations in log-linear buckets, as HdrHistogram does:
// exact below 128ns, then 64 buckets per power of two, so any quantile is
// within 1/64 (1.6%) of the true value, in constant memory whatever the
// request count. The zero value is empty and ready. It is not safe for
// concurrent use.
type Histogram struct {
	counts [numBuckets]int64
	n      int64
	max    time.Duration
}

const (
	subBits    = 6
	subCount   = 1 << subBits        // buckets per power of two
	exact      = 2 * subCount        // values below this have their own bucket
	numBuckets = exact + 57*subCount // enough for any non-negative int64
)

func bucketOf(v int64) int {
	if v < 0 {
		v = 0
	}
	if v < exact {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - (subBits + 1) // >= 1
	top := v >> shift                              // in [subCount, 2*subCount)
	return exact + (shift-1)*subCount + int(top-subCount)
}

// bucketRange returns the smallest and largest value of bucket i.
func bucketRange(i int) (lo, hi int64) {
	if i < exact {
		return int64(i), int64(i)
	}
	shift := (i-exact)/subCount + 1
	top := int64((i-exact)%subCount + subCount)
	return top << shift, (top+1)<<shift - 1
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	h.counts[bucketOf(int64(d))]++
	h.n++
	h.max = max(h.max, d)
}

// Count returns the number of recorded durations.
func (h *Histogram) Count() int64 { return h.n }

// Max returns the largest recorded duration.
func (h *Histogram) Max() time.Duration { return h.max }

// Quantile returns the q-quantile (0.99 for p99): the middle of the bucket
// holding the ceil(q*n)-th smallest value, capped at the maximum. It
// returns 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(i)
			return min(time.Duration(lo+(hi-lo)/2), h.max)
		}
	}
	return h.max
}
