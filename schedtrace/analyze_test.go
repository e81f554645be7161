package schedtrace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// ticks makes n ticks 100ms apart (the first at 0ms, which Analyze leaves
// out) on 2 Ps, then lets f change tick i (from 1).
func ticks(n int, f func(i int, tk *Tick)) *Trace {
	tr := &Trace{Name: "gen.txt"}
	for i := 0; i <= n; i++ {
		tk := Tick{Line: i + 1, Ms: int64(i) * 100, GOMAXPROCS: 2, Threads: 5, Spinning: 0, NeedSpinning: 0, IdleThreads: 1,
			LocalQueues: []int32{0, 0}, SchedTicks: []uint32{uint32(i) * 10, uint32(i) * 10}}
		if i > 0 {
			f(i, &tk)
		}
		tr.Ticks = append(tr.Ticks, tk)
	}
	return tr
}

func rules(fs []finding.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule+":"+f.Severity.String())
	}
	return strings.Join(ids, ",")
}

// TestThresholds puts each rule just at and just below its threshold.
func TestThresholds(t *testing.T) {
	rate := func(perSec uint32) func(i int, tk *Tick) {
		return func(i int, tk *Tick) {
			v := uint32(i) * perSec / 10
			tk.SchedTicks = []uint32{v, v}
		}
	}
	for _, tc := range []struct {
		name string
		tr   *Trace
		want string
	}{
		{"backlog in half the ticks", ticks(10, func(i int, tk *Tick) {
			if i%2 == 0 {
				tk.RunQueue, tk.LocalQueues = 1, []int32{1, 0}
			}
		}), "SD302:warning"},
		{"backlog in 4 of 10 ticks", ticks(10, func(i int, tk *Tick) {
			if i%5 < 2 {
				tk.RunQueue, tk.LocalQueues = 1, []int32{1, 0}
			}
		}), ""},
		{"one queued per tick is below one per P", ticks(10, func(i int, tk *Tick) { tk.RunQueue = 1 }), ""},
		{"backlog but only 2 ticks", ticks(2, func(i int, tk *Tick) { tk.RunQueue = 5 }), ""},
		{"spinning, nothing queued, 5 of 10", ticks(10, func(i int, tk *Tick) {
			if i%2 == 0 {
				tk.Spinning = 1
			}
		}), "SD310:info"},
		{"spinning with queued work is not SD310", ticks(10, func(i int, tk *Tick) { tk.Spinning, tk.RunQueue = 1, 1 }), ""},
		{"spinning in 4 of 10", ticks(10, func(i int, tk *Tick) {
			if i%5 < 2 {
				tk.Spinning = 1
			}
		}), ""},
		{"idle Ps with queued work, 3 of 12", ticks(12, func(i int, tk *Tick) {
			if i%4 == 0 {
				tk.IdleProcs, tk.RunQueue = 1, 3
			}
		}), "SD311:warning"},
		// One goroutine caught between readied and run, in a quarter of the
		// ticks (go-httpbin on a crowded host): noted, not a warning.
		{"idle Ps beside one queued goroutine, 3 of 12", ticks(12, func(i int, tk *Tick) {
			if i%4 == 0 {
				tk.IdleProcs, tk.RunQueue = 1, 1
			}
		}), "SD311:info"},
		{"idle Ps beside one queued goroutine, 6 of 12", ticks(12, func(i int, tk *Tick) {
			if i%2 == 0 {
				tk.IdleProcs, tk.RunQueue = 1, 1
			}
		}), "SD311:warning"},
		{"idle Ps with queued work, 2 of 12", ticks(12, func(i int, tk *Tick) {
			if i%6 == 0 {
				tk.IdleProcs, tk.RunQueue = 1, 1
			}
		}), ""},
		{"idle Ps and queued work never at once", ticks(12, func(i int, tk *Tick) {
			if i%2 == 0 {
				tk.IdleProcs = 1
			} else {
				tk.RunQueue = 1
			}
		}), ""},
		{"threads climbing", ticks(12, func(i int, tk *Tick) { tk.Threads = 5 + 2*i }), "SD312:warning"},
		{"threads climb then level off", ticks(12, func(i int, tk *Tick) { tk.Threads = 5 + 3*min(i, 7) }), ""},
		{"threads climbing by 9", ticks(12, func(i int, tk *Tick) { tk.Threads = 5 + min(i, 9) }), ""},
		{"churn at 1,000/s with idle Ps", ticks(10, func(i int, tk *Tick) { rate(1000)(i, tk); tk.IdleProcs = 1 }), "SD313:info"},
		// A healthy server woken per request reaches 14,708/s (echo-server-29k.txt):
		// the rate alone is never a warning.
		{"churn at 20,000/s with idle Ps stays info", ticks(10, func(i int, tk *Tick) { rate(20000)(i, tk); tk.IdleProcs = 2 }), "SD313:info"},
		// SD302's severity follows the estimated wait: queued per P × run per start.
		{"backlog of 1 per P at 100 starts/s (10ms each) is a warning", ticks(10, func(i int, tk *Tick) {
			tk.RunQueue, tk.LocalQueues = 1, []int32{1, 0}
		}), "SD302:warning"},
		{"backlog of 1 per P at 200 starts/s (5ms each) is info", ticks(10, func(i int, tk *Tick) {
			rate(200)(i, tk)
			tk.RunQueue, tk.LocalQueues = 1, []int32{1, 0}
		}), "SD302:info"},
		{"backlog of 50 per P at 100,000 starts/s on busy Ps is hand-offs: info", ticks(10, func(i int, tk *Tick) {
			rate(50000)(i, tk)
			tk.RunQueue, tk.LocalQueues = 60, []int32{20, 20}
		}), "SD302:info"},
		{"backlog without schedticks is info", ticks(10, func(i int, tk *Tick) {
			tk.SchedTicks = nil
			tk.RunQueue, tk.LocalQueues = 100, []int32{10, 10}
		}), "SD302:info"},
		{"backlog beside a yield storm is the storm", ticks(10, func(i int, tk *Tick) {
			rate(200000)(i, tk)
			tk.RunQueue, tk.LocalQueues = 3, []int32{1, 1}
		}), "SD314:warning"},
		{"900/s with idle Ps", ticks(10, func(i int, tk *Tick) { rate(900)(i, tk); tk.IdleProcs = 1 }), ""},
		{"5,000/s on busy Ps", ticks(10, func(i int, tk *Tick) { rate(5000)(i, tk) }), ""},
		{"100,000/s on busy Ps", ticks(10, func(i int, tk *Tick) { rate(100000)(i, tk) }), "SD314:warning"},
		{"90,000/s on busy Ps", ticks(10, func(i int, tk *Tick) { rate(90000)(i, tk) }), ""},
		{"storm without schedticks", ticks(10, func(i int, tk *Tick) { tk.SchedTicks = nil }), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := analyze(tc.tr)
			if got := rules(fs); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, f := range fs {
				if len(f.Evidence) < 3 || f.Fix == "" || len(f.Locations) != 1 || f.Locations[0].File != "gen.txt" {
					t.Errorf("%s: incomplete finding %+v", f.Rule, f)
				}
				if !strings.Contains(f.Text(), " because ") || f.Text()[0] < '0' || f.Text()[0] > '9' {
					t.Errorf("%s: message %q is not 'N because X'", f.Rule, f.Text())
				}
			}
		})
	}
}

