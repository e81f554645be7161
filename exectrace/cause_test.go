package exectrace

import (
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// spinBase is base() with one site whose goroutines hold 90% of the Ps'
// busy time in stretches that end in preemption, blocking once per
// request (issue 9's busy handler), queueing others behind them.
func spinBase() *Summary {
	s := base()
	s.Procs.BusyMean = 2
	s.Sites[0].Preempts, s.Sites[0].Blocked = 63, 114
	s.Sites[0].Running, s.Sites[0].StopRunPct = 1800*time.Millisecond, 99.8
	s.Sites[0].HotLine = finding.Location{File: "/src/app/main.go", Line: 53, Function: "main.handler"}
	s.Sites[0].Samples = 100
	s.Runnable = RunnableSummary{Mean: 3.8, Max: 8, AboveProcsPct: 92}
	s.Latency.Woken.P99 = 25 * time.Millisecond
	respin(s)
	return s
}

func find(fs []finding.Finding, rule string) *finding.Finding {
	for i := range fs {
		if fs[i].Rule == rule {
			return &fs[i]
		}
	}
	return nil
}

func TestSpinCause(t *testing.T) {
	s := spinBase()
	if len(s.Spinning) != 1 || s.SpinPct < 80 {
		t.Fatalf("spinning = %+v (%.1f%%), want the site at 90%%", s.Spinning, s.SpinPct)
	}
	// Without source: compute or spin, and no "add CPU".
	fs := Findings(s, Options{}, nil)
	for _, rule := range []string{"SD301", "SD302"} {
		f := find(fs, rule)
		if f == nil {
			t.Fatalf("no %s in %v", rule, rules(fs))
		}
		if !strings.Contains(f.Text(), "90% of the Ps' busy time is goroutines running main.worker") || !strings.Contains(f.Text(), "compute or spin") {
			t.Errorf("%s does not name the spinning site: %s", rule, f.Text())
		}
		if strings.Contains(strings.ToLower(f.Fix), "add cpu") || strings.Contains(f.Text(), "needs more CPU") {
			t.Errorf("%s advises more CPU for a possible spin: %s / %s", rule, f.Text(), f.Fix)
		}
		if len(f.Locations) == 0 || f.Locations[0].Line != 53 {
			t.Errorf("%s locations = %v, want the hot line 53 first", rule, f.Locations)
		}
	}
	// Named as the spin's consequence, the symptom does not warn on its
	// own: with the source saying spin, SD308 carries the cost.
	judged := Findings(s, Options{}, func(SpinSite) *Verdict {
		return &Verdict{Spin: true, Kind: "select-default", Detail: "select at line 53 has a default",
			Line: finding.Location{File: "/app/main.go", Line: 53}}
	})
	for _, rule := range []string{"SD301", "SD302"} {
		if f := find(judged, rule); f != nil && f.Severity != finding.Info {
			t.Errorf("%s explained by a spin is %s, want info", rule, f.Severity)
		}
	}
	if f := find(fs, "SD308"); f == nil || f.Severity != finding.Info || !strings.Contains(f.Text(), "compute or spin") {
		t.Errorf("SD308 without source = %+v, want info compute or spin", f)
	}

	// The source shows a spin: SD308 at warning or above at the select, from both sources.
	spin := func(SpinSite) *Verdict {
		return &Verdict{Spin: true, Kind: "select-default", Detail: "busy-waits in a select with a default",
			Line: finding.Location{File: "/src/app/main.go", Line: 51, Function: "main.handler"}, Fix: "remove the default"}
	}
	fs = Findings(s, Options{}, spin)
	f := find(fs, "SD308")
	if f == nil || f.Severity < finding.Warning || f.Locations[0].Line != 51 || len(f.Sources) != 2 {
		t.Fatalf("SD308 with a spin verdict = %+v", f)
	}
	if g := find(fs, "SD302"); g == nil || !strings.Contains(g.Text(), "in a loop that busy-waits in a select with a default at app/main.go:51") || g.Locations[0].Line != 51 {
		t.Errorf("SD302 does not name the spin: %+v", g)
	}

	// The source shows computation: SD308 stays info, and the backlog may
	// then say the work needs more CPU.
	compute := func(SpinSite) *Verdict {
		return &Verdict{Compute: true, Kind: "compute", Detail: "no wait and no spin operation"}
	}
	fs = Findings(s, Options{}, compute)
	if f := find(fs, "SD308"); f == nil || f.Severity != finding.Info || !strings.Contains(f.Text(), "compute at app/main.go:53") {
		t.Errorf("SD308 with a compute verdict = %+v", f)
	}
	if g := find(fs, "SD302"); g == nil || !strings.Contains(g.Text(), "the work needs more CPU") {
		t.Errorf("SD302 with a compute verdict = %+v", g)
	}
}

// A site that holds little of the busy time does not explain the backlog.
func TestSpinCauseMinor(t *testing.T) {
	s := spinBase()
	s.Sites[0].Running = 300 * time.Millisecond // 15% of 2 Ps' time
	respin(s)
	f := find(Findings(s, Options{}, nil), "SD302")
	if f == nil || strings.Contains(f.Text(), "run until preempted (") || strings.Contains(f.Text(), "Ps' busy time is goroutines") {
		t.Errorf("SD302 blames a minor site: %+v", f)
	}
}

func TestHostWithheld(t *testing.T) {
	s := base()
	s.Procs = ProcSummary{GOMAXPROCS: 2, BusyMean: 1.92, ProcessCPU: 600 * time.Millisecond, ProcessCPUFrom: "given", ProcessCores: 0.6, BusyPerCorePct: 320}
	s.Syscalls.Sites = []SyscallSite{{Location: finding.Location{File: "/src/app/io.go", Line: 30, Function: "main.write"}, Count: 1e5, Handoffs: 120}}
	fs := Findings(s, Options{}, nil)
	if f := find(fs, "SD303"); f == nil || !strings.Contains(f.Text(), "host withheld CPU") {
		t.Errorf("SD303 = %+v, want the host named", f)
	}
	f := find(fs, "SD305")
	if f == nil || !strings.Contains(f.Text(), "host withheld CPU") || strings.HasPrefix(f.Fix, "Buffer and batch") {
		t.Errorf("SD305 = %+v, want the host as cause and no batching advice", f)
	}
	// Close negative: the process got about what the Ps were busy.
	s.Procs.ProcessCores, s.Procs.BusyPerCorePct, s.Procs.ProcessCPU = 1.8, 107, 1800*time.Millisecond
	fs = Findings(s, Options{}, nil)
	if find(fs, "SD303") != nil {
		t.Errorf("SD303 with the CPU the Ps used: %v", rules(fs))
	}
	if f := find(fs, "SD305"); f == nil || strings.Contains(f.Text(), "host") {
		t.Errorf("SD305 = %+v, want the syscalls' own cause", f)
	}
}

func TestQueueReason(t *testing.T) {
	s := base()
	s.Runnable = RunnableSummary{Mean: 6, Max: 10, AboveProcsPct: 80}
	s.Latency.Woken.P99 = 100 * time.Microsecond
	// issue 9: 219 preemptions and 19 million channel wake-ups
	s.Latency.ByReason = []ReasonLatency{
		{Reason: wakeNames[wakePreempted], Percentiles: Percentiles{Count: 219, Total: 200 * time.Millisecond}},
		{Reason: wakeNames[wakeChan], Percentiles: Percentiles{Count: 19e6, Total: 40 * time.Second, P99: 90 * time.Microsecond}},
	}
	f := find(Findings(s, Options{}, nil), "SD302")
	if f == nil || strings.Contains(f.Text(), "queue after preemption") || !strings.Contains(f.Text(), "most after channel or select") {
		t.Errorf("SD302 = %+v, want channel wake-ups named", f)
	}
	s.Latency.ByReason[0].Total = 80 * time.Second
	f = find(Findings(s, Options{}, nil), "SD302")
	if f == nil || !strings.Contains(f.Text(), "followed a preemption") {
		t.Errorf("SD302 = %+v, want preemptions named", f)
	}
}

func TestBlockWord(t *testing.T) {
	st := &SiteSummary{Preempts: 500, Blocked: 10, Blocks: []BlockCount{{Reason: wakeNames[wakePreempted], Count: 10}}}
	if w := blockWord(st); strings.Contains(w, "block on preempted") || !strings.HasPrefix(w, "are preempted") {
		t.Errorf("blockWord = %q", w)
	}
	st = &SiteSummary{Preempts: 1, Blocked: 900, Blocks: []BlockCount{{Reason: wakeNames[wakeChan], Count: 800}}}
	if w := blockWord(st); !strings.HasPrefix(w, "block on a channel or select (800 of 900") {
		t.Errorf("blockWord = %q", w)
	}
}

func TestForcedGC(t *testing.T) {
	s := base()
	s.GC = GCSummary{Cycles: 40, ForcedCycles: 40, STWPct: 6, STW: Percentiles{Count: 80, Total: 60 * time.Millisecond},
		STWForced: 58 * time.Millisecond,
		ForcedBy:  []LocTime{{finding.Location{File: "/go/src/testing/benchmark.go", Line: 100, Function: "testing.(*B).runN"}, 58 * time.Millisecond}}}
	f := find(Findings(s, Options{}, nil), "SD306")
	if f == nil || f.Severity != finding.Info || strings.Contains(f.Text(), "allocates") || !strings.Contains(f.Text(), "testing harness") {
		t.Errorf("SD306 for the harness's GCs = %+v", f)
	}
	s.GC.ForcedBy[0].Location = finding.Location{File: "/src/app/main.go", Line: 70, Function: "main.flush"}
	f = find(Findings(s, Options{}, nil), "SD306")
	if f == nil || f.Severity != finding.Warning || len(f.Locations) == 0 || f.Locations[0].Line != 70 {
		t.Errorf("SD306 for the user's runtime.GC calls = %+v", f)
	}
	s.GC.STWForced = 0
	f = find(Findings(s, Options{}, nil), "SD306")
	if f == nil || !strings.Contains(f.Text(), "allocates") {
		t.Errorf("SD306 for allocation = %+v", f)
	}
}

func TestTails(t *testing.T) {
	s := base()
	s.GC.STWLongest = []Stall{{At: 1200 * time.Millisecond, Duration: 58 * time.Millisecond, What: "GC mark termination"},
		{At: 300 * time.Millisecond, Duration: 17 * time.Millisecond, What: "GC sweep termination"},
		{At: 700 * time.Millisecond, Duration: 9 * time.Millisecond, What: "GC sweep termination"}}
	f := find(Findings(s, Options{}, nil), "SD306")
	if f == nil || !strings.Contains(f.Text(), "2 stop-the-world pauses of 10ms or more, the longest 58ms") || !strings.Contains(f.Text(), "58ms at 1.2s (GC mark termination)") {
		t.Errorf("STW tail = %+v", f)
	}
	s.GC.STWLongest = s.GC.STWLongest[2:]
	if f := find(Findings(s, Options{}, nil), "SD306"); f != nil {
		t.Errorf("a 9ms pause reported: %s", f.Text())
	}
	s.Latency.Woken.P99 = 15700 * time.Microsecond
	s.Latency.WokenLongest = []Stall{{At: 2 * time.Second, Duration: 31 * time.Millisecond, What: "network"}}
	f = find(Findings(s, Options{}, nil), "SD301")
	if f == nil || f.Severity != finding.Info || !strings.Contains(f.Text(), "31ms at 2s (network)") {
		t.Errorf("wake tail = %+v", f)
	}
}

func TestUserLocs(t *testing.T) {
	in := []finding.Location{{File: "/go/src/runtime/preempt.go", Line: 320, Function: "runtime.asyncPreempt"},
		{File: "/src/app/a.go", Line: 3, Function: "main.f"}, {File: "/src/app/a.go", Line: 3, Function: "main.f"}}
	out := userLocs(in)
	if len(out) != 1 || out[0].Function != "main.f" {
		t.Errorf("userLocs = %v", out)
	}
	if out := userLocs(in[:1]); len(out) != 1 {
		t.Errorf("userLocs with no user frame = %v, want the frame kept", out)
	}
}

// busyhandler-samples.trace was recorded with a CPU profile running on a
// crowded machine (load average 14 on 2 CPUs): its 31 CPU samples put the
// spin at the select's case line and show the host gave the process 0.3
// cores while its Ps were busy 2.0.
func TestSamplesFixture(t *testing.T) {
	res := analyzeFile(t, "busyhandler-samples", Options{})
	p := res.Summary.Procs
	if p.ProcessCPUFrom != "cpu samples" || p.CPUSamples < samplesMinimum || p.BusyPerCorePct < withheldPct {
		t.Fatalf("procs = %+v, want the process CPU from the samples, far below the busy Ps", p)
	}
	if len(res.Summary.Spinning) == 0 {
		t.Fatal("no spinning site")
	}
	sp := res.Summary.Spinning[0]
	if sp.HotFrom != "cpu samples" || !strings.HasSuffix(sp.HotLine.File, "busyhandler/main.go") || sp.SpinCodePct < 50 {
		t.Errorf("spinning site = %+v, want its hot line from the samples, in select code", sp)
	}
	f := find(res.Findings, "SD303")
	if f == nil || f.Severity != finding.Warning || !strings.Contains(f.Text(), "host withheld CPU") {
		t.Errorf("SD303 = %+v, want the host named", f)
	}
	for _, f := range res.Findings {
		if strings.Contains(strings.ToLower(f.Fix), "add cpu") {
			t.Errorf("%s advises more CPU: %s", f.Rule, f.Fix)
		}
	}
}

// A stop-the-world share made by one long pause is a tail, not allocation
// (go-httpbin in the corpus: 6.0% from one 87ms pause).
func TestSTWShareFromTail(t *testing.T) {
	s := base()
	s.GC = GCSummary{Cycles: 6, STWPct: 6, STW: Percentiles{Count: 20, Total: 60 * time.Millisecond},
		STWLongest: []Stall{{At: 700 * time.Millisecond, Duration: 50 * time.Millisecond, What: "GC sweep termination"}}}
	fs := Findings(s, Options{}, nil)
	if len(fs) != 1 || fs[0].Rule != "SD306" || fs[0].Severity != finding.Info || strings.Contains(fs[0].Text(), "allocates") {
		t.Errorf("got %v: %v", rules(fs), fs)
	}
	s.GC.STWLongest[0].Duration = 5 * time.Millisecond // the share is steady: allocation
	fs = Findings(s, Options{}, nil)
	if f := find(fs, "SD306"); f == nil || f.Severity != finding.Warning || !strings.Contains(f.Text(), "allocates") {
		t.Errorf("got %v", fs)
	}
}
