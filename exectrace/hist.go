package exectrace

import (
	"math"
	"math/bits"
	"time"
)

// Histogram counts durations in log-linear buckets: each power of two of
// nanoseconds is cut into histSub equal parts, so a bucket's width is at
// most 1/histSub of its value (12.5%) whatever the scale, in a fixed 2 KB.
// Percentiles are the upper bound of the bucket they fall in.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

const (
	histSubBits = 3
	histSub     = 1 << histSubBits
	histBuckets = 64 * histSub
)

func bucketOf(d time.Duration) int {
	if d < histSub {
		if d < 0 {
			return 0
		}
		return int(d)
	}
	v := uint64(d)
	exp := bits.Len64(v) - 1 // v in [2^exp, 2^(exp+1))
	sub := int(v>>(exp-histSubBits)) & (histSub - 1)
	return (exp-histSubBits+1)*histSub + sub
}

// bucketUpper is the largest duration that falls in bucket b.
func bucketUpper(b int) time.Duration {
	if b < histSub {
		return time.Duration(b)
	}
	exp := b/histSub + histSubBits - 1
	sub := b % histSub
	lo := uint64(1)<<exp + uint64(sub)<<(exp-histSubBits)
	w := uint64(1) << (exp - histSubBits)
	if lo+w-1 > math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(lo + w - 1)
}

// Add records one duration.
func (h *Histogram) Add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(d)]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// Count is the number of durations recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Sum is the total of the durations recorded.
func (h *Histogram) Sum() time.Duration { return h.sum }

// Max is the largest duration recorded.
func (h *Histogram) Max() time.Duration { return h.max }

// Quantile returns the upper bound of the bucket holding the q-quantile
// (0 < q ≤ 1), capped at the maximum seen; 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(bucketUpper(b), h.max)
		}
	}
	return h.max
}

// CountAbove is the number of durations recorded above d, counting whole
// buckets whose upper bound exceeds d (so it may overcount by one bucket).
func (h *Histogram) CountAbove(d time.Duration) uint64 {
	var n uint64
	for b := len(h.counts) - 1; b >= 0 && bucketUpper(b) > d; b-- {
		n += h.counts[b]
	}
	return n
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for b, c := range o.counts {
		h.counts[b] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Bucket is one non-empty bucket of a histogram, for JSON.
type Bucket struct {
	LE    time.Duration `json:"le_ns"` // upper bound, inclusive
	Count uint64        `json:"count"`
}

// Buckets returns the non-empty buckets in ascending order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for b, c := range h.counts {
		if c > 0 {
			out = append(out, Bucket{LE: bucketUpper(b), Count: c})
		}
	}
	return out
}

// Percentiles are the usual latency cut points of a histogram.
type Percentiles struct {
	Count uint64        `json:"count"`
	Mean  time.Duration `json:"mean_ns"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	P99   time.Duration `json:"p99_ns"`
	P999  time.Duration `json:"p999_ns"`
	Max   time.Duration `json:"max_ns"`
	Total time.Duration `json:"total_ns"`
}

// Percentiles summarises h.
func (h *Histogram) Percentiles() Percentiles {
	p := Percentiles{Count: h.n, Max: h.max, Total: h.sum}
	if h.n > 0 {
		p.Mean = h.sum / time.Duration(h.n)
		p.P50, p.P90, p.P99, p.P999 = h.Quantile(.5), h.Quantile(.9), h.Quantile(.99), h.Quantile(.999)
	}
	return p
}
