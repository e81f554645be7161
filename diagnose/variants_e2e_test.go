package diagnose

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/lint/driver"
	"github.com/schedoctor/schedoctor/lint/inspect"
	"github.com/schedoctor/schedoctor/profile"
)

// variant is one marked loop of testdata/variants/main.go.
type variant struct {
	Shape      string // the program's -shape
	Function   string // the function that holds the loop
	Line       int    // the loop's `for` line
	Start, End int    // the loop's lines
	Spin       bool   // a positive: lint and the runtime must name it
	Rule       string // the rule lint reports at a positive's loop
	// Yield marks a loop whose only wait is runtime.Gosched: mcall cuts its
	// stacks, so a CPU profile names the spin without a line unless a
	// sample caught the loop's own code (TestLabJoin's gosched likewise).
	Yield bool
}

// variantShapes maps the program's -shape values to the function whose
// loop each one runs.
var variantShapes = map[string]string{
	"ctxInline":   "ctxInline",
	"ctxHoisted":  "ctxHoisted",
	"getter":      "getter",
	"sendFull":    "sendFull",
	"flagGosched": "flagGosched",
	"genericWait": "wait",
	"pollLocked":  "pollLocked",
	"defaultWork": "defaultWork",
	"blocking":    "blocking",
	"slowPoll":    "slowPoll",
	"cooperative": "cooperative",
	"retryPop":    "retryPop",
	"waitPop":     "waitPop",
}

var (
	variantMark = regexp.MustCompile(`// variant:(spin (SD[0-9]{3})( yield)?|quiet)`)
	funcLine    = regexp.MustCompile(`^func (\([^)]*\) )?([A-Za-z0-9_]+)`)
)

// readVariants finds the marked loops: the marker is on the `for` line and
// the loop ends at the first line after it that closes at the for's
// indentation.
func readVariants(t *testing.T, file string) []variant {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	byFunc := map[string]string{}
	for shape, fn := range variantShapes {
		byFunc[fn] = shape
	}
	var out []variant
	fn := ""
	for i, l := range lines {
		if m := funcLine.FindStringSubmatch(l); m != nil {
			fn = m[2]
		}
		m := variantMark.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, "\t"))]
		end := i + 1
		for ; end < len(lines); end++ {
			if lines[end] == indent+"}" {
				break
			}
		}
		shape, ok := byFunc[fn]
		if !ok {
			t.Fatalf("%s:%d: marked loop in %s, which no -shape runs", file, i+1, fn)
		}
		out = append(out, variant{Shape: shape, Function: fn, Line: i + 1, Start: i + 1, End: end + 1,
			Spin: m[2] != "", Rule: m[2], Yield: m[3] != ""})
	}
	if len(out) != len(variantShapes) {
		t.Fatalf("%s: %d marked loops for %d shapes", file, len(out), len(variantShapes))
	}
	return out
}

func (v variant) holds(l finding.Location) bool {
	return strings.HasSuffix(l.File, "variants/main.go") && l.Line >= v.Start && l.Line <= v.End
}

func (v variant) locatedIn(f finding.Finding) bool {
	return slices.ContainsFunc(f.Locations, v.holds)
}

