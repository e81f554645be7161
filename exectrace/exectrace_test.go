package exectrace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/golden"
)

// fixtures are the committed traces (scripts/gen-trace-fixtures.sh), the
// options they are analysed with, and what each must and must not report.
// Lines are those of the lab sources when the fixtures were recorded.
var fixtures = []struct {
	name string
	opt  Options
	want map[string]string // rule → file:line suffix of its first location
	// noWarnings: a healthy control or a fixed twin.
	noWarnings bool
	info       map[string]string // rule → location, reported at info
	thin       bool              // the summary must say the evidence is thin
}{
	{name: "mutex", want: map[string]string{"SD309": "mutex/main.go:27"}},
	{name: "mutex-fixed", noWarnings: true, thin: true},
	{name: "sleeppoll", want: map[string]string{"SD307": "sleeppoll/main.go:35"}, thin: true},
	{name: "gosched", want: map[string]string{"SD308": "gosched/main.go:27"}, thin: true},
	{name: "gcpressure", want: map[string]string{"SD306": "gcpressure/main.go:26"}},
	{name: "overprocs", opt: Options{CPUs: 2}, want: map[string]string{"SD303": "overprocs/main.go:26"}, thin: true},
	{name: "overprocs", noWarnings: true, thin: true}, // without -cpus, SD303 cannot be checked
	{name: "workerpool", noWarnings: true},
	{name: "pingpong", noWarnings: true, thin: true},
	// issue 9's busy handler: the spin blocks once per request, so the
	// trace alone says "compute or spin" (info) and names it as the cause
	// of the backlog; diagnose reads the source (TestTraceLab).
	{name: "busyhandler", info: map[string]string{"SD308": "busyhandler/main.go:57", "SD302": "busyhandler/main.go:57"}},
	{name: "busyhandler-fixed", noWarnings: true},
	{name: "httpserver", noWarnings: true, thin: true}, // idle: too few starts to judge
	// runtime.GC in a loop: forced collections, located at the call
	{name: "forcedgc", want: map[string]string{"SD306": "forcedgc/main.go:31"}, thin: true},
	// issue 22's spikes lab: a burst of 2,000 goroutines every 500ms (the
	// go statement at line 77) and a close waking 1,000 goroutines 20
	// times a second (line 164); its steady twin does the same work evenly
	{name: "spikes", want: map[string]string{"SD315": "spikes/main.go:77", "SD316": "spikes/main.go:164"}},
	{name: "spikes-fixed", noWarnings: true},
}

func analyzeFile(t testing.TB, name string, opt Options) *Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".trace"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := readAnalyze(context.Background(), bytes.NewReader(data), opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			res := analyzeFile(t, fx.name, fx.opt)
			if res.Summary.Truncated != nil {
				t.Errorf("truncated: %v", res.Summary.Truncated)
			}
			got := map[string]finding.Finding{}
			for _, f := range res.Findings {
				if _, dup := got[f.Rule]; !dup {
					got[f.Rule] = f
				}
				if fx.noWarnings && f.Severity >= finding.Warning {
					t.Errorf("unexpected warning %s: %s", f.Rule, f.Text())
				}
				checkFinding(t, f)
			}
			if thin := res.Summary.Thin != ""; thin != fx.thin {
				t.Errorf("thin = %q, want thin %v", res.Summary.Thin, fx.thin)
			}
			for rule, where := range fx.info {
				f, ok := got[rule]
				if !ok || f.Severity != finding.Info {
					t.Errorf("no %s at info; findings: %v", rule, rules(res.Findings))
					continue
				}
				if l := f.Locations[0]; !strings.HasSuffix(filepath.ToSlash(l.File)+":"+itoa(l.Line), where) {
					t.Errorf("%s at %v, want %s", rule, l, where)
				}
				if strings.Contains(f.Text(), "needs more CPU") || strings.Contains(strings.ToLower(f.Fix), "add cpu") {
					t.Errorf("%s advises more CPU: %s / %s", rule, f.Text(), f.Fix)
				}
			}
			for rule, where := range fx.want {
				f, ok := got[rule]
				if !ok {
					t.Errorf("no %s; findings: %v", rule, rules(res.Findings))
					continue
				}
				if f.Severity < finding.Warning {
					t.Errorf("%s is %v, want a warning", rule, f.Severity)
				}
				l := f.Locations[0]
				if at := filepath.ToSlash(l.File) + ":" + itoa(l.Line); !strings.HasSuffix(at, where) {
					t.Errorf("%s at %s, want %s", rule, at, where)
				}
			}
		})
	}
}

