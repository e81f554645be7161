package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/golden"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/sweep/loadgen"
	"github.com/schedoctor/schedoctor/sweep/stats"
)

// synth builds a summary from fixed per-GOMAXPROCS values of the knee
// metric, as a sweep of len(vals[p]) rounds would have recorded them.
func synth(metric, unit string, better stats.Better, vals map[int][]float64, procs ...int) *Summary {
	s := &Summary{
		Command: []string{"./prog", "-n", "1000"}, Procs: procs, Seed: 42, CPUs: 2, Tolerance: 0.05,
		Metric: metric, Unit: unit, Better: better, Runs: []RunResult{},
	}
	seq := 0
	s.RunsPerP = len(vals[procs[0]])
	for round := 1; round <= s.RunsPerP; round++ {
		s.Order = append(s.Order, procs)
		for _, p := range procs {
			seq++
			v := vals[p][round-1]
			r := RunResult{
				Seq: seq, Round: round, Procs: p,
				WallSeconds: 1.5 / float64(min(p, 2)), UserSeconds: 1.4 + 0.01*float64(p), SystemSeconds: 0.02,
				VoluntarySwitches: int64(10 * p), InvoluntarySwitches: int64(40 * p * p),
				RunQueueWaitSeconds: 0.01 * float64(p*p), Threads: p + 3, MaxRSSBytes: 8 << 20,
				Metrics: map[string]float64{"wall": 1.5 / float64(min(p, 2))},
			}
			r.Metrics[metric] = v
			s.Runs = append(s.Runs, r)
		}
	}
	return s
}

// render writes the report as the CLI does, in text and in JSON, and
// compares both with the golden files.
func render(t *testing.T, name string, s *Summary) []finding.Finding {
	t.Helper()
	if err := s.analyze(); err != nil {
		t.Fatal(err)
	}
	r := report.Report{Source: finding.SourceSweep, Findings: s.Findings(), Summary: s}
	finding.Sort(r.Findings)
	var text, js bytes.Buffer
	if err := report.Text(&text, r, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", name+".txt"), text.Bytes())
	if err := report.JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(js.Bytes()) {
		t.Fatalf("invalid JSON:\n%s", js.Bytes())
	}
	golden.Check(t, filepath.Join("testdata", name+".json"), js.Bytes())
	return r.Findings
}

func rules(fs []finding.Finding) string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule+"/"+f.Severity.String())
	}
	return strings.Join(r, " ")
}

func TestCPUBoundGolden(t *testing.T) {
	s := synth("wall", "s", stats.Lower, map[int][]float64{
		1: {1.21, 1.19, 1.25, 1.20, 1.22},
		2: {0.62, 0.61, 0.64, 0.60, 0.63},
		4: {0.63, 0.60, 0.66, 0.62, 0.64},
	}, 1, 2, 4)
	fs := render(t, "cpubound", s)
	if s.Knee != 2 || s.Best != 2 || len(s.Drops) != 0 {
		t.Errorf("knee %d best %d drops %v, want knee 2, no drops", s.Knee, s.Best, s.Drops)
	}
	if got := rules(fs); got != "SD501/info" {
		t.Errorf("findings %s, want SD501/info", got)
	}
}

func TestNegativeScalingGolden(t *testing.T) {
	s := synth("ops/s", "ops/s", stats.Higher, map[int][]float64{
		1: {700e3, 690e3, 720e3, 705e3, 710e3},
		2: {520e3, 500e3, 540e3, 515e3, 530e3},
		4: {400e3, 390e3, 420e3, 410e3, 405e3},
		8: {300e3, 310e3, 290e3, 305e3, 295e3},
	}, 1, 2, 4, 8)
	fs := render(t, "lockcontend", s)
	if s.Knee != 1 || len(s.Drops) == 0 || s.Drops[0].From != 1 || s.Drops[0].To != 8 {
		t.Errorf("knee %d drops %+v, want knee 1 and 1→8 worst", s.Knee, s.Drops)
	}
	// The default (GOMAXPROCS=2 on 2 CPUs) is 26% worse than the knee:
	// SD501 becomes a warning.
	if got := rules(fs); got != "SD501/warning SD502/warning" {
		t.Errorf("findings %s", got)
	}
}

