package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/schedoctor/schedoctor/sweep/loadgen"
	"github.com/schedoctor/schedoctor/sweep/proc"
	"github.com/schedoctor/schedoctor/sweep/stats"
)

// Summary is a sweep's figures: the settings, every run's raw numbers and
// the per-GOMAXPROCS statistics. It is the JSON report's "summary" as is
// (an HTML report can draw Points and Runs) and prints as a table with a
// bar chart (WriteText).
type Summary struct {
	Command   []string      `json:"command"`
	Procs     []int         `json:"gomaxprocs"`
	RunsPerP  int           `json:"runsPerValue"`
	Seed      uint64        `json:"seed"`
	Order     [][]int       `json:"order"` // the GOMAXPROCS order of each round
	CPUs      int           `json:"cpus"`
	Tolerance float64       `json:"tolerance"`
	Load      *LoadSettings `json:"load,omitempty"`

	// Metric is what the knee is found on: a -metric name, "p99" under
	// load, "BenchmarkX unit" from go test -bench, or "wall".
	Metric string `json:"metric"`
	// Unit is the metric's unit: "s" for times and latencies, the
	// benchmark's unit, or the -metric name.
	Unit   string       `json:"unit"`
	Better stats.Better `json:"better"`
	// Confidence is the coverage of the medians' intervals (the nominal
	// 95% or less when there are too few runs to reach it).
	Confidence float64 `json:"confidence"`

	// CPUWait is how much of its wall time the command at the smallest
	// swept GOMAXPROCS spent waiting for a CPU, per P (run-queue wait /
	// wall / GOMAXPROCS, median). Alone on a machine with spare CPUs it is
	// near 0; above noisyCPUWait other processes were competing for the
	// CPUs and the results are noisy, and biased towards more threads
	// (the kernel shares CPUs per thread, not per process). Every value's
	// own figure is Point.CPUWait; Disturbed lists the values judged busy.
	CPUWait float64 `json:"cpuWait"`
	// Disturbed lists the GOMAXPROCS values whose runs shared the machine
	// with other load (Point.Disturbed), with the figure that says so.
	Disturbed []Disturbance `json:"disturbed"`

	Points []Point `json:"points"`
	Knee   int     `json:"knee"` // GOMAXPROCS at the knee; 0 when no value succeeded
	Best   int     `json:"best"` // GOMAXPROCS with the best median
	Drops  []Drop  `json:"negativeScaling"`

	Runs     []RunResult `json:"runs"`
	Failures []RunError  `json:"failures"`

	// Warnings are what the checks around the runs found and the numbers
	// may suffer from: processes of an earlier or another sweep still
	// running (with the CPU they used), descendants a run's command left
	// behind and the sweep killed, no guard process.
	Warnings []string `json:"warnings,omitempty"`
}

// LoadSettings records load mode's settings in the summary.
type LoadSettings struct {
	URL      string  `json:"url"`
	Rate     float64 `json:"rate"`
	Duration float64 `json:"durationSeconds"`
}

// RunResult is one run's raw numbers.
type RunResult struct {
	Seq   int `json:"seq"`   // 1-based position in the sweep
	Round int `json:"round"` // 1..RunsPerP
	Procs int `json:"gomaxprocs"`

	WallSeconds         float64 `json:"wallSeconds"`
	UserSeconds         float64 `json:"userSeconds"`
	SystemSeconds       float64 `json:"systemSeconds"`
	VoluntarySwitches   int64   `json:"voluntarySwitches"`
	InvoluntarySwitches int64   `json:"involuntarySwitches"`
	RunQueueWaitSeconds float64 `json:"runQueueWaitSeconds"`
	Threads             int     `json:"threads"`
	MaxRSSBytes         int64   `json:"maxRSSBytes"`
	// OtherCPUs is the CPU other processes used during the run, in CPUs on
	// average: the machine's busy time from /proc/stat less the child's
	// and schedoctor's own (the load generator's). OtherMeasured is false
	// where /proc/stat could not be read.
	OtherCPUs     float64 `json:"otherCPUs"`
	OtherMeasured bool    `json:"otherCPUsMeasured"`
	ExitCode      int     `json:"exitCode"`
	Signal        string  `json:"signal,omitempty"`

	// Metrics holds every value read: -metric names, "BenchmarkX unit",
	// under load "p50", "p90", "p99", "p99.9" (seconds) and "throughput"
	// (responses/s), and always "wall".
	Metrics map[string]float64 `json:"metrics"`
	Load    *loadgen.Result    `json:"load,omitempty"`
	Error   string             `json:"error,omitempty"`
	// Leftovers names the processes the command left running when it
	// ended ("pid 123 (sleep)"), which the sweep killed.
	Leftovers []string `json:"leftovers,omitempty"`
}

