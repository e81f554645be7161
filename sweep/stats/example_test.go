package stats_test

import (
	"fmt"

	"github.com/schedoctor/schedoctor/sweep/stats"
)

func ExampleKnee() {
	// Wall seconds of a CPU-bound job on 2 CPUs at GOMAXPROCS 1, 2, 4.
	runs := map[int][]float64{
		1: {1.21, 1.19, 1.25, 1.20, 1.22},
		2: {0.62, 0.61, 0.64, 0.60, 0.63},
		4: {0.61, 0.60, 0.66, 0.62, 0.64},
	}
	var points []stats.Point
	for _, p := range []int{1, 2, 4} {
		points = append(points, stats.Point{Procs: p, Median: stats.Median(runs[p]), CI: stats.MedianCI(runs[p], 0.95)})
	}
	k := stats.Knee(points, stats.Lower, 0.05)
	fmt.Printf("knee GOMAXPROCS=%d, median %.2fs [%.2f, %.2f] at %.1f%% coverage\n",
		points[k].Procs, points[k].Median, points[k].CI.Lo, points[k].CI.Hi, 100*points[k].CI.Coverage)
	// Output: knee GOMAXPROCS=2, median 0.62s [0.60, 0.64] at 93.8% coverage
}
