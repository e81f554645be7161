package diagnose

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// spinTrace is issue 9's busy handler as trace figures: the handler's
// goroutines hold 90% of the Ps' busy time, their running stretches end
// in preemption, and they block once per request (114 blocks); the CPU
// samples put them at line 53, preemptions at line 57.
func spinTrace() *exectrace.Result { return spinTraceCode(95) }

// spinTraceCode is spinTrace with spinCode % of the CPU samples in select
// or yield code: a low share leaves the trace unable to tell compute from
// a spin on a load.
func spinTraceCode(spinCode float64) *exectrace.Result {
	site := exectrace.SiteSummary{
		Creator:  finding.Location{File: "/app/h.go", Line: 86, Function: "main.serve.func1"},
		Function: "net/http.(*conn).serve", Goroutines: 2, Running: 1800 * time.Millisecond,
		Preempts: 63, Blocked: 114, StopRunPct: 99.8, MeanRun: 5 * time.Millisecond, Samples: 100,
		StopAt:  finding.Location{File: "/app/h.go", Line: 57, Function: "main.handler"},
		HotLine: finding.Location{File: "/app/h.go", Line: 53, Function: "main.handler"},
	}
	s := &exectrace.Summary{
		Trace:    exectrace.TraceInfo{Duration: time.Second, Generations: 1},
		Procs:    exectrace.ProcSummary{GOMAXPROCS: 2, BusyMean: 2},
		Runnable: exectrace.RunnableSummary{Mean: 3.8, Max: 8, AboveProcsPct: 92},
		Sites:    []exectrace.SiteSummary{site},
		Spinning: []exectrace.SpinSite{{Function: site.Function, Creator: site.Creator, HotLine: site.HotLine, HotFrom: "cpu samples",
			StopAt: site.StopAt, Running: site.Running, BusyPct: 90, Cores: 1.8, StopRunPct: 99.8, MeanRun: site.MeanRun,
			Preempts: 63, Blocked: 114, Samples: 100, SpinCodePct: spinCode}},
		SpinPct: 90,
	}
	return &exectrace.Result{Summary: s, Findings: exectrace.Findings(s, exectrace.Options{}, nil)}
}

func traceSelectLoop() *inspect.Loop {
	return &inspect.Loop{Kind: inspect.SelectDefault, Start: 52, End: 62, SpinLine: 53,
		Detail: "select at line 53 has a default that neither blocks nor leaves the loop"}
}

func rule(fs []finding.Finding, id string) *finding.Finding {
	for i := range fs {
		if fs[i].Rule == id {
			return &fs[i]
		}
	}
	return nil
}

