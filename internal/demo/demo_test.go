package demo

import (
	"github.com/schedoctor/schedoctor/finding"

	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
}

// TestLintStage lints the whole lab from the embedded copy: every marked
// line is reported by its rule, and nothing else is.
func TestLintStage(t *testing.T) {
	needGo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Stages: []Stage{StageLint}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Mismatch != 0 {
		var b strings.Builder
		res.Summary.WriteText(&b)
		t.Errorf("lint stage differs from the lab's markers:\n%s", b.String())
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		seen[f.Rule] = true
		if len(f.Locations) == 0 || !strings.HasPrefix(f.Locations[0].File, "internal/lab/") {
			t.Errorf("%s: location %v does not point into internal/lab", f.Rule, f.Locations)
		}
	}
	for _, rule := range []string{"SD101", "SD102", "SD103", "SD104", "SD105", "SD106"} {
		if !seen[rule] {
			t.Errorf("no %s finding on the lab", rule)
		}
	}
}

// TestRuntimeStages runs two programs whose signatures do not depend on a
// quiet machine: a select spinning a whole core, and a healthy worker pool.
func TestRuntimeStages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lab programs")
	}
	needGo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Stages: []Stage{StageProfile, StageTrace}, Programs: []string{"busyselect", "workerpool"}, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Summary.Programs {
		for st, cell := range p.Cells {
			if !cell.OK() {
				t.Errorf("%s %s: %s (expected %v)", p.Name, st, cell, cell.Expected)
			}
		}
	}
	if len(res.Summary.Programs) != 2 {
		t.Errorf("ran %d programs, want 2", len(res.Summary.Programs))
	}
}

func TestUnknownProgram(t *testing.T) {
	if _, err := Run(context.Background(), Options{Programs: []string{"nosuch"}}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("err = %v; want one naming the program", err)
	}
}

// TestHostCaused: SD303 measured against the CPU the program got is the
// machine's doing; SD303 against the CPUs alone (GOMAXPROCS above them) is
// the program's.
func TestHostCaused(t *testing.T) {
	host := finding.Finding{Rule: "SD303", Evidence: []finding.Evidence{{Label: "busy Ps per core the process got", Value: 320, Unit: "%"}}}
	procs := finding.Finding{Rule: "SD303", Evidence: []finding.Evidence{{Label: "busy Ps per CPU", Value: 372, Unit: "%"}}}
	other := finding.Finding{Rule: "SD302", Evidence: host.Evidence}
	if !hostCaused(&host) || hostCaused(&procs) || hostCaused(&other) {
		t.Errorf("hostCaused: host %v, GOMAXPROCS %v, other rule %v; want true, false, false", hostCaused(&host), hostCaused(&procs), hostCaused(&other))
	}
}

func TestCellString(t *testing.T) {
	for _, c := range []struct {
		cell StageSummary
		want string
	}{
		{StageSummary{Expected: []string{"SD101"}, Found: []string{"SD101"}}, "✓ SD101"},
		{StageSummary{}, "✓ clean"},
		{StageSummary{Expected: []string{"SD201"}, Found: []string{"SD203"}, Missing: []string{"SD201"}, Unexpected: []string{"SD203"}}, "✗ +SD203 -SD201"},
		{StageSummary{Error: "running lab program x: exit status 2\nmore"}, "✗ error: running lab program x: exit status 2"},
		{StageSummary{Host: []string{"SD303"}}, "✓ clean !SD303"},
	} {
		if got := c.cell.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.cell, got, c.want)
		}
	}
}
