package demo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report/htmlreport"
)

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
}

// headlinesFit holds every finding the demo shows to a one-line headline
// (finding.MaxHeadline characters; issue 21): the figures are in the
// evidence, the cause in Because, what a join adds in Notes.
func headlinesFit(t *testing.T, fs []finding.Finding) {
	t.Helper()
	longest, which := 0, ""
	for _, f := range fs {
		n := utf8.RuneCountInString(f.Headline())
		if n > longest {
			longest, which = n, f.Rule+": "+f.Headline()
		}
		if n > finding.MaxHeadline || n == 0 {
			t.Errorf("%s: headline of %d characters (at most %d): %q", f.Rule, n, finding.MaxHeadline, f.Headline())
		}
	}
	t.Logf("longest headline of %d findings: %d characters (%s)", len(fs), longest, which)
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
	headlinesFit(t, res.Findings)
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
			switch {
			case cell.Busy:
				t.Logf("%s %s: %s on a busy machine (%s): not a failure", p.Name, st, cell, cell.Machine)
			case !cell.OK():
				t.Errorf("%s %s: %s (expected %v; machine %s)", p.Name, st, cell, cell.Expected, cell.Machine)
			}
		}
	}
	headlinesFit(t, res.Findings)
	if len(res.Summary.Programs) != 2 {
		t.Errorf("ran %d programs, want 2", len(res.Summary.Programs))
	}
	// Each run's pictures are in its cell, titled by program and stage,
	// and the HTML renderer finds them in that order.
	var titles []string
	for _, p := range res.Summary.Programs {
		for _, st := range []Stage{StageProfile, StageTrace} {
			cell := p.Cells[st]
			if cell.Error != "" {
				continue
			}
			v := cell.Visual
			want := p.Name + ": " + string(st)
			switch {
			case v == nil:
				t.Errorf("%s: no pictures", want)
				continue
			case v.Title != want:
				t.Errorf("%s: pictures titled %q", want, v.Title)
			case st == StageProfile && (v.Flame == nil || v.Flame.Nodes == 0 || len(v.Causes) == 0):
				t.Errorf("%s: no flame graph or no CPU by cause: %+v", want, v)
			case st == StageTrace && (v.Timeline == nil || len(v.Timeline.Procs) == 0 || v.Latency == nil):
				t.Errorf("%s: no P timeline or no latency histogram: %+v", want, v)
			}
			titles = append(titles, want)
		}
	}
	var got []string
	for _, s := range htmlreport.Collect(res.Summary) {
		got = append(got, s.Title)
	}
	if !slices.Equal(got, titles) {
		t.Errorf("the HTML report finds the pictures %q, want %q", got, titles)
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

// TestCheckStage runs check on the lab service, as `schedoctor demo` does:
// the busy select, the poll and the leak each once (two sources for the
// first two), the healthy handlers clean — or, when the run was measured
// on a busy machine, a mismatch reported as the machine's. No process of
// the service is left when Run returns.
func TestCheckStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the lab service")
	}
	needGo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	work := t.TempDir()
	res, err := Run(ctx, Options{Stages: []Stage{StageCheck}, WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	headlinesFit(t, res.Findings)
	sum := res.Summary
	if len(sum.Programs) != 1 || sum.Programs[0].Name != ServiceName || sum.Service == nil {
		t.Fatalf("rows %+v, service %+v; want the lab service alone", sum.Programs, sum.Service)
	}
	cell := sum.Programs[0].Cells[StageCheck]
	var b strings.Builder
	sum.WriteText(&b)
	switch {
	case cell.Busy:
		t.Logf("on a busy machine (%s), not a failure:\n%s", cell.Machine, b.String())
	case !cell.OK() || sum.Mismatch != 0:
		t.Errorf("check of the lab service differs (machine %s):\n%s", cell.Machine, b.String())
	}
	// The service's pictures: the check's profile and trace in one set.
	if cell.Error == "" && len(sum.Service.Failed) == 0 {
		v := cell.Visual
		if v == nil || v.Title != ServiceName+": check" || v.Flame == nil || v.Timeline == nil || v.Latency == nil {
			t.Errorf("the service's pictures = %+v; want a flame graph, a P timeline and a latency histogram titled %q", v, ServiceName+": check")
		}
	}
	if sum.Service.Requests == 0 {
		t.Errorf("no request answered during the check: %+v", sum.Service)
	}
	if !strings.Contains(b.String(), "check of the lab service (") {
		t.Errorf("the summary does not describe the check:\n%s", b.String())
	}
	// Nothing built under the work directory may still run.
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, e := range exes {
		if p, err := os.Readlink(e); err == nil && strings.HasPrefix(p, work) {
			t.Errorf("%s is still running (%s)", p, e)
		}
	}
}