func TestLoadGolden(t *testing.T) {
	s := synth("p99", "s", stats.Lower, map[int][]float64{
		1: {0.080, 0.095, 0.070},
		2: {0.004, 0.0042, 0.0039},
		4: {0.0045, 0.0041, 0.0043},
	}, 1, 2, 4)
	s.Load = &LoadSettings{URL: "http://127.0.0.1:8391/", Rate: 2000, Duration: 5}
	for i := range s.Runs {
		r := &s.Runs[i]
		p99 := r.Metrics["p99"]
		r.Load = &loadgen.Result{Planned: 10000, OK: 10000, Seconds: 5.01, Throughput: 1996, P50: p99 / 8, P90: p99 / 3, P99: p99, P999: p99 * 1.5, Max: p99 * 2}
		if r.Procs == 1 {
			r.Load.Errors, r.Load.OK = 3, 9997
			r.RunQueueWaitSeconds = 0.5 // a busy machine: 33% of the wall time
		}
		r.Metrics["p50"], r.Metrics["p90"], r.Metrics["p99.9"], r.Metrics["throughput"] = r.Load.P50, r.Load.P90, r.Load.P999, r.Load.Throughput
	}
	// One failed run, kept with -keep-going.
	s.Runs = append(s.Runs, RunResult{Seq: 10, Round: 3, Procs: 4, Error: "exit status 1", Metrics: map[string]float64{}})
	s.Failures = []RunError{{Seq: 10, Procs: 4, Err: "exit status 1", Stderr: "listen tcp 127.0.0.1:8391: bind: address already in use"}}
	fs := render(t, "load", s)
	if s.Knee != 2 {
		t.Errorf("knee %d, want 2", s.Knee)
	}
	if p, _ := s.point(4); p.N != 3 {
		t.Errorf("GOMAXPROCS=4 has %d runs, want the 3 that succeeded", p.N)
	}
	if p, _ := s.point(1); p.Errors != 9 {
		t.Errorf("GOMAXPROCS=1 errors %d, want 9", p.Errors)
	}
	if got := rules(fs); got != "SD501/info" {
		t.Errorf("findings %s", got)
	}
	if s.CPUWait < 0.33 || s.CPUWait > 0.34 {
		t.Errorf("cpu wait %v, want 0.5s/1.5s", s.CPUWait)
	}
}

func TestAnalyzeNoResults(t *testing.T) {
	s := &Summary{Procs: []int{1}, Runs: []RunResult{{Procs: 1, Error: "exit status 1"}}, Failures: []RunError{{}}}
	if err := s.analyze(); err == nil || !strings.Contains(err.Error(), "1 of 1 runs failed") {
		t.Errorf("err = %v", err)
	}
}

func TestBar(t *testing.T) {
	if got := bar(1, 1); got != strings.Repeat("█", barWidth) {
		t.Errorf("full bar = %q", got)
	}
	if got := bar(0.5+1.0/(barWidth*8), 1); got != strings.Repeat("█", barWidth/2)+"▏" {
		t.Errorf("half bar = %q", got)
	}
	if bar(0, 1) != "" || bar(1, 0) != "" {
		t.Error("empty bars")
	}
}

