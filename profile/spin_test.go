package profile

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/profile/classify"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// Stacks of the shapes issue 9 found on real programs.
var (
	// A handler busy-waiting in a select with real cases and a default:
	// selectgo and its lock/unlock under the select's line.
	stkSelectGo   = []string{"runtime.selectgo", "main.handler@/app/h.go:37", "net/http.HandlerFunc.ServeHTTP"}
	stkSelectLock = []string{"runtime.procyield", "runtime.lock2", "runtime.lockWithRank > runtime.lock", "runtime.sellock", "runtime.selectgo", "main.handler@/app/h.go:37"}
	// Gosched's cost runs on g0 after mcall: no user frame.
	stkGoschedCut  = []string{"runtime.nanotime", "runtime.(*timers).check", "runtime.findRunnable", "runtime.schedule", "runtime.goschedImpl", "runtime.gosched_m", "runtime.mcall"}
	stkGoschedLock = []string{"runtime.procyieldAsm", "runtime.procyield", "runtime.lock2", "runtime.lockWithRank > runtime.lock", "runtime.goschedImpl", "runtime.gosched_m", "runtime.mcall"}
	stkPoll        = []string{"github.com/x/queue.(*Ring).Poll@/src/queue/ring.go:152", "main.consume@/app/main.go:10"}
	stkPoll2       = []string{"github.com/x/queue.(*Ring).Poll@/src/queue/ring.go:145", "main.consume@/app/main.go:10"}
	// runtime.GC's sweep loop, called by the benchmark harness.
	stkGCSweep     = []string{"runtime.(*sweepLocked).sweep", "runtime.sweepone", "runtime.GC", "testing.(*B).runN", "testing.(*B).run1.func1"}
	stkGCGosched   = []string{"runtime.Gosched", "runtime.GC", "testing.(*B).runN", "testing.(*B).run1.func1"}
	stkBench       = []string{"example.com/m.BenchmarkX@/m/x_test.go:12", "testing.(*B).runN"}
	stkHandOffWake = []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startm", "runtime.wakep", "runtime.ready", "runtime.goready.func1", "runtime.systemstack", "runtime.goready", "runtime.send", "runtime.chansend", "runtime.chansend1", "main.Filter@/app/sieve.go:17"}
	stkChanRecv    = []string{"runtime.chanrecv", "runtime.chanrecv1", "main.Filter@/app/sieve.go:15"}
	stkFlush       = []string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "syscall.write", "internal/poll.(*FD).Write", "net.(*conn).Write", "bufio.(*Writer).Flush", "main.flush@/app/broker.go:80"}
	stkNoDotUser   = []string{"runtime.selectnbrecv", "myapp/worker.spin@/app/worker/w.go:7"}
)

func spinKinds(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if k := SpinKind(f); k != "" {
			out = append(out, k+":"+f.Severity.String())
		}
	}
	return out
}

// stkSend is a producer keeping a select's channel ready.
var stkSend = []string{"runtime.chansend", "runtime.chansend1", "main.produce@/app/h.go:20", "main.main"}

