package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{7}, 7},
	} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
	in := []float64{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("Median sorted its input")
	}
}

func TestMedianCI(t *testing.T) {
	xs := []float64{10, 2, 8, 4, 6, 1, 9, 3, 7, 5} // 1..10
	ci := MedianCI(xs, 0.95)
	// n=10: P(B<=1) = 11/1024, so [x(2), x(9)] covers with 1-22/1024.
	if ci.Lo != 2 || ci.Hi != 9 {
		t.Errorf("n=10: CI = [%v, %v], want [2, 9]", ci.Lo, ci.Hi)
	}
	if want := 1 - 22.0/1024; math.Abs(ci.Coverage-want) > 1e-9 {
		t.Errorf("n=10: coverage %v, want %v", ci.Coverage, want)
	}
	// n=5 cannot reach 95%: [min, max] with coverage 1-2/32.
	ci = MedianCI([]float64{5, 1, 3, 2, 4}, 0.95)
	if ci.Lo != 1 || ci.Hi != 5 || math.Abs(ci.Coverage-0.9375) > 1e-9 {
		t.Errorf("n=5: %+v, want [1, 5] at 0.9375", ci)
	}
	// A lower level narrows it.
	ci = MedianCI(xs, 0.80)
	if ci.Lo != 3 || ci.Hi != 8 {
		t.Errorf("n=10 at 80%%: [%v, %v], want [3, 8]", ci.Lo, ci.Hi)
	}
	if ci := MedianCI([]float64{4}, 0.95); ci.Lo != 4 || ci.Hi != 4 || ci.Coverage != 0 {
		t.Errorf("n=1: %+v", ci)
	}
}

func pts(b Better, medians ...float64) []Point {
	var out []Point
	for i, m := range medians {
		out = append(out, Point{Procs: 1 << i, Median: m, CI: Interval{Lo: m * 0.98, Hi: m * 1.02}})
	}
	return out
}

func TestKnee(t *testing.T) {
	// CPU-bound on 2 CPUs, wall seconds at P=1,2,4,8: the knee is P=2 even
	// though P=4 is a hair faster.
	p := pts(Lower, 2.0, 1.02, 1.0, 1.04)
	if k := Knee(p, Lower, 0.05); p[k].Procs != 2 {
		t.Errorf("knee = P%d, want P2", p[k].Procs)
	}
	// Same within a 1% tolerance: P=4 is the knee.
	if k := Knee(p, Lower, 0.01); p[k].Procs != 4 {
		t.Errorf("knee at 1%% = P%d, want P4", p[k].Procs)
	}
	// Throughput: higher is better.
	p = pts(Higher, 100, 196, 200, 150)
	if k := Knee(p, Higher, 0.05); p[k].Procs != 2 {
		t.Errorf("throughput knee = P%d, want P2", p[k].Procs)
	}
	// Negative close: a flat curve has its knee at P=1.
	p = pts(Higher, 100, 101, 99, 100)
	if k := Knee(p, Higher, 0.05); p[k].Procs != 1 {
		t.Errorf("flat knee = P%d, want P1", p[k].Procs)
	}
	if Knee(nil, Lower, 0.05) != -1 {
		t.Error("Knee(nil) != -1")
	}
}

func TestNegativeScaling(t *testing.T) {
	// Lock-bound throughput: P=4 and P=8 fall well below P=1.
	p := pts(Higher, 100, 90, 60, 50)
	d := NegativeScaling(p, Higher, 0.05)
	if len(d) == 0 || p[d[0].Low].Procs != 1 || p[d[0].High].Procs != 8 || math.Abs(d[0].Change-0.5) > 1e-9 {
		t.Fatalf("drops = %+v, want P1→P8 50%% first", d)
	}
	// Negatives that look close: overlapping intervals, or a drop within
	// the tolerance, are not negative scaling.
	p = pts(Higher, 100, 96.5)
	if d := NegativeScaling(p, Higher, 0.05); len(d) != 0 {
		t.Errorf("3.5%% drop with disjoint CIs reported: %+v", d)
	}
	p = []Point{
		{Procs: 1, Median: 100, CI: Interval{Lo: 70, Hi: 130}},
		{Procs: 2, Median: 80, CI: Interval{Lo: 75, Hi: 85}},
	}
	if d := NegativeScaling(p, Higher, 0.05); len(d) != 0 {
		t.Errorf("overlapping CIs reported: %+v", d)
	}
	// Lower is better: times that grow with P.
	p = pts(Lower, 1.0, 1.0, 1.5)
	if d := NegativeScaling(p, Lower, 0.05); len(d) != 2 || p[d[0].High].Procs != 4 {
		t.Errorf("lower-better drops = %+v", d)
	}
	// Scaling up is never negative.
	if d := NegativeScaling(pts(Lower, 2, 1, 0.5), Lower, 0.05); len(d) != 0 {
		t.Errorf("speedup reported as negative: %+v", d)
	}
}