func TestFormat(t *testing.T) {
	for v, want := range map[float64]string{1.234: "1.23s", 0.0123: "12.3ms", 0.000456: "456µs", 0: "0s"} {
		if got := fmtSeconds(v); got != want {
			t.Errorf("fmtSeconds(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{25: "25", 0.01798: "0.01798", 11841991: "11.84M", 23456: "23.46k", 2.5e9: "2.500G"} {
		if got := fmtNum(v); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestFewRunsNoDrop: a drop as clear as lockcontend's, but from 3 runs per
// value, is not called negative scaling: 3-run ranges are disjoint by chance
// too often.
func TestFewRunsNoDrop(t *testing.T) {
	s := synth("ops/s", "", stats.Higher, map[int][]float64{
		1: {700e3, 690e3, 720e3},
		2: {520e3, 500e3, 540e3},
	}, 1, 2)
	if err := s.analyze(); err != nil {
		t.Fatal(err)
	}
	if got := rules(s.Findings()); got != "SD501/info" || len(s.Drops) != 0 {
		t.Errorf("findings %s, drops %v; want SD501/info alone", got, s.Drops)
	}
}

// honest builds a clean 5-run sweep of a CPU-bound command on 2 CPUs over
// GOMAXPROCS 1..4 whose knee is 2, then lets f change it.
func honest(f func(s *Summary)) *Summary {
	s := synth("wall", "s", stats.Lower, map[int][]float64{
		1: {1.21, 1.19, 1.25, 1.20, 1.22},
		2: {0.62, 0.61, 0.64, 0.60, 0.63},
		3: {0.63, 0.62, 0.65, 0.61, 0.64},
		4: {0.63, 0.60, 0.66, 0.62, 0.64},
	}, 1, 2, 3, 4)
	for i := range s.Runs {
		s.Runs[i].OtherMeasured = true
		s.Runs[i].OtherCPUs = 0.05
		s.Runs[i].RunQueueWaitSeconds = 0.001
	}
	if f != nil {
		f(s)
	}
	return s
}

func TestSweepHonesty(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s        *Summary
		severity finding.Severity
		knee     int
		want     []string // substrings of SD501's message
		fix      string   // substring of SD501's fix
	}{
		{"clean data: the knee as before", honest(nil), finding.Info, 2,
			[]string{"GOMAXPROCS=2 is the knee because"}, "run it with GOMAXPROCS=2"},
		{"other load at GOMAXPROCS=3 only", honest(func(s *Summary) {
			for i := range s.Runs {
				if s.Runs[i].Procs == 3 {
					s.Runs[i].OtherCPUs = 0.9
				}
			}
		}), finding.Info, 2,
			[]string{"not recommended: the machine was busy during the runs at GOMAXPROCS=3: other processes used 0.90 of the 2 CPUs (45%)"},
			"sweep again when the machine is quiet"},
		{"run-queue wait at GOMAXPROCS=3 only, /proc/stat not read", honest(func(s *Summary) {
			for i := range s.Runs {
				s.Runs[i].OtherMeasured, s.Runs[i].OtherCPUs = false, 0
				if s.Runs[i].Procs == 3 {
					s.Runs[i].RunQueueWaitSeconds = 0.57 * s.Runs[i].WallSeconds * 3 // 57% per P
				}
			}
		}), finding.Info, 2,
			[]string{"busy during the runs at GOMAXPROCS=3: its threads waited for a CPU 24% of the wall time per P"},
			"sweep again"},
		{"overlapping intervals: no knee", withCPUs(4, synth("wall", "s", stats.Lower, map[int][]float64{
			1: {1.00, 0.70, 1.30, 0.90, 1.10},
			2: {0.80, 0.60, 1.05, 0.75, 0.95},
			4: {0.70, 0.55, 0.95, 0.66, 0.72},
		}, 1, 2, 4)), finding.Info, 4,
			[]string{"no clear knee: the intervals of GOMAXPROCS=2 (600ms–1.05s) and GOMAXPROCS=4 (550ms–950ms) overlap"},
			"sweep again with more runs per value"},
		{"knee above the CPUs is never recommended", honest(func(s *Summary) {
			for i := range s.Runs {
				if s.Runs[i].Procs == 4 {
					s.Runs[i].Metrics["wall"] = 0.30 + 0.01*float64(i%5)
				}
				if s.Runs[i].Procs == 3 {
					s.Runs[i].Metrics["wall"] = 0.45 + 0.01*float64(i%5)
				}
			}
		}), finding.Info, 4,
			[]string{"GOMAXPROCS=4 is more Ps than the 2 CPUs available"}, "keep GOMAXPROCS at or below the 2 CPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.s.analyze(); err != nil {
				t.Fatal(err)
			}
			fs := tc.s.Findings()
			if len(fs) == 0 || fs[0].Rule != "SD501" {
				t.Fatalf("findings %s", rules(fs))
			}
			f := fs[0]
			if tc.s.Knee != tc.knee || f.Severity != tc.severity {
				t.Errorf("knee %d %s, want %d %s", tc.s.Knee, f.Severity, tc.knee, tc.severity)
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Text(), w) {
					t.Errorf("message %q\nwant %q", f.Text(), w)
				}
			}
			if !strings.Contains(f.Fix, tc.fix) {
				t.Errorf("fix %q, want %q", f.Fix, tc.fix)
			}
			// More runs are asked for in data: the CLI names -runs.
			if strings.Contains(tc.fix, "more runs") && !slices.Equal(f.Hints(), []finding.Hint{finding.HintRuns}) {
				t.Errorf("hints %v, want the runs hint", f.Hints())
			}
			if tc.fix != "run it with GOMAXPROCS=2" && strings.Contains(f.Fix, "run it with GOMAXPROCS") {
				t.Errorf("withheld, yet the fix recommends: %q", f.Fix)
			}
			// Every value's disturbance is in the evidence.
			for _, p := range tc.s.Points {
				found := false
				for _, e := range f.Evidence {
					if strings.Contains(e.Label, fmt.Sprintf("CPU wait at GOMAXPROCS=%d ", p.Procs)) {
						found = true
					}
				}
				if !found {
					t.Errorf("no disturbance evidence at GOMAXPROCS=%d", p.Procs)
				}
			}
		})
	}
}

func withCPUs(n int, s *Summary) *Summary {
	s.CPUs = n
	return s
}

// TestNegativeScalingDisturbed: a drop whose higher value ran beside other
// load is downgraded to info and says so.
func TestNegativeScalingDisturbed(t *testing.T) {
	s := synth("ops/s", "ops/s", stats.Higher, map[int][]float64{
		1: {700e3, 690e3, 720e3, 705e3, 710e3},
		2: {520e3, 500e3, 540e3, 515e3, 530e3},
	}, 1, 2)
	for i := range s.Runs {
		s.Runs[i].OtherMeasured = true
		if s.Runs[i].Procs == 2 {
			s.Runs[i].OtherCPUs = 1.2
		}
	}
	if err := s.analyze(); err != nil {
		t.Fatal(err)
	}
	got := rules(s.Findings())
	if got != "SD501/info SD502/info" {
		t.Errorf("findings %s, want both info", got)
	}
	if g := s.Findings()[1]; !strings.Contains(g.Text(), "busy during the runs at GOMAXPROCS=2 (other processes used 1.20 of the 2 CPUs (60%))") {
		t.Errorf("SD502 message %q", g.Text())
	}
}
