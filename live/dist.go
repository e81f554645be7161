package live

import "math"

// Distribution counts the values a derived figure took at each reading, in
// fixed buckets: how often the rolling p99 was above 10ms, how often more
// than 4 goroutines queued per P. Its memory is fixed. Counts[i] holds the
// values ≤ Bounds[i] and above the bound before; the last count, past the
// last bound, is the open tail (Prometheus's +Inf bucket), so nothing is
// clipped.
type Distribution struct {
	Bounds []float64 `json:"bounds"`
	Counts []uint64  `json:"counts"` // len(Bounds)+1
	Count  uint64    `json:"count"`
	Sum    float64   `json:"sum"`
}

func newDistribution(bounds []float64) Distribution {
	return Distribution{Bounds: bounds, Counts: make([]uint64, len(bounds)+1)}
}

func (d *Distribution) observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	i := len(d.Bounds)
	for j, b := range d.Bounds {
		if v <= b {
			i = j
			break
		}
	}
	d.Counts[i]++
	d.Count++
	d.Sum += v
}

func (d Distribution) clone() Distribution {
	d.Counts = append([]uint64(nil), d.Counts...)
	return d
}

// expBounds returns n bounds from lo, each twice the one before.
func expBounds(lo float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = lo * math.Pow(2, float64(i))
	}
	return b
}

// p99Bounds: 64µs to about 4.2s; runnableBounds: 1/8 to 512 per P.
var (
	p99Bounds      = expBounds(64e-6, 17)
	runnableBounds = expBounds(0.125, 13)
)