func (r *RunResult) fill(u proc.Usage) {
	r.WallSeconds = u.Wall.Seconds()
	r.UserSeconds = u.User.Seconds()
	r.SystemSeconds = u.System.Seconds()
	r.VoluntarySwitches = u.Voluntary
	r.InvoluntarySwitches = u.Involuntary
	r.RunQueueWaitSeconds = u.RunQueueWait.Seconds()
	r.Threads = u.Threads
	r.MaxRSSBytes = u.MaxRSS
	r.ExitCode = u.ExitCode
	r.Signal = u.Signal
}

// Point is one GOMAXPROCS value's statistics over its successful runs:
// the knee metric's median and interval, and the medians of the rest.
type Point struct {
	Procs  int     `json:"gomaxprocs"`
	N      int     `json:"n"` // successful runs
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"` // the median's confidence interval
	Hi     float64 `json:"hi"`

	WallSeconds         float64 `json:"wallSeconds"`
	CPUSeconds          float64 `json:"cpuSeconds"` // user + system
	VoluntarySwitches   float64 `json:"voluntarySwitches"`
	InvoluntarySwitches float64 `json:"involuntarySwitches"`
	RunQueueWaitSeconds float64 `json:"runQueueWaitSeconds"`
	MaxRSSBytes         float64 `json:"maxRSSBytes"`

	// The disturbance of this value's runs, medians over its runs:
	// CPUWait is run-queue wait / wall / GOMAXPROCS; ExcessWait is CPUWait
	// less the wait the command makes itself when it has more Ps than CPUs
	// (1 - CPUs/GOMAXPROCS when CPU-bound); OtherCPUs is the CPU other
	// processes used (-1 when not measured).
	CPUWait    float64 `json:"cpuWait"`
	ExcessWait float64 `json:"excessWait"`
	OtherCPUs  float64 `json:"otherCPUs"`
	Disturbed  bool    `json:"disturbed"`

	// Under load: the median over runs of each run's percentiles, and the
	// errors and unsent requests of all runs.
	P50        float64 `json:"p50,omitempty"`
	P90        float64 `json:"p90,omitempty"`
	P99        float64 `json:"p99,omitempty"`
	P999       float64 `json:"p999,omitempty"`
	Throughput float64 `json:"throughput,omitempty"`
	Errors     int64   `json:"errors,omitempty"`
	Unsent     int64   `json:"unsent,omitempty"`
}

// Disturbance says why a GOMAXPROCS value's runs are not to be trusted.
type Disturbance struct {
	Procs      int     `json:"gomaxprocs"`
	OtherCPUs  float64 `json:"otherCPUs"`  // CPUs used by other processes, median over the runs; -1 unknown
	ExcessWait float64 `json:"excessWait"` // run-queue wait per P beyond what the command makes itself
	Why        string  `json:"why"`        // the figure in words
}

// Thresholds of disturbance. A value's runs are disturbed when other
// processes used more than busyOtherShare of the CPUs during them, or when
// its threads waited for a CPU more than noisyCPUWait of the wall time per
// P beyond what the command itself causes with more Ps than CPUs.
const busyOtherShare = 0.10

// Drop is a pair of GOMAXPROCS values where the higher one is worse beyond
// both intervals and the tolerance.
type Drop struct {
	From   int     `json:"from"`   // the lower GOMAXPROCS
	To     int     `json:"to"`     // the higher, worse one
	Change float64 `json:"change"` // 0.2: 20% worse
}

// minRunsToCompare is the fewest successful runs per value for which the
// sweep calls one value worse than another (SD502, and a default worse than
// the knee). With 5 runs the intervals are [min, max] and two such ranges of
// the same distribution are disjoint in a given direction 1 time in 252;
// with 3 runs, 1 time in 20, too often to warn on.
const minRunsToCompare = 5

