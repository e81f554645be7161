package diagnose

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

func fnd(rule string, sev finding.Severity, file string, line int, srcs ...string) finding.Finding {
	return finding.Finding{Rule: rule, Severity: sev, Message: rule + " message",
		Locations: []finding.Location{{File: file, Line: line, Function: "main.consume"}},
		Evidence:  []finding.Evidence{{Label: "figure", Value: 1, Unit: "cores"}}, Sources: srcs}
}

func TestCheckJoinsOneCause(t *testing.T) {
	in := CheckInput{
		Lint:    []finding.Finding{fnd("SD101", finding.Warning, "svc/main.go", 97)},
		Profile: []finding.Finding{fnd("SD204", finding.Critical, "/home/u/svc/main.go", 97, "profile", "lint")},
		Trace:   []finding.Finding{fnd("SD308", finding.Warning, "/home/u/svc/main.go", 97)},
	}
	out, sum := Check(in)
	if len(out) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(out), out)
	}
	f := out[0]
	if f.Rule != "SD204" || f.Severity != finding.Critical {
		t.Errorf("rule %s severity %v; want the most severe, SD204 critical", f.Rule, f.Severity)
	}
	if !slices.Equal(f.Sources, []string{"lint", "profile", "trace"}) {
		t.Errorf("sources %v", f.Sources)
	}
	if !strings.Contains(f.Text(), "3 sources agree") {
		t.Errorf("message %q", f.Text())
	}
	if len(f.Evidence) != 3 || !strings.HasPrefix(f.Evidence[0].Label, "profile SD204: ") {
		t.Errorf("evidence %+v; want each source's, labelled, the chosen one's first", f.Evidence)
	}
	if sum.Causes != 1 || sum.Merged != 2 {
		t.Errorf("summary %+v", sum)
	}
}

func TestCheckKeepsDistinctCauses(t *testing.T) {
	in := CheckInput{
		Profile: []finding.Finding{fnd("SD204", finding.Warning, "/a/main.go", 97)},
		// Another line, another file whose name ends the same, another family at the same line.
		Trace: []finding.Finding{
			fnd("SD307", finding.Warning, "/a/main.go", 117),
			fnd("SD308", finding.Warning, "/a/xmain.go", 97),
			fnd("SD306", finding.Warning, "/a/main.go", 97),
		},
		Goroutines: []finding.Finding{fnd("SD701", finding.Warning, "/a/main.go", 148)},
	}
	out, sum := Check(in)
	if len(out) != 5 || sum.Merged != 0 {
		t.Fatalf("%d findings (%d merged), want 5 kept apart", len(out), sum.Merged)
	}
	for _, f := range out {
		if len(f.Sources) > 1 {
			t.Errorf("%s: sources %v on a single-source finding", f.Rule, f.Sources)
		}
	}
}

func TestCheckLinksLatencyToSpin(t *testing.T) {
	lat := finding.Finding{Rule: "SD302", Severity: finding.Warning, Message: "runnable backlog"}
	in := CheckInput{
		Profile: []finding.Finding{fnd("SD204", finding.Warning, "/a/main.go", 97)},
		Trace:   []finding.Finding{lat},
	}
	out, sum := Check(in)
	if len(out) != 2 || sum.Linked != 1 {
		t.Fatalf("%d findings, %d linked", len(out), sum.Linked)
	}
	for _, f := range out {
		if f.Rule == "SD302" && (!strings.Contains(f.Text(), "main.go:97") || !strings.Contains(f.Text(), "1.00 cores")) {
			t.Errorf("latency message %q does not name the spin and its cores", f.Text())
		}
	}
	// An info spin explains nothing.
	in.Profile[0].Severity = finding.Info
	if _, sum := Check(in); sum.Linked != 0 {
		t.Error("an info spin was linked")
	}
}

