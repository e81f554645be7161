package exectrace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/exp/trace"
)

func TestBuckets(t *testing.T) {
	prev := time.Duration(-1)
	for b := range histBuckets {
		up := bucketUpper(b)
		if up <= prev {
			t.Fatalf("bucket %d: upper %d not above %d", b, up, prev)
		}
		if got := bucketOf(up); got != b {
			t.Fatalf("bucketOf(upper(%d)=%d) = %d", b, up, got)
		}
		if up == math.MaxInt64 {
			break // the largest durations all fall in the last bucket
		}
		if bucketOf(up+1) != b+1 {
			t.Fatalf("bucketOf(%d) = %d, want %d", up+1, bucketOf(up+1), b+1)
		}
		prev = up
	}
}

func TestQuantileError(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	var all []time.Duration
	for range 100000 {
		d := time.Duration(r.ExpFloat64() * float64(50*time.Microsecond))
		h.Add(d)
		all = append(all, d)
	}
	slices.Sort(all)
	for _, q := range []float64{.5, .9, .99, .999} {
		exact := all[int(q*float64(len(all)))-1]
		got := h.Quantile(q)
		if got < exact || float64(got) > float64(exact)*1.13+1 {
			t.Errorf("q%.3f = %v, exact %v: want within +12.5%%", q, got, exact)
		}
	}
	if h.Quantile(1) != all[len(all)-1] || h.Max() != all[len(all)-1] {
		t.Errorf("max = %v/%v, want %v", h.Quantile(1), h.Max(), all[len(all)-1])
	}
	var o Histogram
	o.Merge(&h)
	if o.Count() != h.Count() || o.Sum() != h.Sum() || o.Quantile(.99) != h.Quantile(.99) {
		t.Error("merge lost counts")
	}
	if n := h.CountAbove(bucketUpper(bucketOf(h.Max()))); n != 0 {
		t.Errorf("CountAbove(max) = %d", n)
	}
}

func TestLevel(t *testing.T) {
	l := newLevel(true)
	ms := func(n int) int64 { return int64(time.Duration(n) * time.Millisecond) }
	l.add(0, 2)                  // 2 from 0 to 10ms
	l.add(traceTime(ms(10)), -1) // 1 from 10 to 30ms
	l.add(traceTime(ms(30)), 0)
	if m := l.mean(); m < 1.33 || m > 1.34 {
		t.Errorf("mean = %v, want 1.333", m)
	}
	if l.max != 2 {
		t.Errorf("max = %d", l.max)
	}
	if got := l.shareAbove(1); got < .333 || got > .334 {
		t.Errorf("shareAbove(1) = %v", got)
	}
	if len(l.bins) != 3 || l.bins[0] != 2*float64(ms(10)) || l.bins[1] != float64(ms(10)) {
		t.Errorf("bins = %v", l.bins)
	}
	// A long span coarsens the bins instead of growing without bound.
	l.add(traceTime(ms(100000)), 0)
	if len(l.bins) > maxBins || l.binW <= 10*time.Millisecond {
		t.Errorf("%d bins of %v", len(l.bins), l.binW)
	}
}

func traceTime(ns int64) trace.Time { return trace.Time(ns) }
