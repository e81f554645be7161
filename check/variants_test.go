//go:build unix

package check

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// checkVariants are loops of the variant corpus (diagnose/testdata/variants)
// that check must name once each: every source's evidence joined into one
// finding at the loop, no advice to add CPU (issue 20). A negative gets no
// warning at all.
var checkVariants = []struct {
	shape string
	loop  string   // the `for` line's marker comment, to find the loop
	rules []string // the rules the one finding may carry; nil: a negative
}{
	{"ctxInline", "func ctxInline(", []string{"SD204", "SD308", "SD101"}},
	{"pollLocked", "func (s *server) pollLocked(", []string{"SD204", "SD203", "SD201", "SD307", "SD102"}},
	{"defaultWork", "func defaultWork(", nil},
	// A consumer that retries a mutex-guarded Dequeue at once when the
	// queue is empty: named at its own loop, not at the queue's code; its
	// twin parks on a sync.Cond.
	{"retryPop", "func retryPop(", []string{"SD204", "SD308", "SD106"}},
	{"waitPop", "func waitPop(", nil},
}

// TestCheckVariants runs each loop alone under the real check: captures
// from its net/http/pprof at GOMAXPROCS 2, then the one join with the
// source read as for a remote target (by suffix under the module root).
func TestCheckVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the variant program under check")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "diagnose", "testdata", "variants", "main.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "variants")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Dir(src)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	for _, v := range checkVariants {
		t.Run(v.shape, func(t *testing.T) {
			start, end := loopLines(t, lines, v.loop)
			in := func(l finding.Location) bool {
				return strings.HasSuffix(l.File, "variants/main.go") && l.Line >= start && l.Line <= end
			}
			m := labtest.StartMeter()
			fs := checkShape(t, bin, v.shape, root)
			var at []finding.Finding
			var problems []string
			for _, f := range fs {
				if slices.ContainsFunc(f.Locations, in) {
					at = append(at, f)
				}
				if v.rules == nil && f.Severity >= finding.Warning {
					problems = append(problems, fmt.Sprintf("negative: %s %s: %s", f.Rule, f.Severity, f.Text()))
				}
				if v.rules != nil && (f.Rule == "SD302" || f.Rule == "SD303") && f.Severity >= finding.Warning {
					problems = append(problems, fmt.Sprintf("a symptom leads: %s %s: %s (fix: %s)", f.Rule, f.Severity, f.Text(), f.Fix))
				}
			}
			if v.rules != nil {
				switch {
				case len(at) != 1:
					problems = append(problems, fmt.Sprintf("%d findings at the loop (lines %d-%d), want one", len(at), start, end))
				case !slices.Contains(v.rules, at[0].Rule):
					problems = append(problems, fmt.Sprintf("the loop's finding is %s, want one of %v", at[0].Rule, v.rules))
				case (v.shape == "ctxInline" || v.shape == "retryPop") && at[0].Severity < finding.Warning:
					problems = append(problems, fmt.Sprintf("the spin is only %s", at[0].Severity))
				}
			}
			for _, f := range at {
				t.Logf("at the loop: %s %s %v: %s", f.Rule, f.Severity, f.Sources, f.Text())
			}
			if len(problems) == 0 {
				return
			}
			for _, f := range fs {
				t.Logf("%s %s %v %v: %s", f.Rule, f.Severity, f.Sources, f.Locations, f.Text())
			}
			for _, p := range problems {
				t.Log(p)
			}
			m.SkipIfBusy(t, "%d problem(s) above", len(problems))
			t.Errorf("%d problem(s) above", len(problems))
		})
	}
}

// loopLines finds the loop of the function that starts with decl: its
// first `for` line and the line that closes it.
func loopLines(t *testing.T, lines []string, decl string) (int, int) {
	t.Helper()
	for i, l := range lines {
		if !strings.HasPrefix(l, decl) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if f := strings.TrimLeft(lines[j], "\t"); strings.HasPrefix(f, "for ") {
				indent := lines[j][:len(lines[j])-len(f)]
				for k := j + 1; k < len(lines); k++ {
					if lines[k] == indent+"}" {
						return j + 1, k + 1
					}
				}
			}
		}
	}
	t.Fatalf("no loop in %q", decl)
	return 0, 0
}

// checkShape runs one shape with its pprof served on loopback, checks it
// and returns the joined findings.
func checkShape(t *testing.T, bin, shape, root string) []finding.Finding {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-shape", shape, "-duration", "60s", "-pprof", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "pprof ")
	if !ok {
		t.Fatalf("the program printed %q", line)
	}
	set, err := Run(ctx, base, Options{Seconds: 2, TraceSeconds: 1, PID: cmd.Process.Pid, LivePath: ""})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Analyze(ctx, set, AnalyzeOptions{
		Source: &inspect.Resolver{NoFindings: true, Access: inspect.Access{Roots: []string{root}, Origin: inspect.Remote}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}