func TestTraceSpinConfirmed(t *testing.T) {
	src := &fakeSource{loops: map[string]*inspect.Loop{"/app/h.go:53": traceSelectLoop()}}
	out, err := Trace(spinTrace(), exectrace.Options{}, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	f := rule(out.Findings, "SD308")
	if f == nil || f.Severity < finding.Warning || f.Locations[0].Line != 53 || !slices.Equal(f.Sources, []string{"trace", "lint"}) {
		t.Fatalf("SD308 = %+v, want a warning at the select with both sources", f)
	}
	if !strings.Contains(f.Text(), "select with a default") || !strings.Contains(f.Text(), "114 blocks") {
		t.Errorf("SD308 message lacks the source detail or the figures: %s", f.Text())
	}
	if f.Fix == finding.MustLookup("SD308").Fix {
		t.Errorf("SD308 fix is the generic one: %s", f.Fix)
	}
	g := rule(out.Findings, "SD302")
	if g == nil || !strings.Contains(g.Text(), "busy-waits in a select with a default") || !strings.Contains(g.Text(), "at app/h.go:53") || strings.Contains(strings.ToLower(g.Fix), "add cpu") {
		t.Errorf("SD302 = %+v, want the spin as cause and no CPU advice", g)
	}
	if r := out.Summary.Source; !r.Given || r.Looked != 1 || r.Found != 1 {
		t.Errorf("source report = %+v", r)
	}
	if len(out.Summary.Verdicts) != 1 || !out.Summary.Verdicts[0].Spin {
		t.Errorf("verdicts = %+v", out.Summary.Verdicts)
	}
}

func TestTraceCompute(t *testing.T) {
	src := &fakeSource{loops: map[string]*inspect.Loop{"/app/h.go:53": {Kind: inspect.Compute, Start: 50, End: 55, Detail: "it computes"}}}
	out, err := Trace(spinTraceCode(5), exectrace.Options{}, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if f := rule(out.Findings, "SD308"); f == nil || f.Severity != finding.Info || !strings.Contains(f.Text(), "compute at") {
		t.Errorf("SD308 = %+v, want info compute", f)
	}
}

// The hot line is outside any loop (a callee); where the goroutines were
// preempted is inside the spin: the second candidate decides.
func TestTraceSecondCandidate(t *testing.T) {
	src := &fakeSource{loops: map[string]*inspect.Loop{"/app/h.go:57": traceSelectLoop()}}
	out, err := Trace(spinTrace(), exectrace.Options{}, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if f := rule(out.Findings, "SD308"); f == nil || f.Severity < finding.Warning || f.Locations[0].Line != 53 {
		t.Errorf("SD308 = %+v, want a warning at the select", f)
	}
	if !slices.Equal(src.asked, []string{"/app/h.go:53", "/app/h.go:57"}) {
		t.Errorf("asked %v", src.asked)
	}
}

func TestTraceNoSource(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
		want string
	}{
		{"no reader", Options{}, "not read"},
		{"not found", Options{Source: &fakeSource{}}, "none of the 1 file(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Trace(spinTraceCode(5), exectrace.Options{}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			f := rule(out.Findings, "SD308")
			if f == nil || f.Severity != finding.Info || !strings.Contains(f.Text(), "compute or spin") || len(f.Sources) > 0 {
				t.Errorf("SD308 = %+v, want info compute or spin", f)
			}
			// With its samples in selectgo the cost decides, source or not.
			out, err = Trace(spinTrace(), exectrace.Options{}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if f := rule(out.Findings, "SD308"); f == nil || f.Severity < finding.Warning || !strings.Contains(f.Text(), "in select or yield code") {
				t.Errorf("SD308 = %+v, want a warning by its sampled cost", f)
			}
			if txt := out.Summary.Source.Text(); !strings.Contains(txt, tc.want) {
				t.Errorf("source report %q, want %q", txt, tc.want)
			}
		})
	}
	if _, err := Trace(nil, exectrace.Options{}, Options{}); err == nil {
		t.Error("nil result: want an error")
	}
}

// spinTraceLab are the lab's spins whose trace, joined with the source,
// must give SD308 at warning or above at one of the program's spin
// markers, with no finding that advises more CPU.
var spinTraceLab = []string{"busyhandler", "ringbuffer", "gosched"}

// TestTraceLab records each spinning lab program's trace (with a CPU
// profile, so the trace has CPU samples) and joins it with the source.
// The fixed twins draw no warning, except one the CPU samples show the
// host caused (a measured cause, true of any program on a crowded machine).
func TestTraceLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab programs")
	}
	bins := labtest.Build(t, spinTraceLab...)
	for _, name := range spinTraceLab {
		t.Run(name, func(t *testing.T) {
			marks, err := lab.Markers(name)
			if err != nil {
				t.Fatal(err)
			}
			want := append(append(append([]lab.Marker{}, marks["SD308"]...), marks["SD106"]...), marks["SD101"]...)
			want = append(want, marks["SD204"]...)
			var got *finding.Finding
			var out *TraceResult
			for attempt := 1; attempt <= 3 && got == nil; attempt++ {
				out = traceLab(t, bins[name], false, time.Duration(attempt)*time.Second)
				for i, f := range out.Findings {
					if f.Rule == "SD308" && f.Severity >= finding.Warning && atMarker(f, want) {
						got = &out.Findings[i]
					}
				}
				if got == nil {
					t.Logf("attempt %d: no SD308 warning at %v:\n%s", attempt, want, traceText(out))
				}
			}
			if got == nil {
				t.Fatal("no SD308 warning at a spin marker in three runs")
			}
			if name != "gosched" && !slices.Contains(got.Sources, "lint") {
				t.Errorf("SD308 without the source's evidence: %+v", got)
			}
			for _, f := range out.Findings {
				if strings.Contains(f.Text(), "needs more CPU") || strings.Contains(strings.ToLower(f.Fix), "add cpu") {
					t.Errorf("%s advises more CPU for a spin: %s / %s", f.Rule, f.Text(), f.Fix)
				}
			}
			fixed := traceLab(t, bins[name], true, time.Second)
			for _, f := range fixed.Findings {
				if f.Severity < finding.Warning {
					continue
				}
				if strings.Contains(f.Text(), "host withheld CPU") {
					t.Logf("host-caused %s on a crowded machine: %s", f.Rule, f.Text())
					continue
				}
				t.Errorf("fixed twin warned: %s %s\n%s", f.Rule, f.Text(), traceText(fixed))
			}
		})
	}
}

// traceLab runs a lab program for d with a trace and a CPU profile, and
// joins the trace's analysis with the lab's source.
func traceLab(t *testing.T, bin string, fixed bool, d time.Duration) *TraceResult {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "trace.out")
	args := []string{"-duration", d.String(), "-trace", file, "-cpuprofile", filepath.Join(dir, "cpu.pb.gz")}
	if fixed {
		args = append(args, "-fixed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, b)
	}
	tr, err := exectrace.ReadFile(ctx, file, exectrace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exectrace.Analyze(tr, exectrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Trace(res, exectrace.Options{}, Options{Source: &inspect.Resolver{}})
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Summary.Source; r.Looked > 0 && r.Found == 0 {
		t.Fatalf("the lab's source was not found: %s", r.Text())
	}
	return out
}

func traceText(out *TraceResult) string {
	var b strings.Builder
	b.WriteString(out.Summary.Source.Text() + "\n")
	for _, v := range out.Summary.Verdicts {
		b.WriteString("  verdict " + v.File + ":" + itoa(v.Line) + " " + string(v.Kind) + " " + v.Detail + "\n")
	}
	for _, f := range out.Findings {
		b.WriteString(f.Rule + " " + f.Severity.String() + ": " + f.Text() + "\n")
		for _, l := range f.Locations {
			b.WriteString("    at " + l.File + ":" + itoa(l.Line) + "\n")
		}
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
