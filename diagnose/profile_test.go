package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/inspect"
	"github.com/schedoctor/schedoctor/profile"
)

// build makes a CPU profile of seconds from stacks (leaf first, frames
// "fn" or "fn@/file.go:12", inlined frames joined by " > ", inner first)
// each holding the given CPU seconds, at 100 Hz.
func build(seconds float64, parts ...any) *pprof.Profile {
	const period = 10_000_000
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		DurationNanos: int64(seconds * 1e9),
	}
	funcs := map[string]*pprof.Function{}
	locs := map[string]*pprof.Location{}
	for i := 0; i < len(parts); i += 2 {
		stack, cpu := parts[i].([]string), int64(parts[i+1].(float64)*1e9)
		s := &pprof.Sample{Value: []int64{cpu / period, cpu}}
		for _, fr := range stack {
			l := locs[fr]
			if l == nil {
				l = &pprof.Location{ID: uint64(len(p.Location) + 1)}
				// "a@f:1 > b@f:2" is one location with a inlined into b.
				for _, inl := range strings.Split(fr, " > ") {
					name, pos, _ := strings.Cut(inl, "@")
					file, line := "/usr/local/go/src/runtime/x.go", int64(0)
					if pos != "" {
						f, ln, _ := strings.Cut(pos, ":")
						file = f
						line, _ = strconv.ParseInt(ln, 10, 64)
					}
					fn := funcs[name+file]
					if fn == nil {
						fn = &pprof.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
						funcs[name+file] = fn
						p.Function = append(p.Function, fn)
					}
					l.Line = append(l.Line, pprof.Line{Function: fn, Line: line})
				}
				locs[fr] = l
				p.Location = append(p.Location, l)
			}
			s.Location = append(s.Location, l)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// fakeSource answers At from a table of loops by file:line; other lines
// of a known file are outside loops, unknown files are not found.
type fakeSource struct {
	loops map[string]*inspect.Loop
	asked []string
}

func (f *fakeSource) At(file string, line int) (*inspect.Loop, error) {
	f.asked = append(f.asked, fmt.Sprintf("%s:%d", file, line))
	if l, ok := f.loops[fmt.Sprintf("%s:%d", file, line)]; ok {
		c := *l
		c.Path, c.Line = file, line
		return &c, nil
	}
	for k := range f.loops {
		if strings.HasPrefix(k, file+":") {
			return &inspect.Loop{Path: file, Line: line, Kind: inspect.NotInLoop, Detail: "in no loop"}, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", file, inspect.ErrNoSource)
}

var (
	stkSelectGo   = []string{"runtime.selectgo", "main.handler@/app/h.go:37", "net/http.HandlerFunc.ServeHTTP"}
	stkSelectLock = []string{"runtime.procyield", "runtime.lock2", "runtime.sellock", "runtime.selectgo", "main.handler@/app/h.go:37"}
	stkLoopWork   = []string{"main.handler@/app/h.go:40", "net/http.HandlerFunc.ServeHTTP"}
	stkOther      = []string{"main.job@/app/h.go:20", "main.main"}
	stkGoschedCut = []string{"runtime.nanotime", "runtime.findRunnable", "runtime.schedule", "runtime.goschedImpl", "runtime.gosched_m", "runtime.mcall"}
	stkPoll       = []string{"github.com/x/q.(*Ring).Poll@/src/q/ring.go:152", "main.consume@/app/main.go:10"}
	stkPollCAS    = []string{"github.com/x/q.(*Ring).Put@/src/q/ring.go:80", "main.produce@/app/main.go:20"}
	stkWork       = []string{"main.hash@/app/main.go:30", "main.main"}
)

func analyse(t *testing.T, p *pprof.Profile) *profile.Result {
	t.Helper()
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func selectLoop(kind inspect.Kind, detail string) *inspect.Loop {
	return &inspect.Loop{Function: "handler", Kind: kind, Start: 35, End: 45, SpinLine: 36, Detail: detail}
}

func only(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func TestProfileSelectSpinConfirmed(t *testing.T) {
	res := analyse(t, build(2, stkSelectGo, 0.6, stkSelectLock, 1.1, stkLoopWork, 0.2, stkOther, 0.1))
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/app/h.go:37": selectLoop(inspect.SelectDefault, "select at line 36 has a default and cases on done, ctx.Done()"),
		"/app/h.go:40": selectLoop(inspect.SelectDefault, "select at line 36 has a default and cases on done, ctx.Done()"),
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	sd := only(out.Findings, "SD204")
	if len(sd) != 1 {
		t.Fatalf("SD204 %+v, want one source-backed finding", out.Findings)
	}
	f := sd[0]
	if f.Severity != finding.Critical && f.Severity != finding.Warning {
		t.Errorf("severity %s, want warning or critical", f.Severity)
	}
	if f.Locations[0].Line != 36 || f.Locations[0].File != "/app/h.go" {
		t.Errorf("locations %v, want the select at h.go:36 first", f.Locations)
	}
	// The loop's share: the select line and the work line inside the loop
	// (0.6+1.1+0.2 of 2.0s CPU), not the job outside it.
	if !strings.HasPrefix(f.Text(), "95% of CPU (0.95 cores)") || !strings.Contains(f.Text(), "cases on done, ctx.Done()") {
		t.Errorf("message %q: want the loop's 95%% and the source detail", f.Text())
	}
	if strings.Join(f.Sources, ",") != "profile,lint" {
		t.Errorf("sources %v", f.Sources)
	}
	if len(only(out.Findings, "SD205")) != 0 {
		t.Errorf("the select's lock reported apart: %+v", only(out.Findings, "SD205"))
	}
	if r := out.Summary.Source; !r.Given || r.Looked != 1 || r.Found != 1 {
		t.Errorf("source report %+v", r)
	}
}

// stkProduce is the producer that keeps an always-ready select's channel
// full: its sends are CPU the select cannot have.
var stkProduce = []string{"runtime.chansend", "runtime.chansend1", "main.produce@/app/h.go:20", "main.main"}

func TestProfileAlwaysReadySelectIsNotASpin(t *testing.T) {
	// A consumer's select at 55% of the CPU, its producer's sends at 35%
	// (the lab timerloop's fixed twin measured 69% in select), and the
	// source shows a blocking select (its channel is always ready): no
	// busy-wait claim.
	res := analyse(t, build(2, stkSelectGo, 0.5, stkSelectLock, 0.6, stkLoopWork, 0.2, stkProduce, 0.7))
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/app/h.go:37": selectLoop(inspect.Blocking, "select at line 36 blocks (no default)"),
		"/app/h.go:40": selectLoop(inspect.Blocking, "select at line 36 blocks (no default)"),
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if sd := only(out.Findings, "SD204"); len(sd) != 0 {
		t.Fatalf("SD204 on a blocking select: %+v", sd)
	}
	if len(out.Summary.Loops) != 1 || out.Summary.Loops[0].Spin || out.Summary.Loops[0].Kind != inspect.Blocking {
		t.Errorf("loops %+v, want one blocking verdict", out.Summary.Loops)
	}
	var b bytes.Buffer
	if err := out.Summary.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "blocking (not a spin)") {
		t.Errorf("text lacks the verdict:\n%s", b.String())
	}
}

func TestProfileYieldSpinFromTheWorkBetweenYields(t *testing.T) {
	// A ring buffer: Gosched's cost is cut; Poll's own frames sit inside
	// the yield loop. A CAS retry loop that wins (Put) is not a spin.
	res := analyse(t, build(8, stkGoschedCut, 6.0, stkPoll, 0.2, stkPollCAS, 0.6, stkWork, 1.2))
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/src/q/ring.go:152": {Function: "(*Ring).Poll", Kind: inspect.YieldSpin, Start: 144, End: 167, SpinLine: 166, Detail: "its only wait is runtime.Gosched() at line 166"},
		"/src/q/ring.go:80":  {Function: "(*Ring).Put", Kind: inspect.RetryCAS, Start: 75, End: 90, SpinLine: 82, Detail: "retries a CompareAndSwap at line 82"},
		"/app/main.go:30":    {Function: "hash", Kind: inspect.Compute, Start: 28, End: 32, Detail: "computes"},
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	sd := only(out.Findings, "SD204")
	if len(sd) != 1 {
		t.Fatalf("SD204 %+v, want one at the Poll loop", sd)
	}
	f := sd[0]
	if f.Locations[0].Line != 166 || f.Locations[1].Line != 144 {
		t.Errorf("locations %v, want Gosched's line 166 then the loop's 144", f.Locations)
	}
	// 6.0s cut yield + 0.2s Poll of 8.0s CPU.
	if !strings.HasPrefix(f.Text(), "78% of CPU") {
		t.Errorf("message %q, want the loop's 78%% (its frames and the cut yields)", f.Text())
	}
	for _, l := range out.Summary.Loops {
		if l.Kind == inspect.RetryCAS && l.Spin {
			t.Errorf("the CAS retry called a spin: %+v", l)
		}
	}
}

func TestProfileWithoutSource(t *testing.T) {
	res := analyse(t, build(2, stkSelectGo, 0.5, stkSelectLock, 0.6, stkLoopWork, 0.2, stkProduce, 0.7))
	for _, c := range []struct {
		name string
		opt  Options
		text string
	}{
		{"no reader", Options{}, "source: not read"},
		{"files not found", Options{Source: &fakeSource{}}, "none of the 1 file(s) the hot lines name was found (e.g. /app/h.go); the module's source is needed to judge them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Profile(res, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			sd := only(out.Findings, "SD204")
			if len(sd) != 1 || sd[0].Severity != finding.Info || !slices.Equal(sd[0].Hints(), []finding.Hint{finding.HintSourceDir}) {
				t.Errorf("SD204 %+v, want the profile's own info finding with the -src hint", sd)
			}
			for _, f := range out.Findings {
				if strings.Contains(f.Text(), "CPU shortage") || strings.Contains(f.Fix, "add CPU") {
					t.Errorf("a spin called CPU shortage: %+v", f)
				}
			}
			if got := out.Summary.Source.Text(); !strings.Contains(got, c.text) {
				t.Errorf("source text %q, want %q", got, c.text)
			}
			// The summary asks for the source in data, for a front end
			// to name its flag; a run with no reader asks nothing.
			asks := slices.ContainsFunc(out.Summary.Hints(), func(n finding.Note) bool { return n.Hint == finding.HintSourceDir })
			if asks != (c.opt.Source != nil) {
				t.Errorf("summary hints %+v: asks for the source %v, want %v", out.Summary.Hints(), asks, c.opt.Source != nil)
			}
		})
	}
}

// TestProfileSelectAloneWarnsByCost: 89% of the CPU in selectgo with no
// parking is a wait whatever the code shows (issue 20: a busy handler's
// profile with no source was info only). Without the source, and with a
// source that reads the loop as blocking, the profile's SD204 stays at
// warning or above, and with that source it says what the source showed.
// Fails on the code that made selectgo info whatever its share.
func TestProfileSelectAloneWarnsByCost(t *testing.T) {
	res := analyse(t, build(2, stkSelectGo, 0.6, stkSelectLock, 1.1, stkLoopWork, 0.2))
	blocking := &fakeSource{loops: map[string]*inspect.Loop{
		"/app/h.go:37": selectLoop(inspect.Blocking, "select at line 36 blocks (no default)"),
		"/app/h.go:40": selectLoop(inspect.Blocking, "select at line 36 blocks (no default)"),
	}}
	for _, c := range []struct {
		name  string
		opt   Options
		label string
	}{
		{"no reader", Options{}, ""},
		{"files not found", Options{Source: &fakeSource{}}, ""},
		{"source reads a blocking select", Options{Source: blocking}, "source: the loop may block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Profile(res, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			sd := only(out.Findings, "SD204")
			if len(sd) != 1 || sd[0].Severity < finding.Warning {
				t.Fatalf("SD204 %+v, want one warning by cost", sd)
			}
			if !strings.HasPrefix(sd[0].Text(), "89% of CPU (0.85 cores) goes to selectgo") {
				t.Errorf("message %q", sd[0].Text())
			}
			if c.label != "" && !slices.ContainsFunc(sd[0].Evidence, func(e finding.Evidence) bool { return strings.HasPrefix(e.Label, c.label) }) {
				t.Errorf("evidence %+v lacks %q", sd[0].Evidence, c.label)
			}
			for _, f := range out.Findings {
				if strings.Contains(f.Fix, "add CPU") || strings.Contains(f.Fix, "Add CPU") {
					t.Errorf("a spin called CPU shortage: %+v", f)
				}
			}
		})
	}
}

// TestProfileSelectLoopWhoseCPUIsItsWork: a select with a default whose
// default hashes a buffer (issue 20): the loop's CPU is in SHA-256 under
// its line, none in select frames. The source reads a select with a
// default, but the profile shows work, not a wait: no SD204, and the
// verdict says why. The close positive: the same loop with its CPU in
// selectgo is SD204. Fails on the join that summed the callee's time into
// the spin.
func TestProfileSelectLoopWhoseCPUIsItsWork(t *testing.T) {
	stkHash := []string{"crypto/internal/fips140/sha256.blockAMD64", "crypto/sha256.Sum256", "main.handler@/app/h.go:40", "net/http.HandlerFunc.ServeHTTP"}
	src := func() *fakeSource {
		return &fakeSource{loops: map[string]*inspect.Loop{
			"/app/h.go:37": selectLoop(inspect.SelectDefault, "select at line 36 has a default that neither blocks nor leaves the loop"),
			"/app/h.go:40": selectLoop(inspect.SelectDefault, "select at line 36 has a default that neither blocks nor leaves the loop"),
		}}
	}
	work := analyse(t, build(2, stkHash, 1.9, stkOther, 0.1))
	out, err := Profile(work, Options{Source: src()})
	if err != nil {
		t.Fatal(err)
	}
	if sd := only(out.Findings, "SD204"); len(sd) != 0 {
		t.Errorf("the loop's own work called a busy wait: %+v", sd)
	}
	if l := out.Summary.Loops; len(l) == 0 || l[0].Spin || !strings.Contains(l[0].Detail, "its CPU is its work") {
		t.Errorf("loops %+v, want the select loop judged work", l)
	}
	spin := analyse(t, build(2, stkSelectGo, 1.0, stkSelectLock, 0.5, stkHash, 0.4, stkOther, 0.1))
	out, err = Profile(spin, Options{Source: src()})
	if err != nil {
		t.Fatal(err)
	}
	if sd := only(out.Findings, "SD204"); len(sd) != 1 || sd[0].Severity < finding.Warning {
		t.Errorf("SD204 %+v, want the spin (75%% in select) at warning or above", sd)
	}
}

func TestProfileSpinLockUnderContentionIsInfo(t *testing.T) {
	// A Gosched spin lock at 25% of the CPU while the program parks 25%:
	// the source confirms a spin, but it is bounded by contention.
	stkSchedule := []string{"runtime.execute", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
	stkLock := []string{"github.com/x/pool.(*spinLock).Lock@/src/pool/spin.go:20", "main.submit@/app/main.go:5"}
	res := analyse(t, build(4, stkGoschedCut, 0.8, stkLock, 0.2, stkSchedule, 1.0, stkWork, 2.0))
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/src/pool/spin.go:20": {Function: "(*spinLock).Lock", Kind: inspect.YieldSpin, Start: 19, End: 27, SpinLine: 22, Detail: "its only wait is runtime.Gosched()"},
		"/app/main.go:30":      {Function: "hash", Kind: inspect.Compute, Start: 28, End: 32, Detail: "computes"},
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	sd := only(out.Findings, "SD204")
	if len(sd) != 1 || sd[0].Severity != finding.Info || !strings.Contains(sd[0].Text(), "bounded by contention") {
		t.Fatalf("SD204 %+v, want one info finding bounded by contention", sd)
	}
	if sd[0].Locations[0].Line != 22 {
		t.Errorf("locations %v, want the Gosched at 22", sd[0].Locations)
	}
}

// A ring buffer's put waits for the slowest consumer in a Gosched loop
// whose condition calls minGate, inlined: minGate's own loop computes, and
// the samples name its line first. The time counts toward put's spin.
var (
	stkMinGate = []string{"main.(*ring).minGate@/app/ring.go:70 > main.(*ring).put@/app/ring.go:89",
		"main.pipeline.func1@/app/ring.go:145", "runtime.goexit"}
	stkHash       = []string{"crypto/sha256.block", "main.hash@/app/ring.go:130", "main.pipeline.func2@/app/ring.go:160"}
	minGateLoop   = &inspect.Loop{Function: "(*ring).minGate", Kind: inspect.Compute, Start: 69, End: 73, Detail: "no wait and no spin operation in lines 69–73"}
	producerLoop  = &inspect.Loop{Function: "pipeline.func1", Kind: inspect.Compute, Start: 143, End: 146, Detail: "it computes"}
	consumerLoop  = &inspect.Loop{Function: "hash", Kind: inspect.Compute, Start: 129, End: 131, Detail: "it computes"}
	putYieldSpin  = &inspect.Loop{Function: "(*ring).put", Kind: inspect.YieldSpin, Start: 86, End: 101, SpinLine: 92, Detail: "its only wait is runtime.Gosched() at line 92"}
	putBlocksLoop = &inspect.Loop{Function: "(*ring).put", Kind: inspect.Blocking, Start: 86, End: 101, SpinLine: 92, Detail: "cond.Wait() at line 92 blocks"}
)

func ringProfile(t *testing.T) *profile.Result {
	return analyse(t, build(8, stkGoschedCut, 3.0, stkMinGate, 2.5, stkHash, 2.5))
}

func TestProfileCalleeTimeCountsToCallersSpin(t *testing.T) {
	res := ringProfile(t)
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/app/ring.go:70": minGateLoop, "/app/ring.go:89": putYieldSpin,
		"/app/ring.go:145": producerLoop, "/app/ring.go:130": consumerLoop,
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	sd := only(out.Findings, "SD204")
	if len(sd) != 1 {
		t.Fatalf("SD204 %+v, want one at put's loop", sd)
	}
	f := sd[0]
	if f.Locations[0].Line != 92 || f.Locations[1].Line != 86 || !slices.Contains(f.Sources, "lint") {
		t.Errorf("locations %v sources %v, want Gosched's line 92 then the loop's 86, from the source", f.Locations, f.Sources)
	}
	// minGate's 2.5s (claimed by put's loop one frame up) and the 3.0s of
	// cut yields, of 8s: 69%. Without the stack walk minGate's time stays
	// in its compute loop and put's loop is never read.
	if !strings.HasPrefix(f.Text(), "69% of CPU") {
		t.Errorf("message %q, want the loop's 69%% (minGate's time and the cut yields)", f.Text())
	}
	if f.Severity < finding.Warning {
		t.Errorf("severity %s, want warning or above at %.2f cores", f.Severity, out.Summary.Cores)
	}
	for _, l := range out.Summary.Loops {
		if l.Kind == inspect.Compute && l.Share > 0 && l.Start == 69 {
			t.Errorf("minGate's loop kept the time put's spin claimed: %+v", l)
		}
	}
	if r := out.Summary.Source; r.Found != 1 || r.Looked != 1 {
		t.Errorf("source report %+v, want the one file", r)
	}
}

func TestProfileCalleeOfABlockingLoopIsNoSpin(t *testing.T) {
	// The same stacks, but put's loop blocks (a sync.Cond): minGate's time
	// is compute, and no frame up the stack makes it a spin.
	res := ringProfile(t)
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/app/ring.go:70": minGateLoop, "/app/ring.go:89": putBlocksLoop,
		"/app/ring.go:145": producerLoop, "/app/ring.go:130": consumerLoop,
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range only(out.Findings, "SD204") {
		if slices.Contains(f.Sources, "lint") {
			t.Errorf("a source-backed SD204 from a blocking caller: %+v", f)
		}
	}
	for _, l := range out.Summary.Loops {
		if l.Spin {
			t.Errorf("a spin verdict from a blocking caller: %+v", l)
		}
	}
	var mg *LoopVerdict
	for i, l := range out.Summary.Loops {
		if l.Start == 69 {
			mg = &out.Summary.Loops[i]
		}
	}
	if mg == nil || mg.Kind != inspect.Compute || mg.Share < 31 || mg.Share > 32 {
		t.Errorf("loops %+v, want minGate's compute loop with its own 31%%", out.Summary.Loops)
	}
}

// esqueue's consumers retry an empty Get in a loop that sleeps a flag
// whose default is 0: the source cannot tell a spin from a wait.
var (
	stkRetryGet = []string{"runtime.procyield", "github.com/x/q.(*EsQueue).Get@/src/q/esQueue.go:170",
		"main.main.func2@/app/main.go:40", "runtime.goexit"}
	getLoop   = &inspect.Loop{Function: "(*EsQueue).Get", Kind: inspect.NotInLoop, Detail: "in no loop"}
	retryLoop = &inspect.Loop{Function: "main.func2", Kind: inspect.SleepUnknown, Start: 39, End: 42, SpinLine: 41,
		Detail: "its only wait is time.Sleep(*retry), a sleep of non-constant duration at line 41: a zero or tiny value spins, a long one waits"}
	stkPark = []string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep", "runtime.stopm", "runtime.findRunnable", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
)

func retrySource() *fakeSource {
	return &fakeSource{loops: map[string]*inspect.Loop{
		"/src/q/esQueue.go:170": getLoop, "/app/main.go:40": retryLoop, "/app/main.go:30": consumerLoop,
	}}
}

func TestProfileSleepOfUnknownLengthHotIsAPoll(t *testing.T) {
	// The retry loop holds 75% of the CPU and nothing parks: the sleep is
	// zero, the loop spins.
	res := analyse(t, build(4, stkRetryGet, 3.0, stkWork, 1.0))
	out, err := Profile(res, Options{Source: retrySource()})
	if err != nil {
		t.Fatal(err)
	}
	sd := only(out.Findings, "SD204")
	if len(sd) != 1 || !slices.Contains(sd[0].Sources, "lint") {
		t.Fatalf("SD204 %+v, want one source-backed finding at the retry loop", sd)
	}
	f := sd[0]
	if f.Locations[0].Line != 41 || f.Severity < finding.Warning {
		t.Errorf("SD204 at %v (%s), want the sleep at line 41 at warning or above", f.Locations, f.Severity)
	}
	if !strings.HasPrefix(f.Text(), "75% of CPU") || !strings.Contains(f.Text(), "non-constant duration") ||
		!strings.Contains(f.Text(), "zero or too short to park") {
		t.Errorf("message %q, want the loop's 75%%, the source's doubt and the profile's answer", f.Text())
	}
}

func TestProfileSleepOfUnknownLengthThatParksIsNoSpin(t *testing.T) {
	// The same loop at 20% of the CPU while the program parks 60%: the
	// sleep may well be long. No spin, and no claim that it blocks.
	res := analyse(t, build(5, stkRetryGet, 1.0, stkPark, 3.0, stkWork, 1.0))
	out, err := Profile(res, Options{Source: retrySource()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range only(out.Findings, "SD204") {
		if slices.Contains(f.Sources, "lint") {
			t.Errorf("a source-backed SD204 from a sleep that parks: %+v", f)
		}
	}
	var got *LoopVerdict
	for i, l := range out.Summary.Loops {
		if l.Start == 39 {
			got = &out.Summary.Loops[i]
		}
	}
	if got == nil || got.Spin || got.Kind != inspect.SleepUnknown || !strings.Contains(got.Detail, "not enough to call it a spin") {
		t.Errorf("loops %+v, want the retry loop as sleep-unknown, not a spin", out.Summary.Loops)
	}
}

func TestProfileYieldLoopNamedByOneSample(t *testing.T) {
	// The gosched lab: 94% of the CPU in yields mcall cut, one sample at
	// the loop's line (too few for a candidate). The stack walk reads it;
	// a Gosched loop there takes the cut yields, a compute loop does not.
	stkLoop := []string{"main.bad@/app/g.go:29", "main.main"}
	res := analyse(t, build(2, stkGoschedCut, 1.88, stkLoop, 0.02, stkWork, 0.10))
	for _, c := range []struct {
		loop *inspect.Loop
		spin bool
	}{
		{&inspect.Loop{Function: "bad", Kind: inspect.YieldSpin, Start: 29, End: 31, SpinLine: 30, Detail: "its only wait is runtime.Gosched() at line 30"}, true},
		{&inspect.Loop{Function: "bad", Kind: inspect.Compute, Start: 29, End: 31, Detail: "it computes"}, false},
	} {
		src := &fakeSource{loops: map[string]*inspect.Loop{"/app/g.go:29": c.loop, "/app/main.go:30": consumerLoop}}
		out, err := Profile(res, Options{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		var backed []finding.Finding // SD204 at the loop, from the source
		for _, f := range only(out.Findings, "SD204") {
			if slices.Contains(f.Sources, "lint") && f.Locations[0].File == "/app/g.go" {
				backed = append(backed, f)
			}
		}
		if !c.spin {
			if len(backed) != 0 || slices.ContainsFunc(out.Summary.Loops, func(l LoopVerdict) bool { return l.Spin }) {
				t.Errorf("%s loop: SD204 %+v loops %+v, want no spin", c.loop.Kind, backed, out.Summary.Loops)
			}
			continue
		}
		if len(backed) != 1 || backed[0].Locations[0].Line != 30 || !strings.HasPrefix(backed[0].Text(), "95% of CPU") {
			t.Errorf("SD204 %+v, want one at the Gosched (line 30) with the loop's 95%% (cut yields and its sample)", backed)
		}
	}
}

// TestProfileRecordedWorkLoopIsNotASpin joins the spinwork recordings
// (profile/testdata/spinwork) with a source that reads both loops as a
// select with a default, as lint's shape does: the spin keeps its SD204
// at warning or above at its select; the loop whose default hashes a
// buffer is judged work (98% of its CPU in SHA-256) and has none. Fails on
// the join that summed the callee's time into a spin.
func TestProfileRecordedWorkLoopIsNotASpin(t *testing.T) {
	loop := func(start, end, spin int) *inspect.Loop {
		return &inspect.Loop{Function: "f", Kind: inspect.SelectDefault, Start: start, End: end, SpinLine: spin,
			Detail: fmt.Sprintf("select at line %d has a default that neither blocks nor leaves the loop", spin)}
	}
	for _, c := range []struct {
		file       string
		start, end int
		spin       bool
	}{
		{"spinwork-select", 30, 39, true},
		{"spinwork-work", 46, 56, false},
	} {
		t.Run(c.file, func(t *testing.T) {
			p, err := profile.ReadFile(context.Background(), "../profile/testdata/lab/"+c.file+".pb.gz", profile.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res := analyse(t, p)
			src := &fakeSource{loops: map[string]*inspect.Loop{}}
			for _, l := range res.Summary.UserLines {
				src.loops[fmt.Sprintf("%s:%d", l.File, l.Line)] = loop(c.start, c.end, c.start+1)
			}
			out, err := Profile(res, Options{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			sd := only(out.Findings, "SD204")
			if !c.spin {
				if len(sd) > 0 {
					t.Errorf("work called a busy wait: %+v", sd)
				}
				if len(out.Summary.Loops) == 0 || !strings.Contains(out.Summary.Loops[0].Detail, "its CPU is its work") {
					t.Errorf("loops %+v, want the loop judged work", out.Summary.Loops)
				}
				return
			}
			if len(sd) != 1 || sd[0].Severity < finding.Warning || sd[0].Locations[0].Line != c.start+1 {
				t.Errorf("SD204 %+v, want one warning at line %d", sd, c.start+1)
			}
		})
	}
}

// TestProfilePreemptionInsideASpinIsTheSpins: async preemptions that land
// in a loop the source shows spinning are the spin's cost (a loop that
// never yields is preempted every 10ms at any GOMAXPROCS): no SD208
// "set GOMAXPROCS to the CPUs" beside the SD204. The close negative: the
// same preemptions in a loop the source shows computing keep SD208.
// Fails on the join that dropped only SD204 and SD205 inside a spin.
func TestProfilePreemptionInsideASpinIsTheSpins(t *testing.T) {
	stkPreempt := []string{"runtime.asyncPreempt", "main.handler@/app/h.go:40", "net/http.HandlerFunc.ServeHTTP"}
	res := analyse(t, build(2, stkSelectGo, 0.6, stkSelectLock, 0.9, stkPreempt, 0.4, stkOther, 0.1))
	if len(only(res.Findings, "SD208")) != 1 {
		t.Fatalf("the profile alone has no SD208: %+v", res.Findings)
	}
	for _, c := range []struct {
		kind inspect.Kind
		want int
	}{
		{inspect.SelectDefault, 0},
		{inspect.Compute, 1},
	} {
		src := &fakeSource{loops: map[string]*inspect.Loop{
			"/app/h.go:37": selectLoop(c.kind, "the loop at 35-45"),
			"/app/h.go:40": selectLoop(c.kind, "the loop at 35-45"),
		}}
		out, err := Profile(res, Options{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(only(out.Findings, "SD208")); got != c.want {
			t.Errorf("%s loop: %d SD208, want %d: %+v", c.kind, got, c.want, only(out.Findings, "SD208"))
		}
	}
}

// TestProfileAssemblyFrameIsNotRead: a consumer retrying a lock-free
// queue's non-blocking Dequeue, whose hot frame is in the queue's
// assembly (issue 20: the reader tried to parse the .s file as Go): the
// .s frame is not read, and the walk reaches the caller's retry loop,
// which the source shows spinning: SD204 there.
func TestProfileAssemblyFrameIsNotRead(t *testing.T) {
	stk := []string{"github.com/x/q.cas@/src/q/asm_amd64.s:12", "github.com/x/q.(*Queue).Dequeue@/src/q/q.go:40",
		"main.consume@/app/main.go:10", "main.main"}
	res := analyse(t, build(2, stk, 1.8, stkOther, 0.2))
	src := &fakeSource{loops: map[string]*inspect.Loop{
		"/src/q/q.go:40":  {Function: "Dequeue", Kind: inspect.Compute, Start: 38, End: 44, Detail: "compute"},
		"/app/main.go:10": {Function: "consume", Kind: inspect.AtomicSpin, Start: 9, End: 11, SpinLine: 10, Detail: "retries Dequeue at once"},
	}}
	out, err := Profile(res, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range src.asked {
		if strings.HasSuffix(a, ".s:12") {
			t.Errorf("asked the source for an assembly line: %v", src.asked)
		}
	}
	if sd := only(out.Findings, "SD204"); len(sd) != 1 || sd[0].Locations[0].Line != 10 {
		t.Errorf("SD204 %+v, want the caller's retry loop at main.go:10", sd)
	}
}
