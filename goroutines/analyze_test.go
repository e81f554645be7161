package goroutines

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

func read(t *testing.T, names ...string) []*Dump {
	t.Helper()
	var ds []*Dump
	for _, n := range names {
		d, err := ReadFile(context.Background(), filepath.Join("testdata", n), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

func evidence(f finding.Finding, prefix string) (float64, bool) {
	for _, e := range f.Evidence {
		if strings.HasPrefix(e.Label, prefix) {
			return e.Value, true
		}
	}
	return 0, false
}

// TestLeakPositives: the leaking handler, recorded, is found by each method
// the input allows, at the send and the go statement.
func TestLeakPositives(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  []string
		window time.Duration
		method string // the evidence that must be there
		count  int
	}{
		{"growth debug=2", []string{"leak-start.debug2.txt", "leak-end.debug2.txt"}, 0, "growth between", 1298},
		{"growth proto", []string{"leak-start.pb.gz", "leak-end.pb.gz"}, 0, "growth between", 1298},
		{"age one dump", []string{"leak-end.debug2.txt"}, time.Minute, "parked longer than the window", 1298},
		{"leak profile debug=1", []string{"leakprof-end.goroutineleak.debug1.txt"}, 0, "proved leaked", 1300},
		{"leak profile proto", []string{"leakprof-end.goroutineleak.pb.gz"}, 0, "proved leaked", 1300},
		{"leak profile debug=2", []string{"leakprof-end.goroutineleak.debug2.txt"}, 0, "proved leaked", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze(read(t, tc.files...), Options{Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) != 1 {
				t.Fatalf("%d findings, want 1: %+v", len(res.Findings), res.Findings)
			}
			f := res.Findings[0]
			if f.Rule != "SD701" || len(f.Locations) == 0 || f.Locations[0].Line != 61 || f.Locations[0].Function != "main.leakyHandler.func1" {
				t.Errorf("rule %s at %v", f.Rule, f.Locations)
			}
			if _, ok := evidence(f, tc.method); !ok {
				t.Errorf("no %q evidence: %+v", tc.method, f.Evidence)
			}
			if n, _ := evidence(f, "goroutines parked here"); tc.count > 0 && int(n) != tc.count {
				t.Errorf("count %v, want %d", n, tc.count)
			}
			if tc.name == "leak profile debug=1" {
				return // no state: the runtime frames are left out
			}
			if !strings.Contains(f.Fix, "make(chan T, 1)") || !strings.Contains(f.Text(), "chan send") {
				t.Errorf("message %q fix %q", f.Text(), f.Fix)
			}
		})
	}
}

func TestLeakGrowthDebug2Evidence(t *testing.T) {
	res, err := Analyze(read(t, "leak-start.debug2.txt", "leak-end.debug2.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Findings[0]
	if len(f.Locations) != 2 || f.Locations[1].Line != 60 || f.Locations[1].Function != "main.leakyHandler" {
		t.Errorf("creator location: %v", f.Locations)
	}
	growth, _ := evidence(f, "growth")
	first, _ := evidence(f, "parked here in the first dump")
	kept, _ := evidence(f, "first-dump goroutines still")
	oldest, _ := evidence(f, "oldest wait")
	if growth != 1199 || first != 99 || kept != 99 || oldest != 2 {
		t.Errorf("growth %v first %v kept %v oldest %v", growth, first, kept, oldest)
	}
	if !strings.HasPrefix(f.What, "1298 goroutines leak parked in chan send at main.go:61") {
		t.Errorf("message %q", f.Text())
	}
}

// TestLeakNegatives: healthy programs recorded for minutes, and the leak
// itself where the method cannot yet tell.
func TestLeakNegatives(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  []string
		window time.Duration
	}{
		// Idle keep-alive connections in IO wait for 2 minutes, two
		// worker pools, a ticker and a signal loop.
		{"healthy two dumps", []string{"healthy-start.debug2.txt", "healthy-end.debug2.txt"}, 0},
		{"healthy one dump, 1m window", []string{"healthy-end.debug2.txt"}, time.Minute},
		{"healthy proto", []string{"healthy-start.pb.gz", "healthy-end.pb.gz"}, 0},
		{"healthy leak profile", []string{"healthy-end.goroutineleak.debug1.txt"}, 0},
		// 64 workers parked on a receive and a select for 2 minutes.
		{"pool two dumps", []string{"pool-start.debug2.txt", "pool-end.debug2.txt"}, time.Minute},
		{"pool one dump", []string{"pool-end.debug2.txt"}, time.Minute},
		// The leak is only 2 minutes old: under the default window of one
		// dump it is not yet stuck.
		{"leak one dump, default window", []string{"leak-end.debug2.txt"}, 0},
		// debug=1 hides the runtime frames: no state, so no method but
		// the leak profile's can see the send.
		{"leak debug=1", []string{"leak-start.debug1.txt", "leak-end.debug1.txt"}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze(read(t, tc.files...), Options{Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				t.Errorf("unexpected %s: %s", f.Rule, f.Text())
			}
		})
	}
}

func synth(ids []int64, state string, line int) *Dump {
	d := &Dump{Name: "synth", Format: FormatDebug2, Profile: ProfileGoroutine}
	for _, id := range ids {
		d.Goroutines = append(d.Goroutines, Goroutine{ID: id, Count: 1, State: state,
			Stack:     []Frame{{"runtime.gopark", "/go/proc.go", 1}, {"main.wait", "/app/w.go", line}},
			CreatedBy: &Frame{"main.spawn", "/app/s.go", 9}})
		d.Total++
	}
	return d
}

func ids(from, n int) []int64 {
	var out []int64
	for i := range n {
		out = append(out, int64(from+i))
	}
	return out
}

// TestGrowthNearMisses: groups that grew but are not leaks by the rule.
func TestGrowthNearMisses(t *testing.T) {
	for _, tc := range []struct {
		name       string
		start, end *Dump
		want       bool
	}{
		{"grew, first ones still there", synth(ids(1, 20), "chan send", 5), synth(ids(1, 40), "chan send", 5), true},
		{"grew, first ones gone (a queue that drains)", synth(ids(1, 20), "chan send", 5), synth(ids(100, 40), "chan send", 5), false},
		{"grew by fewer than MinGroup", synth(ids(1, 20), "chan send", 5), synth(ids(1, 29), "chan send", 5), false},
		{"new group (a burst)", synth(ids(1, 20), "chan send", 6), synth(ids(1, 40), "chan send", 5), false},
		{"grew in IO wait (connections)", synth(ids(1, 20), "IO wait", 5), synth(ids(1, 40), "IO wait", 5), false},
		{"grew in sleep", synth(ids(1, 20), "sleep", 5), synth(ids(1, 40), "sleep", 5), false},
		{"grew in select, first ones there", synth(ids(1, 20), "select", 5), synth(ids(1, 40), "select", 5), true},
		{"grew in select, no user frame (net/http's idle connections)", stdOnly(synth(ids(1, 20), "select", 5)), stdOnly(synth(ids(1, 40), "select", 5)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze([]*Dump{tc.start, tc.end}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Findings) > 0; got != tc.want {
				t.Errorf("finding %v, want %v: %+v", got, tc.want, res.Findings)
			}
		})
	}
}

func TestAnalyzeErrors(t *testing.T) {
	d := synth(ids(1, 1), "chan send", 5)
	if _, err := Analyze(nil, Options{}); err == nil {
		t.Error("no dumps: no error")
	}
	if _, err := Analyze([]*Dump{d, d, d}, Options{}); err == nil || !strings.Contains(err.Error(), "3 goroutine dumps") {
		t.Errorf("three dumps: %v", err)
	}
	a, b := synth(ids(1, 1), "chan send", 5), synth(ids(1, 1), "chan send", 5)
	a.Time, b.Time = time.Unix(100, 0), time.Unix(50, 0)
	if _, err := Analyze([]*Dump{a, b}, Options{}); err == nil || !strings.Contains(err.Error(), "earlier dump first") {
		t.Errorf("dumps in the wrong order: %v", err)
	}
}

// TestSummaryBlind: the summary says what the input cannot show.
func TestSummaryBlind(t *testing.T) {
	res, err := Analyze(read(t, "leak-start.pb.gz", "leak-end.pb.gz"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if !slices.Contains(s.Methods, MethodGrowth) || slices.Contains(s.Methods, MethodAge) || len(s.Blind) != 3 {
		t.Errorf("methods %v blind %q", s.Methods, s.Blind)
	}
	if s.BetweenSeconds < 115 || s.BetweenSeconds > 125 {
		t.Errorf("the protos record their times 120s apart; between = %v", s.BetweenSeconds)
	}
}

// stdOnly renames the user frames as net/http's.
func stdOnly(d *Dump) *Dump {
	for i := range d.Goroutines {
		d.Goroutines[i].Stack[1].Func = "net/http.(*persistConn).writeLoop"
	}
	return d
}

// TestLeakFullDumpWithTwoDumps: a goroutineleak?debug=2 answer (Go 1.26
// with GOEXPERIMENT=goroutineleakprofile: a full dump, the leaked marked)
// given with the two dumps check takes is the leak profile only, not a
// third dump to compare (issue 19: the analysis failed and SD701 was lost).
func TestLeakFullDumpWithTwoDumps(t *testing.T) {
	ds := read(t, "leak-start.debug2.txt", "leakprof-end.goroutineleak.debug2.txt", "leak-end.debug2.txt")
	res, err := Analyze(ds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "SD701" {
		t.Fatalf("findings %+v; want one SD701", res.Findings)
	}
	for _, m := range []string{"proved leaked", "growth between"} {
		if _, ok := evidence(res.Findings[0], m); !ok {
			t.Errorf("no %q evidence: %+v", m, res.Findings[0].Evidence)
		}
	}
}

// TestGrowthNeedsOneFormat: a debug=2 dump and a proto profile of the
// same moment differ in their keys (creators, runtime frames): compared,
// every group would look new. Two formats give no growth finding.
func TestGrowthNeedsOneFormat(t *testing.T) {
	for _, files := range [][]string{
		{"healthy-start.debug2.txt", "healthy-end.pb.gz"},
		{"healthy-start.pb.gz", "healthy-end.debug2.txt"},
	} {
		ds := read(t, files...)
		ds[0].Time, ds[1].Time = time.Time{}, time.Time{}
		res, err := Analyze(ds, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			if _, ok := evidence(f, "growth between"); ok {
				t.Errorf("%v: growth across formats: %s", files, f.Text())
			}
		}
	}
}