// TestCheckLockConvoyLeadsTheBacklog: a lock queue (SD309 from the
// mutex/block profiles) explains the trace's backlog: SD302 names it and
// its fix is the lock's, not "Add CPU" (issue 20). A spin does the same.
// The close negative: an info lock queue links nothing and leaves the fix.
// Fails on the join that linked spins only and kept the CPU advice.
func TestCheckLockConvoyLeadsTheBacklog(t *testing.T) {
	cpuFix := finding.MustLookup("SD302").Fix
	lat := finding.Finding{Rule: "SD302", Severity: finding.Warning, Message: "runnable backlog", Fix: cpuFix}
	for _, c := range []struct {
		name  string
		cause finding.Finding
		src   string
		link  bool
	}{
		{"lock convoy", fnd("SD309", finding.Warning, "/a/store.go", 42), "goroutines", true},
		{"spin", fnd("SD204", finding.Critical, "/a/main.go", 97), "profile", true},
		{"info lock queue", fnd("SD309", finding.Info, "/a/store.go", 42), "goroutines", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cause.Fix = "shorten the critical section"
			in := CheckInput{Trace: []finding.Finding{lat}}
			if c.src == "goroutines" {
				in.Contention = []finding.Finding{c.cause}
			} else {
				in.Profile = []finding.Finding{c.cause}
			}
			out, sum := Check(in)
			i := slices.IndexFunc(out, func(f finding.Finding) bool { return f.Rule == "SD302" })
			if i < 0 {
				t.Fatalf("no SD302 in %+v", out)
			}
			f := out[i]
			if !c.link {
				if sum.Linked != 0 || f.Fix != cpuFix {
					t.Errorf("an info cause was linked: %q / %q", f.Text(), f.Fix)
				}
				return
			}
			at := fmt.Sprintf("%s:%d", filepath.Base(c.cause.Locations[0].File), c.cause.Locations[0].Line)
			if sum.Linked != 1 || !strings.Contains(f.Text(), at) {
				t.Errorf("SD302 %q does not name %s", f.Text(), at)
			}
			if strings.Contains(strings.ToLower(f.Fix), "add cpu") || !strings.Contains(f.Fix, "shorten the critical section") {
				t.Errorf("SD302 fix %q: want the cause's fix, no CPU advice", f.Fix)
			}
		})
	}
}

// TestCheckPreemptionOfASpinIsNotOversubscription: a preemption storm
// (SD208) beside a spin at warning is the spin's (a loop that never yields
// is preempted every 10ms at GOMAXPROCS = CPUs, issue 20's lock-free queue
// consumers): linked to it, with the spin's fix instead of "set GOMAXPROCS
// to the CPUs". The close negatives: beside a lock queue only, or alone,
// SD208 keeps its fix. Fails on the join that left SD208 unlinked.
func TestCheckPreemptionOfASpinIsNotOversubscription(t *testing.T) {
	pre := finding.Finding{Rule: "SD208", Severity: finding.Warning, Message: "preemption",
		Fix: "set GOMAXPROCS to the CPUs really available"}
	spin := fnd("SD204", finding.Warning, "/a/consumer.go", 30)
	spin.Fix = "block on the event"
	lock := fnd("SD309", finding.Warning, "/a/store.go", 42)
	for _, c := range []struct {
		name   string
		others []finding.Finding
		linked bool
	}{
		{"beside a spin", []finding.Finding{spin}, true},
		{"beside a lock queue", []finding.Finding{lock}, false},
		{"alone", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := Check(CheckInput{Profile: append([]finding.Finding{pre}, c.others...)})
			i := slices.IndexFunc(out, func(f finding.Finding) bool { return f.Rule == "SD208" })
			f := out[i]
			gomax := strings.Contains(f.Fix, "set GOMAXPROCS to the CPUs")
			if c.linked && (gomax || !strings.Contains(f.Text(), "consumer.go:30")) {
				t.Errorf("SD208 beside a spin: %q / %q", f.Text(), f.Fix)
			}
			if !c.linked && !gomax {
				t.Errorf("SD208 lost its fix: %q", f.Fix)
			}
		})
	}
}

type checkSource map[int]*inspect.Loop

func (f checkSource) At(file string, line int) (*inspect.Loop, error) {
	if l, ok := f[line]; ok {
		return l, nil
	}
	return nil, inspect.ErrNoSource
}

func TestCheckConfirmsWithSource(t *testing.T) {
	src := checkSource{
		117: {Kind: inspect.SleepPoll, Start: 112, End: 118, SpinLine: 117, Detail: "time.Sleep(10µs) at line 117"},
		50:  {Kind: inspect.Compute, Start: 48, End: 55, Detail: "computes"},
	}
	in := CheckInput{
		Trace: []finding.Finding{fnd("SD307", finding.Warning, "/a/main.go", 117), fnd("SD308", finding.Warning, "/a/main.go", 50),
			fnd("SD308", finding.Warning, "/a/main.go", 70)},
		Source: src,
	}
	out, _ := Check(in)
	for _, f := range out {
		confirmed := slices.Contains(f.Sources, "lint")
		if want := f.Locations[0].Line == 117; confirmed != want {
			t.Errorf("%s at %d: confirmed=%v, want %v (sources %v)", f.Rule, f.Locations[0].Line, confirmed, want, f.Sources)
		}
	}
}