// TestVariantsAgree is the variant corpus run through every layer: lint on
// the source, then each loop alone under a CPU profile at GOMAXPROCS 1, 2
// and 8 (so that different lines of the loop come out hottest) joined with
// the source, and under an execution trace at GOMAXPROCS 2. A positive
// must be named at its loop by every layer, with the same verdict at every
// GOMAXPROCS; a negative by none.
func TestVariantsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the variant programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	src, err := filepath.Abs("testdata/variants/main.go")
	if err != nil {
		t.Fatal(err)
	}
	vs := readVariants(t, src)

	// The code layer: lint must report each positive's rule at its loop and
	// nothing at a negative's.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lr, err := driver.Run(ctx, driver.Options{Dir: filepath.Dir(src), Patterns: []string{"."}})
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	for _, v := range vs {
		var rules []string
		for _, f := range lr.Findings {
			for _, l := range f.Locations {
				if l.Line >= v.Start && l.Line <= v.End {
					rules = append(rules, f.Rule)
				}
			}
		}
		if v.Spin && !slices.Contains(rules, v.Rule) {
			t.Errorf("lint: %s (line %d): got %v, want %s", v.Shape, v.Line, rules, v.Rule)
		}
		if !v.Spin && len(rules) > 0 {
			t.Errorf("lint: %s (line %d), a negative: got %v", v.Shape, v.Line, rules)
		}
	}

	bin := filepath.Join(t.TempDir(), "variants")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Dir(src)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}

	for _, v := range vs {
		t.Run(v.Shape, func(t *testing.T) {
			// The source's verdict does not depend on the machine: every
			// line of the loop must give the loop's verdict.
			res := &inspect.Resolver{NoFindings: true}
			for line := v.Start; line <= v.End; line++ {
				loop, err := res.At(src, line)
				if err != nil {
					t.Fatalf("source at line %d: %v", line, err)
				}
				if loop.Start != v.Start || loop.Kind.Spin() != (v.Spin && v.Rule != "SD102") ||
					(v.Rule == "SD102" && loop.Kind != inspect.SleepPoll) {
					t.Errorf("source at line %d: %s loop %d-%d (%s), want the loop at %d, spin %v (%s)",
						line, loop.Kind, loop.Start, loop.End, loop.Detail, v.Start, v.Spin, v.Rule)
				}
			}
			// What the runtime measures can be disturbed by other processes:
			// every run is checked, and the problems are a failure on a
			// quiet machine and a skip, with the measured load, on a busy one.
			m := labtest.StartMeter()
			var problems []string
			for _, procs := range []int{1, 2, 8} {
				layer := fmt.Sprintf("profile at GOMAXPROCS=%d", procs)
				p := runVariant(t, bin, v.Shape, procs, "-cpuprofile")
				if p == nil {
					if v.Spin {
						problems = append(problems, layer+": no CPU samples from a spin")
					}
					continue
				}
				out := join(t, []*pprof.Profile{p})
				problems = append(problems, checkVariant(layer, v, out.Findings, text(out))...)
			}
			out := traceVariant(t, bin, v.Shape, 2)
			problems = append(problems, checkVariant("trace at GOMAXPROCS=2", v, out.Findings, traceText(out))...)
			if len(problems) == 0 {
				return
			}
			for _, p := range problems {
				t.Log(p)
			}
			m.SkipIfBusy(t, "%d problem(s) above", len(problems))
			t.Errorf("%d problem(s) above", len(problems))
		})
	}
}

// checkVariant checks one layer's findings on one loop and returns what is
// wrong. A positive must be named at its loop at a warning or above: SD204
// (profile) or SD308 (trace) for a spin, SD307 (trace; or SD204, SD203,
// SD201) for a sleep poll, which costs a profile too few samples to warn.
// A negative gets no SD204 at its loop and no warning anywhere.
func checkVariant(layer string, v variant, fs []finding.Finding, report string) []string {
	want := []string{"SD204", "SD308"}
	if v.Rule == "SD102" {
		want = []string{"SD204", "SD203", "SD201", "SD307"}
	}
	if v.Spin && v.Rule == "SD102" && strings.HasPrefix(layer, "profile") {
		// A 50µs sleep sleeps about a millisecond here: the poll costs a
		// few hundredths of a core, a handful of samples, which is no
		// evidence for a warning (warn by cost). The trace names it
		// (SD307), and check joins the two (check.TestCheckVariants).
		return nil
	}
	if v.Spin {
		for _, f := range fs {
			if slices.Contains(want, f.Rule) && f.Severity >= finding.Warning && v.locatedIn(f) {
				return nil
			}
			if v.Yield && f.Rule == "SD204" && f.Severity >= finding.Warning && len(f.Locations) == 0 {
				return nil
			}
		}
		return []string{fmt.Sprintf("%s: %s not named at its loop (lines %d-%d) at a warning:\n%s", layer, v.Shape, v.Start, v.End, report)}
	}
	// SD308 at info on a negative is the trace's plain fact that a compute
	// loop never blocks (its message names the source's "compute"); a
	// busy-wait finding is SD204 at any severity, or anything at a warning.
	var out []string
	for _, f := range fs {
		if f.Severity >= finding.Warning || (f.Rule == "SD204" && v.locatedIn(f)) {
			out = append(out, fmt.Sprintf("%s: negative %s got %s %s: %s\n%s", layer, v.Shape, f.Rule, f.Severity, f.Text(), report))
		}
	}
	return out
}

// runVariant runs one shape for a second at GOMAXPROCS procs with a CPU
// profile; nil when the profile has no samples.
func runVariant(t *testing.T, bin, shape string, procs int, flag string) *pprof.Profile {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cpu.pb.gz")
	runVariantTo(t, bin, shape, procs, flag, file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Read(context.Background(), file, f, profile.ReadOptions{})
	if err != nil {
		if errors.Is(err, profile.ErrEmpty) {
			return nil
		}
		t.Fatal(err)
	}
	return p
}

func runVariantTo(t *testing.T, bin, shape string, procs int, flag, file string) {
	t.Helper()
	const d = 1500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-shape", shape, "-duration", d.String(), flag, file)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s -shape %s: %v\n%s", bin, shape, err, b)
	}
}

func traceVariant(t *testing.T, bin, shape string, procs int) *TraceResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.out")
	runVariantTo(t, bin, shape, procs, "-trace", file)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
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
	return out
}