// analyze computes Points, Knee, Best and Drops from Runs.
func (s *Summary) analyze() error {
	s.Points = nil
	s.Confidence = 0
	if s.Failures == nil {
		s.Failures = []RunError{} // [] rather than null in JSON
	}
	for _, p := range s.Procs {
		var rs []RunResult
		for _, r := range s.Runs {
			if r.Procs == p && r.Error == "" {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		pt := Point{Procs: p, N: len(rs)}
		col := func(f func(RunResult) float64) []float64 {
			out := make([]float64, len(rs))
			for i, r := range rs {
				out[i] = f(r)
			}
			return out
		}
		vals := col(func(r RunResult) float64 { return r.Metrics[s.Metric] })
		pt.Median = stats.Median(vals)
		ci := stats.MedianCI(vals, confidence)
		pt.Lo, pt.Hi = ci.Lo, ci.Hi
		if s.Confidence == 0 || ci.Coverage < s.Confidence {
			s.Confidence = ci.Coverage
		}
		pt.WallSeconds = stats.Median(col(func(r RunResult) float64 { return r.WallSeconds }))
		pt.CPUSeconds = stats.Median(col(func(r RunResult) float64 { return r.UserSeconds + r.SystemSeconds }))
		pt.VoluntarySwitches = stats.Median(col(func(r RunResult) float64 { return float64(r.VoluntarySwitches) }))
		pt.InvoluntarySwitches = stats.Median(col(func(r RunResult) float64 { return float64(r.InvoluntarySwitches) }))
		pt.RunQueueWaitSeconds = stats.Median(col(func(r RunResult) float64 { return r.RunQueueWaitSeconds }))
		pt.MaxRSSBytes = stats.Median(col(func(r RunResult) float64 { return float64(r.MaxRSSBytes) }))
		s.disturbance(&pt, rs)
		if s.Load != nil {
			pt.P50 = stats.Median(col(func(r RunResult) float64 { return r.Metrics["p50"] }))
			pt.P90 = stats.Median(col(func(r RunResult) float64 { return r.Metrics["p90"] }))
			pt.P99 = stats.Median(col(func(r RunResult) float64 { return r.Metrics["p99"] }))
			pt.P999 = stats.Median(col(func(r RunResult) float64 { return r.Metrics["p99.9"] }))
			pt.Throughput = stats.Median(col(func(r RunResult) float64 { return r.Metrics["throughput"] }))
			for _, r := range rs {
				if r.Load != nil {
					pt.Errors += r.Load.Errors
					pt.Unsent += r.Load.Unsent
				}
			}
		}
		s.Points = append(s.Points, pt)
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("%w: %d of %d runs failed", ErrNoResults, len(s.Failures), len(s.Runs))
	}
	s.CPUWait = s.Points[0].CPUWait
	s.Disturbed = []Disturbance{}
	for _, pt := range s.Points {
		if pt.Disturbed {
			s.Disturbed = append(s.Disturbed, Disturbance{Procs: pt.Procs, OtherCPUs: pt.OtherCPUs, ExcessWait: pt.ExcessWait, Why: s.disturbedWhy(pt)})
		}
	}
	sp := make([]stats.Point, len(s.Points))
	for i, p := range s.Points {
		sp[i] = stats.Point{Procs: p.Procs, Median: p.Median, CI: stats.Interval{Lo: p.Lo, Hi: p.Hi}}
	}
	s.Knee = s.Points[stats.Knee(sp, s.Better, s.Tolerance)].Procs
	s.Best = s.Points[stats.Best(sp, s.Better)].Procs
	s.Drops = []Drop{}
	for _, d := range stats.NegativeScaling(sp, s.Better, s.Tolerance) {
		if s.Points[d.Low].N >= minRunsToCompare && s.Points[d.High].N >= minRunsToCompare {
			s.Drops = append(s.Drops, Drop{From: sp[d.Low].Procs, To: sp[d.High].Procs, Change: d.Change})
		}
	}
	return nil
}

// disturbance measures how busy the machine was during one value's runs.
func (s *Summary) disturbance(pt *Point, rs []RunResult) {
	var waits, others []float64
	for _, r := range rs {
		if r.WallSeconds > 0 {
			waits = append(waits, r.RunQueueWaitSeconds/r.WallSeconds/float64(pt.Procs))
		}
		if r.OtherMeasured {
			others = append(others, r.OtherCPUs)
		}
	}
	if len(waits) > 0 {
		pt.CPUWait = stats.Median(waits)
	}
	// With more Ps than CPUs a CPU-bound command queues its own threads:
	// that part of the wait is not disturbance.
	self := 0.0
	if s.CPUs > 0 && pt.Procs > s.CPUs {
		self = 1 - float64(s.CPUs)/float64(pt.Procs)
	}
	pt.ExcessWait = max(pt.CPUWait-self, 0)
	pt.OtherCPUs = -1
	if len(others) > 0 {
		pt.OtherCPUs = stats.Median(others)
	}
	pt.Disturbed = pt.ExcessWait > noisyCPUWait || (s.CPUs > 0 && pt.OtherCPUs > busyOtherShare*float64(s.CPUs))
}

// disturbedWhy is the measured figure that makes pt disturbed, in words.
func (s *Summary) disturbedWhy(pt Point) string {
	var why []string
	if s.CPUs > 0 && pt.OtherCPUs > busyOtherShare*float64(s.CPUs) {
		why = append(why, fmt.Sprintf("other processes used %.2f of the %d CPUs (%.0f%%)", pt.OtherCPUs, s.CPUs, 100*pt.OtherCPUs/float64(s.CPUs)))
	}
	if pt.ExcessWait > noisyCPUWait {
		why = append(why, fmt.Sprintf("its threads waited for a CPU %.0f%% of the wall time per P", 100*pt.ExcessWait))
	}
	return strings.Join(why, " and ")
}

// point returns the Point of GOMAXPROCS p.
func (s *Summary) point(p int) (Point, bool) {
	for _, pt := range s.Points {
		if pt.Procs == p {
			return pt, true
		}
	}
	return Point{}, false
}

// relDiff is (a-b)/b, 0 when b is 0.
func relDiff(a, b float64) float64 {
	if b == 0 || math.IsNaN(b) {
		return 0
	}
	return (a - b) / b
}