func TestSelectGoIsACandidateNotACertainty(t *testing.T) {
	// A select at 60% of the CPU beside a producer's sends at 35%: it may
	// be an always-ready blocking select (the lab timerloop's fixed twin:
	// 69–84% in select, 24–26% in communications), so info, never
	// warning, while communications complete at SelectCommShare or more.
	res, err := Analyze([]*profile.Profile{mix(2, stkSelectGo, 0.4, stkSelectLock, 0.8, stkSend, 0.7, stkUser, 0.1)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := spinKinds(res.Findings); len(got) != 1 || got[0] != "select:info" {
		t.Fatalf("SD204 kinds %v, want [select:info]\n%s", got, describe(res))
	}
	var f finding.Finding
	for _, g := range res.Findings {
		if SpinKind(g) != "" {
			f = g
		}
	}
	if len(f.Locations) == 0 || f.Locations[0].Line != 37 || !slices.Equal(f.Hints(), []finding.Hint{finding.HintSourceDir}) {
		t.Errorf("finding %+v: want the select's line 37 and the -src hint", f)
	}
	if rules(res.Findings, finding.Warning) != nil {
		t.Errorf("warnings %v from selectgo beside a producer", rules(res.Findings, finding.Warning))
	}
	var c *Candidate
	for i := range res.Summary.Candidates {
		if res.Summary.Candidates[i].Kind == CandSelect {
			c = &res.Summary.Candidates[i]
		}
	}
	if c == nil || c.Line != 37 || c.Share < 55 || c.Cores < 0.55 {
		t.Fatalf("select candidate %+v, want line 37 at ~60%% and ~0.6 cores", c)
	}
	// The per-line CPU lets the join sum a loop: the select line holds the
	// select frames and the lock under them.
	if l := res.Summary.UserLines[0]; l.Line != 37 || l.SpinShare < 55 {
		t.Errorf("top user line %+v, want line 37 with its spin share", l)
	}
}

// TestSelectGoAloneWarnsByCost: 95% of the CPU in selectgo and the lock
// under it, no parking, 5% elsewhere, no communication completed (issue
// 20's busy handler without its source): the select neither blocks nor
// receives, so the cost decides: critical at 0.95 cores. Fails on the code that made selectgo
// info whatever its share.
func TestSelectGoAloneWarnsByCost(t *testing.T) {
	for _, c := range []struct {
		name    string
		seconds float64 // the profile's duration: the same samples over more time cost fewer cores
		want    finding.Severity
	}{
		{"a whole core", 2, finding.Critical},
		{"half a core", 4, finding.Warning},
		{"cheap", 60, finding.Info},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Analyze([]*profile.Profile{mix(c.seconds, stkSelectGo, 0.6, stkSelectLock, 1.3, stkUser, 0.1)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := spinKinds(res.Findings); len(got) != 1 || got[0] != "select:"+c.want.String() {
				t.Fatalf("SD204 kinds %v, want [select:%s]\n%s", got, c.want, describe(res))
			}
		})
	}
}

func TestSelectGoThatParksIsNoCandidateSpin(t *testing.T) {
	// The same select, but the goroutine parks as often as it runs: a
	// blocking select doing hand-offs.
	res, err := Analyze([]*profile.Profile{mix(2, stkSelectGo, 0.6, stkSchedule, 0.5, stkPark, 0.4)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := spinKinds(res.Findings); len(got) != 0 {
		t.Errorf("SD204 %v on a select that parks\n%s", got, describe(res))
	}
}

func TestGoschedCutNamesTheLoopsOnlyUserCode(t *testing.T) {
	res, err := Analyze([]*profile.Profile{mix(8, stkGoschedCut, 7.0, stkGoschedLock, 1.6, stkPoll, 0.12, stkPoll2, 0.08)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(res.Findings, finding.Warning); len(got) != 1 || got[0] != "SD204" {
		t.Fatalf("warnings %v, want SD204 alone (lock2 under goschedImpl is the yield's, not SD205)\n%s", got, describe(res))
	}
	f := res.Findings[0]
	if len(f.Locations) == 0 || f.Locations[0].File != "/src/queue/ring.go" || f.Locations[0].Line != 152 {
		t.Errorf("locations %v, want ring.go:152 (the only user code between yields)", f.Locations)
	}
	if !strings.Contains(f.Text(), "only user code running is github.com/x/queue.(*Ring).Poll") {
		t.Errorf("message %q does not say why it names Poll", f.Text())
	}
	if sp := res.Summary.spin(CandYield); sp.Share < 95 || sp.CutShare < 95 {
		t.Errorf("yield spin %+v, want the lock2 under goschedImpl counted (~98%%)", sp)
	}
	n := 0
	for _, c := range res.Summary.Candidates {
		if c.Kind == CandCompute && strings.HasSuffix(c.File, "ring.go") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("compute candidates %+v, want Poll's two lines (the join reads them)", res.Summary.Candidates)
	}
}

func TestGoschedSpreadUserCodeStaysUnlocated(t *testing.T) {
	// Cut yields with user CPU spread over two functions: no guess.
	other := []string{"main.other@/app/main.go:40", "main.main"}
	res, err := Analyze([]*profile.Profile{mix(4, stkGoschedCut, 3.0, stkPoll, 0.3, other, 0.3)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Rule == "SD204" && len(f.Locations) > 0 {
			t.Errorf("SD204 located at %v although the user CPU is spread", f.Locations)
		}
	}
}

func TestRuntimeGCIsNotASpinNorPressure(t *testing.T) {
	// A 0 allocs/op benchmark: the harness's runtime.GC sweeps and yields.
	res, err := Analyze([]*profile.Profile{mix(4, stkGCSweep, 1.0, stkGCGosched, 0.2, stkGoschedCut, 1.2, stkBench, 1.6)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := spinKinds(res.Findings); len(got) != 0 {
		t.Errorf("SD204 %v for runtime.GC's own sweep loop\n%s", got, describe(res))
	}
	if res.Summary.ForcedGCYieldShare < 29 {
		t.Errorf("forced-GC yield share %.1f, want the cut Gosched (30%%) attributed to runtime.GC", res.Summary.ForcedGCYieldShare)
	}
	var gc *finding.Finding
	for i, f := range res.Findings {
		if f.Rule == "SD207" {
			gc = &res.Findings[i]
		}
	}
	if gc == nil || gc.Severity != finding.Info || !strings.Contains(gc.What, "forced by runtime.GC()") || !strings.Contains(gc.Because, "called by testing.(*B).runN") ||
		strings.Contains(gc.Text(), "allocat") && !strings.Contains(gc.Text(), "not the program's allocation") {
		t.Fatalf("SD207 %+v, want info naming the harness's runtime.GC", gc)
	}
	for _, l := range gc.Locations {
		if !finding.UserFunction(l.Function) {
			t.Errorf("SD207 located at %v, a non-user frame", l)
		}
	}
}

func TestHandOffChurnIsReportedNotHidden(t *testing.T) {
	// The prime sieve: channel work above the churn used to hide it.
	res, err := Analyze([]*profile.Profile{mix(4, stkChanRecv, 2.4, stkSchedule, 0.7, stkHandOffWake, 0.3, stkPark, 0.2, stkUser, 0.2)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f *finding.Finding
	for i := range res.Findings {
		if res.Findings[i].Rule == "SD201" {
			f = &res.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("no SD201\n%s", describe(res))
	}
	if f.Severity != finding.Info || !strings.Contains(f.Text(), "channel hand-off") || !strings.Contains(f.Text(), "100% of the wake-ups") {
		t.Errorf("SD201 %s %q: want info naming the hand-off and the measured driver", f.Severity, f.Text())
	}
	if len(f.Locations) == 0 || !strings.HasSuffix(f.Locations[0].File, "sieve.go") {
		t.Errorf("SD201 at %v, want the sieve's channel line", f.Locations)
	}
	if d := res.Summary.WakeDrivers; len(d) != 1 || !strings.HasPrefix(d[0].Driver, "channel operations") {
		t.Errorf("wake drivers %+v", d)
	}
}

func TestSleepPollChurnStaysAWarning(t *testing.T) {
	res, err := Analyze([]*profile.Profile{mix(2, stkWake, 0.3, stkPark, 0.2, stkSleep, 0.2, stkUser, 0.3)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(res.Findings, finding.Warning); len(got) == 0 || got[0] != "SD201" {
		t.Fatalf("warnings %v, want SD201", got)
	}
	if !strings.Contains(res.Findings[0].Text(), "because of timers") {
		t.Errorf("message %q does not name the timer driver", res.Findings[0].Text())
	}
}

func TestSyscallsThroughBufioAreNotAdvisedToBuffer(t *testing.T) {
	for _, c := range []struct {
		name    string
		p       *profile.Profile
		warn    bool
		batched bool
	}{
		{"a write per record", mix(2, stkWrite, 1.2, stkUser, 0.6), true, false},
		{"a broker flushing bufio", mix(2, stkFlush, 1.2, stkUser, 0.6), false, true},
		{"a write per record at 0.10 cores", mix(10, stkWrite, 1.0, stkUser, 0.5), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Analyze([]*profile.Profile{c.p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var f *finding.Finding
			for i := range res.Findings {
				if res.Findings[i].Rule == "SD209" {
					f = &res.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no SD209\n%s", describe(res))
			}
			if got := f.Severity >= finding.Warning; got != c.warn {
				t.Errorf("severity %s, want warning=%v: %s", f.Severity, c.warn, f.Text())
			}
			if c.batched && (strings.Contains(f.Fix, "buffer the I/O") || !strings.Contains(f.Text(), "already come through batching")) {
				t.Errorf("batched syscalls advised to buffer: %q / %q", f.Text(), f.Fix)
			}
		})
	}
}

func TestThinProfileSaysSo(t *testing.T) {
	thin, err := Analyze([]*profile.Profile{mix(8, stkUser, 0.19)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(thin.Summary.Thin, "only 19 samples") || !strings.Contains(thin.Summary.Thin, "at least 30s") {
		t.Errorf("thin note %q", thin.Summary.Thin)
	}
	if got := thin.Summary.ThinEvidence(); got != thin.Summary.Thin {
		t.Errorf("ThinEvidence %q, want the Thin note %q (the renderers print it at the top)", got, thin.Summary.Thin)
	}
	enough, err := Analyze([]*profile.Profile{mix(8, stkUser, 2.0)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if enough.Summary.Thin != "" {
		t.Errorf("200 samples over 8s called thin: %q", enough.Summary.Thin)
	}
}

func TestModuleWithoutDotIsUserCode(t *testing.T) {
	res, err := Analyze([]*profile.Profile{mix(2, stkNoDotUser, 1.9)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || len(res.Findings[0].Locations) == 0 || res.Findings[0].Locations[0].Function != "myapp/worker.spin" {
		t.Fatalf("findings %+v, want SD204 at myapp/worker.spin", res.Findings)
	}
}

// TestNoLocationOutsideUserCode: whatever the cause, a finding never
// names a runtime, standard-library or testing frame; with no user frame
// it says so.
func TestNoLocationOutsideUserCode(t *testing.T) {
	harness := []string{"runtime.asyncPreempt", "runtime/internal/x.f@/usr/local/go/src/runtime/preempt.go:320", "testing.(*B).runN@/usr/local/go/src/testing/benchmark.go:200"}
	for _, p := range []*profile.Profile{
		mix(2, harness, 1.0, stkUser, 1.0),
		mix(2, harness, 1.9),
		mix(4, stkGCSweep, 1.0, stkGCGosched, 0.2, stkGoschedCut, 1.2),
		mix(2, stkWake, 0.3, stkPark, 0.2, stkSleep, 0.2, stkUser, 0.3),
		mix(2, stkFlush, 1.2, stkUser, 0.6),
	} {
		res, err := Analyze([]*profile.Profile{p}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			for _, l := range f.Locations {
				if !finding.UserFunction(l.Function) || strings.HasPrefix(l.File, "/usr/local/go/") {
					t.Errorf("%s located at %v: not user code", f.Rule, l)
				}
			}
			if len(f.Locations) == 0 && !strings.Contains(f.Text(), "no user frame") {
				t.Errorf("%s has no location and does not say why: %s", f.Rule, f.Text())
			}
		}
	}
}

// TestBecauseFromMeasuredFigures: each message names the dominant
// measured reason, not a template.
func TestBecauseFromMeasuredFigures(t *testing.T) {
	for _, c := range []struct {
		name, rule, want string
		p                *profile.Profile
	}{
		{"timers made per iteration", "SD203", "because of timers made (time.After, NewTimer, AfterFunc, NewTicker) (100% of the timer CPU)", mix(2, stkTimerNew, 0.8, stkUser, 1.0)},
		{"sleeps", "SD203", "because of time.Sleep calls (100% of the timer CPU)", mix(2, stkSleep, 0.8, stkUser, 1.0)},
		{"mutex spinning", "SD206", "because 100% of it is spinning for the lock", mix(2, stkMutex, 1.0, stkUser, 1.0)},
		{"preemption", "SD208", "while the process ran at 1.00 cores", mix(2, stkPreempt, 1.0, stkUser, 1.0)},
		{"idle Ps", "SD202", "the program's own code runs at 57% of CPU", mix(2, stkSteal, 0.6, stkUser, 0.8)},
		{"runtime lock under a select that parks", "SD205", "because runtime.sellock takes it (100% of the runtime-lock CPU)", mix(2, stkRTLock, 0.6, stkUser, 1.0, stkSchedule, 0.4)},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Analyze([]*profile.Profile{c.p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if f.Rule == c.rule {
					if !strings.Contains(f.Text(), c.want) {
						t.Errorf("%s message %q, want %q", c.rule, f.Text(), c.want)
					}
					return
				}
			}
			t.Fatalf("no %s\n%s", c.rule, describe(res))
		})
	}
}

func TestUserStacksWalkInlinedCallers(t *testing.T) {
	// minGate inlined into put (one location, inner frame first), called
	// from a producer through a standard-library frame: the chain keeps the
	// user frames leaf first and leaves the others out.
	p := synth.Build(2e9,
		synth.Stack{Nanos: 6e8, Locs: []string{"main.(*ring).minGate@/app/ring.go:70 > main.(*ring).put@/app/ring.go:89",
			"sync.(*Once).Do", "main.pipeline.func1@/app/ring.go:145", "runtime.goexit"}},
		synth.Stack{Nanos: 2e8, Locs: []string{"main.(*ring).minGate@/app/ring.go:71 > main.(*ring).put@/app/ring.go:89",
			"main.pipeline.func1@/app/ring.go:145"}},
		synth.Stack{Nanos: 2e8, Locs: []string{"runtime.nanotime", "runtime.schedule", "runtime.mcall"}},
	)
	res, err := Analyze([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Summary.UserStacks
	if len(st) != 2 {
		t.Fatalf("stacks %+v, want the two user chains (the cut one has none)", st)
	}
	var got []string
	for _, f := range st[0].Frames {
		got = append(got, fmt.Sprintf("%s:%d", f.Function, f.Line))
	}
	if want := "main.(*ring).minGate:70 main.(*ring).put:89 main.pipeline.func1:145"; strings.Join(got, " ") != want {
		t.Errorf("heaviest chain %q, want %q", strings.Join(got, " "), want)
	}
	if st[0].Share != 60 || st[1].Share != 20 {
		t.Errorf("shares %.1f, %.1f, want 60 and 20", st[0].Share, st[1].Share)
	}
}

// TestRecordedSelectSpinAndItsWorkTwin reads recordings of
// testdata/spinwork (issue 20's handler wait, recorded on the shared
// 2-CPU machine at 0.56 cores) with no source: the select spin (90% in
// selectgo) warns by its cost at its select line; the same loop whose
// default hashes a buffer (98% of its CPU in SHA-256) has no busy-wait
// finding; the lab timerloop's fixed twin (a producer keeping a blocking
// select's channel ready, 69% and 84% in select frames) warns of nothing.
func TestRecordedSelectSpinAndItsWorkTwin(t *testing.T) {
	for _, c := range []struct {
		file string
		want finding.Severity // of SD204; -1: none
		line int
	}{
		{"spinwork-select", finding.Warning, 31},
		{"spinwork-work", -1, 0},
		{"timerloop-fixed", finding.Info, 0},
		{"timerloop-fixed-84", finding.Info, 0}, // 84% in select frames, 24% in communications
	} {
		t.Run(c.file, func(t *testing.T) {
			p, err := ReadFile(context.Background(), filepath.Join("testdata", "lab", c.file+".pb.gz"), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Analyze([]*profile.Profile{p}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var sd []finding.Finding
			for _, f := range res.Findings {
				if f.Rule == "SD204" {
					sd = append(sd, f)
				}
				if f.Rule != "SD204" && f.Severity >= finding.Warning {
					t.Errorf("warning %s: %s", f.Rule, f.Text())
				}
			}
			switch {
			case c.want < 0 && len(sd) > 0:
				t.Errorf("the loop's work called a busy wait: %+v", sd)
			case c.want == finding.Info && len(sd) > 0 && sd[0].Severity > finding.Info:
				t.Errorf("an always-ready blocking select warned: %s", sd[0].Text())
			case c.want >= finding.Warning && (len(sd) != 1 || sd[0].Severity < c.want):
				t.Fatalf("SD204 %+v, want one at %s or above\n%s", sd, c.want, describe(res))
			case c.want >= finding.Warning && (sd[0].Locations[0].Line != c.line ||
				!strings.HasSuffix(sd[0].Locations[0].File, "spinwork/main.go")):
				t.Errorf("SD204 at %v, want spinwork/main.go:%d", sd[0].Locations, c.line)
			}
		})
	}
}

// TestSD204DocQuotesTheThresholds: the rule's docs quote the numbers the
// code uses (one place for each threshold): RuleThresholds, which
// internal/ruledocs renders into the SD204 page, carries each of them.
func TestSD204DocQuotesTheThresholds(t *testing.T) {
	th := RuleThresholds()["SD204"]
	for _, want := range []float64{finding.SpinWarningCores, finding.SpinCriticalCores, finding.SpinCriticalShare,
		SelectCommShare, SpinWorkShare, DefaultThresholds.BusyWait.Share, float64(DefaultThresholds.MinSamples),
		DefaultThresholds.MaxParkRatio} {
		if !slices.ContainsFunc(th, func(t finding.Threshold) bool { return t.Value == want }) {
			t.Errorf("SD204's thresholds lack %v: %+v", want, th)
		}
	}
}

// TestLockedThreadYieldIsAYieldSpin reads a recording of
// testdata/lockedyield: a goroutine locked to its thread spinning on
// runtime.Gosched beside workers that compute now and then. Each yield
// hands the P to another thread and back (stoplockedm, startlockedm):
// that futex and handoffp churn is the yield's cost, so the profile gives
// SD204 (yield) at warning, and no SD201 "a spinning M" with a sleep-poll
// fix; the workers' code is not named as the loop. The close negative: a
// locked goroutine restarted after a real wait (startlockedm with no
// locked yield in the profile) stays thread churn. Fails on the old
// classifier (SD201 warning, 14% yield).
func TestLockedThreadYieldIsAYieldSpin(t *testing.T) {
	p, err := ReadFile(context.Background(), filepath.Join("testdata", "lab", "lockedyield.pb.gz"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := spinKinds(res.Findings); len(got) != 1 || got[0] != "yield:warning" {
		t.Errorf("SD204 kinds %v, want [yield:warning]\n%s", got, describe(res))
	}
	for _, f := range res.Findings {
		if f.Rule == "SD201" && f.Severity >= finding.Warning {
			t.Errorf("the locked yield's hand-offs called thread churn: %s", f.Text())
		}
		for _, l := range f.Locations {
			if l.Function == "main.work" && f.Rule == "SD204" {
				t.Errorf("the workers' code named as the yield loop: %v", f.Locations)
			}
		}
	}

	stkStartLocked := []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startlockedm",
		"runtime.schedule", "runtime.park_m", "runtime.mcall"}
	res, err = Analyze([]*profile.Profile{mix(2, stkStartLocked, 0.5, stkUser, 0.5)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := spinKinds(res.Findings); len(got) != 0 {
		t.Errorf("a locked goroutine's restart with no locked yield called a yield spin: %v", got)
	}
	if r := res.Summary.row(classify.ThreadChurn); r.Share < 40 {
		t.Errorf("thread churn %.0f%%, want the restarts (50%%) there", r.Share)
	}
}