// checkFinding holds every finding to the contract: a message, numbers, a
// location and a fix.
func checkFinding(t *testing.T, f finding.Finding) {
	t.Helper()
	// The runtime's pauses, and Ps busier than the CPU the host gave, have
	// no line of the user's to point at.
	// A wake-up tail (SD301 at info) whose waiters are all in the runtime
	// or the standard library has no user line either.
	// A syscall site with no user frame on its stack is named, not located.
	unlocated := f.Rule == "SD306" || f.Rule == "SD303" || (f.Rule == "SD301" && f.Severity == finding.Info) ||
		(f.Rule == "SD305" && strings.Contains(f.Text(), "no user frame on the stack"))
	if f.Text() == "" || f.Fix == "" || len(f.Evidence) == 0 || (len(f.Locations) == 0 && !unlocated) {
		t.Errorf("%s: incomplete finding: %+v", f.Rule, f)
	}
	if _, ok := finding.Lookup(f.Rule); !ok {
		t.Errorf("%s: not in the catalog", f.Rule)
	}
	if strings.HasSuffix(f.Text(), ".") || strings.Contains(f.Text(), "\n") {
		t.Errorf("%s: message is not one line without a final period: %q", f.Rule, f.Text())
	}
}

func rules(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+"/"+f.Severity.String())
	}
	return out
}

// TestGolden pins the whole result (figures and findings) of each fixture.
func TestGolden(t *testing.T) {
	for _, fx := range fixtures {
		name := fx.name
		if fx.opt.CPUs > 0 {
			name += "-cpus"
		}
		t.Run(name, func(t *testing.T) {
			res := analyzeFile(t, fx.name, fx.opt)
			var buf bytes.Buffer
			if err := res.Summary.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			buf.WriteString("\n")
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			if err := enc.Encode(res.Findings); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".golden"), buf.Bytes())
		})
	}
}

func TestTruncated(t *testing.T) {
	data, err := os.ReadFile("testdata/workerpool.trace")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := readAnalyze(context.Background(), bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Summary.Trace.Generations < 2 {
		t.Fatalf("fixture has %d generations; the test needs 2", whole.Summary.Trace.Generations)
	}
	cut := data[:len(data)*97/100]
	res, err := readAnalyze(context.Background(), bytes.NewReader(cut), Options{})
	if err != nil {
		t.Fatalf("truncated trace: %v", err)
	}
	tr := res.Summary.Truncated
	if tr == nil {
		t.Fatal("truncated trace not reported as truncated")
	}
	if tr.Generation != 2 || tr.Offset != int64(len(cut)) || tr.Time <= 0 || tr.Err == "" {
		t.Errorf("truncation = %+v, want generation 2 at offset %d", tr, len(cut))
	}
	if res.Summary.Trace.Events == 0 || res.Summary.Trace.Events >= whole.Summary.Trace.Events {
		t.Errorf("events = %d, want some but fewer than %d", res.Summary.Trace.Events, whole.Summary.Trace.Events)
	}
	if !strings.Contains(tr.String(), "generation 2") {
		t.Errorf("String() = %q", tr.String())
	}

	// Broken inside the first generation: nothing to analyse.
	for _, n := range []int{len(data) / 3, 40, 16} {
		if _, err := readAnalyze(context.Background(), bytes.NewReader(data[:n]), Options{}); err == nil {
			t.Errorf("cut at %d bytes: want an error", n)
		}
	}
}

func TestNotATrace(t *testing.T) {
	for name, in := range map[string]string{
		"text":    "module example.com/x\n\ngo 1.26\n",
		"empty":   "",
		"go1.10":  "go 1.10 trace\x00\x00\x00\x00\x00\x00\x00\x00",
		"go1.99":  "go 1.99 trace\x00\x00\x00",
		"garbage": "go 1.26 trace\x00\x00\x00\xff\xff\xff\xff\xff",
	} {
		res, err := readAnalyze(context.Background(), strings.NewReader(in), Options{})
		if err == nil {
			t.Errorf("%s: want an error, got %d findings", name, len(res.Findings))
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	_, err := readAnalyze(context.Background(), strings.NewReader("go 1.26 trace\x00\x00\x00"), Options{})
	if !errors.Is(err, ErrNoEvents) {
		t.Errorf("header only: err = %v, want ErrNoEvents", err)
	}
	_, err = readAnalyze(context.Background(), strings.NewReader("hello"), Options{})
	if err == nil || !strings.Contains(err.Error(), "not a readable Go execution trace") {
		t.Errorf("text: err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	data, err := os.ReadFile("testdata/pingpong.trace")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readAnalyze(ctx, bytes.NewReader(data), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestIsUserFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"main.bad.func1":                         true,
		"main.(*T).M":                            true,
		"github.com/x/y.(*T).M":                  true,
		"example.com/p.F":                        true,
		"sync.(*Mutex).Lock":                     false,
		"internal/sync.(*Mutex).lockSlow":        false,
		"runtime.gopark":                         false,
		"os.(*File).Write":                       false,
		"time.Sleep":                             false,
		"net/http.(*conn).serve":                 false,
		"mainly.F":                               true, // a module named "mainly" (finding.UserFunction)
		"golang.org/x/sync/errgroup.(*Group).Go": true,
	} {
		if got := isUserFunc(fn); got != want {
			t.Errorf("isUserFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}

// readAnalyze is Read then Analyze, as every caller does.
func readAnalyze(ctx context.Context, r io.Reader, opt Options, ropt ...ReadOptions) (*Result, error) {
	var ro ReadOptions
	if len(ropt) > 0 {
		ro = ropt[0]
	}
	t, err := Read(ctx, "test.trace", r, ro)
	if err != nil {
		return nil, err
	}
	return Analyze(t, opt)
}
