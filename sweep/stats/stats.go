// Package stats holds the statistics of a GOMAXPROCS sweep: the median of a
// handful of runs with a distribution-free confidence interval, the knee
// (the smallest GOMAXPROCS within a tolerance of the best result) and the
// test for negative scaling.
//
// Run times are skewed and a shared machine adds outliers, so everything is
// built on order statistics: no mean, no normality assumption.
package stats

import (
	"fmt"
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the two middle values when
// len(xs) is even), or NaN for no values. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Interval is a confidence interval of a median.
type Interval struct {
	Lo, Hi float64
	// Coverage is the interval's exact coverage probability. An
	// order-statistic interval cannot hit the nominal level exactly; with few
	// runs it falls below it (3 runs: [min, max] covers the median with
	// probability 0.75 only), so the real figure is kept.
	Coverage float64
}

// MedianCI returns the order-statistic confidence interval of the median of
// xs at the given nominal level (0.95): [x(k), x(n-k+1)] of the sorted
// sample, with the largest k such that the interval still covers the true
// median with probability at least level. The coverage comes from the
// Binomial(n, 1/2) distribution of the number of runs below the median and
// holds for any continuous distribution. When n is too small for the level,
// the interval is [min, max] and Coverage says how much it really covers.
func MedianCI(xs []float64, level float64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{Lo: math.NaN(), Hi: math.NaN()}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n == 1 {
		return Interval{Lo: s[0], Hi: s[0]}
	}
	// cdf[j] = P(B <= j) for B ~ Binomial(n, 1/2). The interval
	// [x(k), x(n-k+1)] (1-based) covers the median with probability
	// 1 - 2*P(B <= k-1).
	k := 1
	for j := 1; j <= n/2; j++ {
		if 1-2*binomCDFHalf(n, j) >= level { // interval from k = j+1
			k = j + 1
		} else {
			break
		}
	}
	return Interval{Lo: s[k-1], Hi: s[n-k], Coverage: 1 - 2*binomCDFHalf(n, k-1)}
}

// binomCDFHalf returns P(B <= j) for B ~ Binomial(n, 1/2).
func binomCDFHalf(n, j int) float64 {
	if j < 0 {
		return 0
	}
	sum := 0.0
	for i := 0; i <= j && i <= n; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		la, _ := math.Lgamma(float64(i + 1))
		lb, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lc - la - lb - float64(n)*math.Ln2)
	}
	return min(sum, 1)
}

// Point is one GOMAXPROCS value's summary of the metric.
type Point struct {
	Procs  int
	Median float64
	CI     Interval
}

// Better says which way a metric improves.
type Better int

const (
	Lower  Better = iota // times, latencies, ns/op
	Higher               // throughput: ops/s, MB/s
)

func (b Better) String() string {
	if b == Higher {
		return "higher"
	}
	return "lower"
}

func (b Better) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

func (b *Better) UnmarshalText(t []byte) error {
	switch string(t) {
	case "lower":
		*b = Lower
	case "higher":
		*b = Higher
	default:
		return fmt.Errorf("better: %q is neither higher nor lower", t)
	}
	return nil
}

// better reports whether a is strictly better than b.
func (b Better) better(a, x float64) bool {
	if b == Higher {
		return a > x
	}
	return a < x
}

// Best returns the index of the point with the best median, or -1 when
// there is none. Ties go to the smaller GOMAXPROCS (the earlier point when
// points are sorted by Procs).
func Best(points []Point, b Better) int {
	best := -1
	for i, p := range points {
		if math.IsNaN(p.Median) {
			continue
		}
		if best < 0 || b.better(p.Median, points[best].Median) {
			best = i
		}
	}
	return best
}

// Within reports whether v is within tolerance tol (0.05 for 5%) of best,
// on the good side or no worse than tol on the bad side.
func Within(v, best, tol float64, b Better) bool {
	if b == Higher {
		return v >= best*(1-tol)
	}
	return v <= best*(1+tol)
}

// Knee returns the index of the point with the smallest GOMAXPROCS whose
// median is within tol of the best median, or -1 when there are no points.
// points must be sorted by Procs.
func Knee(points []Point, b Better, tol float64) int {
	best := Best(points, b)
	if best < 0 {
		return -1
	}
	for i, p := range points {
		if !math.IsNaN(p.Median) && Within(p.Median, points[best].Median, tol, b) {
			return i
		}
	}
	return best
}

// Drop is a pair of GOMAXPROCS values where the higher one is worse.
type Drop struct {
	Low, High int     // indexes into the points: Procs[Low] < Procs[High]
	Change    float64 // relative change of the median from Low to High in the bad direction (0.2 = 20% worse)
}

// NegativeScaling returns every pair (lower P, higher P) where the higher P
// is worse than the lower one beyond both confidence intervals (the higher
// P's whole interval lies on the bad side of the lower P's whole interval)
// and by more than tol, the worst first. Requiring disjoint intervals keeps
// noise out; requiring more than the tolerance keeps out differences too
// small to act on, such as the few percent CPU-bound work loses to
// preemption above the CPU count. points must be sorted by Procs.
func NegativeScaling(points []Point, b Better, tol float64) []Drop {
	var out []Drop
	for i, lo := range points {
		for j := i + 1; j < len(points); j++ {
			hi := points[j]
			if math.IsNaN(lo.Median) || math.IsNaN(hi.Median) || lo.Median == 0 {
				continue
			}
			var disjoint bool
			var change float64
			if b == Higher {
				disjoint = hi.CI.Hi < lo.CI.Lo
				change = (lo.Median - hi.Median) / lo.Median
			} else {
				disjoint = hi.CI.Lo > lo.CI.Hi
				change = (hi.Median - lo.Median) / lo.Median
			}
			if disjoint && change > tol {
				out = append(out, Drop{Low: i, High: j, Change: change})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Drop) int {
		switch {
		case a.Change > b.Change:
			return -1
		case a.Change < b.Change:
			return 1
		}
		return 0
	})
	return out
}
