package live

import (
	"math"
	"runtime/metrics"
	"slices"
	"testing"
)

// runtimeLatencyBounds are this runtime's /sched/latencies bucket bounds:
// the synthetic histograms below use the real layout.
func runtimeLatencyBounds(t *testing.T) []float64 {
	t.Helper()
	s := []metrics.Sample{{Name: mLatency}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		t.Skipf("%s not in this runtime", mLatency)
	}
	return slices.Clone(s[0].Value.Float64Histogram().Buckets)
}

// bucketOf is the runtime bucket that holds v seconds.
func bucketOf(bounds []float64, v float64) int {
	for i := range len(bounds) - 1 {
		if v >= bounds[i] && v < bounds[i+1] {
			return i
		}
	}
	return -1
}

// quantile is Prometheus's histogram_quantile over cumulative buckets
// (linear interpolation inside the bucket; the lowest bucket starts at 0).
func quantile(q float64, d Distribution) float64 {
	rank := q * float64(d.Count)
	var cum uint64
	for i, b := range d.Bounds {
		prev := cum
		cum += d.Counts[i]
		if float64(cum) >= rank {
			lo := 0.0
			if i > 0 {
				lo = d.Bounds[i-1]
			}
			return lo + (b-lo)*(rank-float64(prev))/float64(d.Counts[i])
		}
	}
	return math.Inf(1)
}

func TestLatencyHistBounds(t *testing.T) {
	rb := runtimeLatencyBounds(t)
	b := latencyHistBounds(rb)
	if len(b) < 15 || len(b) > 20 {
		t.Fatalf("%d bounds %v, want about 18 (×2 from ~10µs to 1s)", len(b), b)
	}
	if b[0] < 8e-6 || b[0] > 16e-6 {
		t.Errorf("first bound %v, want 8µs–16µs", b[0])
	}
	if last := b[len(b)-1]; last < 1 || last > 2.2 {
		t.Errorf("last bound %v, want the first at or past 1s", last)
	}
	for i, v := range b {
		if !slices.Contains(rb, v) {
			t.Errorf("bound %v is not one of the runtime's: a runtime bucket would be split", v)
		}
		if i > 0 {
			if r := v / b[i-1]; r < 1.99 || r > 2.51 {
				t.Errorf("bound %d: %v is %.3f× the one before, want about 2×", i, v, r)
			}
		}
	}
	// A layout with no finite bound, or none above the low end, gives no
	// bounds rather than a panic.
	if got := latencyHistBounds([]float64{math.Inf(-1), 0, 1e-6, math.Inf(1)}); len(got) != 0 {
		t.Errorf("bounds below 8µs only: got %v", got)
	}
}

// TestLatencyHistResolves1msFrom9ms feeds two synthetic runtime histograms,
// one whose latencies are near 1ms and one near 9ms, as deltas of
// cumulative readings. They land in different exported buckets and their
// p99s, as Prometheus's histogram_quantile reads them, are apart; with
// client_golang's powers of ten both would be in (1ms, 10ms].
func TestLatencyHistResolves1msFrom9ms(t *testing.T) {
	rb := runtimeLatencyBounds(t)
	feed := func(seconds float64) Distribution {
		h := newLatencyHist(rb)
		base := make([]uint64, len(rb)-1)
		for i := range base {
			base[i] = 7 // what ran before the monitor started: not counted
		}
		cur := slices.Clone(base)
		cur[bucketOf(rb, 20e-6)] += 990 // the bulk, fast
		cur[bucketOf(rb, seconds)] += 10
		h.add(base, nil) // the first reading is the baseline
		h.add(cur, base)
		return h.d
	}
	one, nine := feed(1e-3), feed(9e-3)
	if one.Count != 1000 || nine.Count != 1000 {
		t.Fatalf("counts %d and %d, want the 1000 of the delta", one.Count, nine.Count)
	}
	tail := func(d Distribution) int {
		for i := len(d.Counts) - 1; i >= 0; i-- {
			if d.Counts[i] > 0 {
				return i
			}
		}
		return -1
	}
	i1, i9 := tail(one), tail(nine)
	if i1 == i9 {
		t.Fatalf("1ms and 9ms share bucket %d (le %v)", i1, one.Bounds[i1])
	}
	if one.Bounds[i1] < 1e-3 || one.Bounds[i1] > 1.1e-3 {
		t.Errorf("1ms in the bucket le=%v, want le≈1.05ms", one.Bounds[i1])
	}
	if nine.Bounds[i9] < 9e-3 || nine.Bounds[i9] > 17e-3 {
		t.Errorf("9ms in the bucket le=%v, want le≈16.8ms", nine.Bounds[i9])
	}
	p1, p9 := quantile(0.995, one), quantile(0.995, nine)
	if p1 > 1.1e-3 || p9 < 8e-3 || p9 > 17e-3 {
		t.Errorf("p99.5 estimates %v and %v, want ≤1.1ms and 8–17ms", p1, p9)
	}
	// The sum is estimated from the runtime buckets' middles: within an
	// eighth of the true one (990 × 20µs + 10 × the tail).
	for _, c := range []struct {
		d    Distribution
		tail float64
	}{{one, 1e-3}, {nine, 9e-3}} {
		want := 990*20e-6 + 10*c.tail
		if math.Abs(c.d.Sum-want) > want/8 {
			t.Errorf("sum %v, want %v ± an eighth", c.d.Sum, want)
		}
	}
}

func TestLatencyHistDeltas(t *testing.T) {
	rb := runtimeLatencyBounds(t)
	h := newLatencyHist(rb)
	n := len(rb) - 1
	r0, r1, r2 := make([]uint64, n), make([]uint64, n), make([]uint64, n)
	i := bucketOf(rb, 3e-3)
	r0[i], r1[i], r2[i] = 5, 8, 8
	h.add(r1, r0)
	h.add(r2, r1) // nothing new
	h.add(r0, r2) // a bucket that went down adds nothing
	h.add(r1[:3], r0)
	if h.d.Count != 3 {
		t.Fatalf("count %d, want 3 (8−5)", h.d.Count)
	}
	var sum uint64
	for _, c := range h.d.Counts {
		sum += c
	}
	if sum != h.d.Count {
		t.Errorf("buckets hold %d, count %d", sum, h.d.Count)
	}
	// The open top runtime bucket goes to the exported +Inf bucket.
	top := make([]uint64, n)
	top[n-1] = 2
	h.add(top, make([]uint64, n))
	if got := h.d.Counts[len(h.d.Bounds)]; got != 2 {
		t.Errorf("+Inf bucket %d, want 2", got)
	}
}