func TestSchedTickWrap(t *testing.T) {
	tr := ticks(5, func(i int, tk *Tick) {
		v := uint32(1<<32-20000) + uint32(i)*15000 // wraps at tick 2
		tk.SchedTicks = []uint32{v, v}
	})
	fs, s := analyze(tr)
	if rules(fs) != "SD314:warning" {
		t.Errorf("rules %q, want SD314 at 150,000/s across the wrap", rules(fs))
	}
	for _, sr := range s.Series {
		if sr.Name == "starts/s per P" && (sr.Min != 150000 || sr.Max != 150000) {
			t.Errorf("rate series %+v", sr)
		}
	}
}

func TestSplitRuns(t *testing.T) {
	mk := func(ms ...int64) []Tick {
		var ts []Tick
		for i, m := range ms {
			ts = append(ts, Tick{Line: i + 1, Ms: m})
		}
		return ts
	}
	str := func(runs [][]Tick) string {
		var parts []string
		for _, r := range runs {
			var ms []string
			for _, tk := range r {
				ms = append(ms, fmt.Sprint(tk.Ms))
			}
			parts = append(parts, strings.Join(ms, " "))
		}
		return strings.Join(parts, " | ")
	}
	for _, tc := range []struct {
		ms   []int64
		want string
	}{
		{[]int64{0, 100, 200, 200, 300}, "0 100 200 200 300"},
		{[]int64{5000, 6000}, "5000 6000"},
		// go run: the go command (0, 100, ...), the program started later.
		{[]int64{0, 100, 200, 0, 300, 101, 400, 202, 500, 303}, "0 100 200 300 400 500 | 0 101 202 303"},
		// two files concatenated
		{[]int64{0, 100, 200, 0, 100}, "0 100 200 | 0 100"},
	} {
		if got := str(splitRuns(mk(tc.ms...))); got != tc.want {
			t.Errorf("splitRuns(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
	_, s := analyze(&Trace{Name: "x", Ticks: mk(0, 100, 200, 300, 0, 100, 200)})
	if s.Runs != 2 || len(s.Notes) != 1 || s.FirstLine != 6 {
		t.Errorf("summary %+v", s)
	}
}

func TestSparkline(t *testing.T) {
	if got := sparkline([]float64{0, 1, 2, -1, 4}, 4); got != "▁▃▅ █" {
		t.Errorf("sparkline = %q", got)
	}
	if got := sparkline([]float64{0, 0}, 0); got != "▁▁" {
		t.Errorf("flat sparkline = %q", got)
	}
	sr, ok := series("x", []float64{1, 5, 2, 2, 9, -1, 3}, 3)
	if !ok || fmt.Sprint(sr.Points) != "[5 9 3]" || sr.Max != 9 || sr.Median != 3 || sr.Last != 3 {
		t.Errorf("series %+v", sr)
	}
}

func TestAnalyzeEmpty(t *testing.T) {
	fs, s := analyze(&Trace{Name: "none"})
	if len(fs) != 0 || s.Ticks != 0 || len(s.Series) != 0 {
		t.Errorf("findings %v, summary %+v", fs, s)
	}
}

// TestHealthyServers runs the rules on recordings of healthy network
// servers (a loopback TCP echo server written for the purpose: each
// connection's goroutine reads 256 bytes, hashes them and writes them back;
// the load came from another process). They look like a sleep-poller in
// schedtrace (Ps idle, thousands of goroutine starts a second), so nothing
// may be a warning, and SD313 must say it cannot tell the two apart.
func TestHealthyServers(t *testing.T) {
	for _, file := range []string{"echo-server-9600.txt", "echo-server-29k.txt", "workerpool.txt", "pingpong.txt"} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := Read(context.Background(), file, f, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fs, _ := analyze(tr)
			for _, f := range fs {
				if f.Severity >= finding.Warning {
					t.Errorf("healthy server: %s %s: %s", f.Rule, f.Severity, f.Text())
				}
				if f.Rule == "SD313" && !strings.Contains(f.Text(), "cannot tell a sleep-poll loop from a server") {
					t.Errorf("SD313 claims a cause: %s", f.Text())
				}
				if strings.Contains(f.Text(), "more CPU") || strings.Contains(f.Fix, "give the process more CPU") {
					t.Errorf("%s recommends CPU from schedtrace alone: %s / %s", f.Rule, f.Text(), f.Fix)
				}
			}
		})
	}
}

// TestLabPositivesKept: the sleep-poller stays SD313 and the fan-out stays
// an SD302 warning (39ms estimated wait), with a fix that does not
// recommend CPU before a profile or trace.
func TestLabPositivesKept(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"sleeppoll.txt", "SD313:info"},
		{"fanout.txt", "SD302:warning"},
		{"gosched.txt", "SD314:warning"},
		{"mutex-detail.txt", "SD302:info"},
	} {
		f, err := os.Open(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Read(context.Background(), tc.file, f, ReadOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := analyze(tr)
		if got := rules(fs); !strings.Contains(got, tc.want) {
			t.Errorf("%s: rules %q, want %s", tc.file, got, tc.want)
		}
		for _, f := range fs {
			if f.Rule == "SD302" && f.Fix != "" && !strings.Contains(f.Fix, "schedtrace cannot see") && !strings.Contains(f.Fix, "more CPU would not help") {
				t.Errorf("%s: SD302 fix %q", tc.file, f.Fix)
			}
		}
	}
}
