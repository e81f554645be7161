package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/demo/labsvc"
)

// TestMeasure: the other processes' CPU is the machine's busy time less
// the program's and the demo's own, over the run's wall time.
func TestMeasure(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	a := &sample{t: t0, busy: 100, self: 5, load1: 3, cpus: 2}
	b := &sample{t: t0.Add(2 * time.Second), busy: 104, self: 5.2, load1: 4.2, cpus: 2}
	m := measure(a, b, 1.2) // 4s busy - 0.2s demo - 1.2s program = 2.6s over 2s
	if m == nil || m.OtherCPUs != 1.3 || m.Load1 != 4.2 || m.CPUs != 2 || m.Seconds != 2 {
		t.Fatalf("measure = %+v; want 1.3 other CPUs, load 4.2, 2 CPUs, 2s", m)
	}
	if !m.Busy() {
		t.Error("1.3 of 2 CPUs used by others: want busy")
	}
	if got := m.String(); got != "load 4.2, other processes used 1.3 of 2 CPUs" {
		t.Errorf("String = %q", got)
	}
	quiet := measure(a, &sample{t: t0.Add(time.Second), busy: 101.25, self: 5.05, cpus: 2}, 1.15)
	if quiet == nil || quiet.OtherCPUs != 0.05 || quiet.Busy() {
		t.Errorf("quiet = %+v; want 0.05 other CPUs, not busy", quiet)
	}
	// Tick rounding can make the machine's busy time smaller than the
	// program's: nothing else ran.
	if m := measure(a, &sample{t: t0.Add(time.Second), busy: 100.9, self: 5, cpus: 2}, 1.0); m == nil || m.OtherCPUs != 0 {
		t.Errorf("rounding: %+v; want 0", m)
	}
	if measure(nil, b, 1) != nil || measure(a, nil, 1) != nil || measure(b, a, 0) != nil {
		t.Error("a missing sample or a backwards clock must leave the run unmeasured")
	}
	var unknown *Machine
	if unknown.Busy() || unknown.String() != "not measured" {
		t.Error("an unmeasured run is not busy")
	}
}

// fakeRunner is a runner with the table of two programs and the service,
// and an injected sampler: no program runs.
func fakeRunner(samples ...sample) (*runner, *Summary) {
	sum := &Summary{Stages: []Stage{StageLint, StageProfile, StageTrace, StageCheck}}
	for _, name := range []string{"mutex", "workerpool"} {
		p := ProgramSummary{Name: name, Cells: map[Stage]*StageSummary{}}
		for _, st := range []Stage{StageLint, StageProfile, StageTrace} {
			p.Cells[st] = &StageSummary{Expected: []string{}, Found: []string{}}
		}
		sum.Programs = append(sum.Programs, p)
	}
	sum.Programs[0].Cells[StageProfile].Expected = []string{"SD206"}
	sum.Programs = append(sum.Programs, ProgramSummary{Name: ServiceName, Cells: map[Stage]*StageSummary{StageCheck: {Expected: []string{}, Found: []string{}}}})
	r := &runner{rows: map[string]*ProgramSummary{}}
	for i := range sum.Programs {
		r.rows[sum.Programs[i].Name] = &sum.Programs[i]
	}
	r.sample = func() (sample, error) {
		s := samples[0]
		samples = samples[1:]
		return s, nil
	}
	return r, sum
}

func machineText(t *testing.T, sum *Summary) string {
	t.Helper()
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// The sentences are wrapped to the terminal's width: compare words.
	return strings.Join(strings.Fields(b.String()), " ")
}

// TestBusyMachineMismatch: the mutex program's profile misses SD206. With
// the run measured busy (injected samples: others used 1.3 of 2 CPUs) the
// demo says the machine was busy and does not count it; measured quiet,
// the same miss fails the demo. A lint mismatch fails on any machine.
func TestBusyMachineMismatch(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	busy := []sample{{t: t0, busy: 100, self: 5, cpus: 2, load1: 3}, {t: t0.Add(time.Second), busy: 102.3, self: 5, cpus: 2, load1: 4.2}}
	quiet := []sample{{t: t0, busy: 100, self: 5, cpus: 2, load1: 0.3}, {t: t0.Add(time.Second), busy: 101.05, self: 5, cpus: 2, load1: 0.4}}
	contended := []finding.Finding{{Rule: "SD205", Severity: finding.Warning}} // the runtime lock, not SD206

	for _, c := range []struct {
		name     string
		samples  []sample
		mismatch int
		busy     int
		text     []string
	}{
		{"busy", busy, 0, 1, []string{"the machine was busy (load 4.2, other processes used 1.3 of 2 CPUs), these diagnoses may differ: 1 of 7", "? +SD205 -SD206", "the other 6 diagnoses match"}},
		{"quiet", quiet, 1, 0, []string{"✗ +SD205 -SD206", "1 of 7 diagnoses differ"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, sum := fakeRunner(c.samples...)
			before := r.take()
			m := measure(before, r.take(), 1.0) // the program used 1 CPU-second of the run
			r.record("mutex", StageProfile, contended, m, nil)
			tally(sum)
			if sum.Mismatch != c.mismatch || sum.BusyMismatch != c.busy {
				t.Errorf("mismatch %d, busy mismatch %d; want %d, %d (machine %v)", sum.Mismatch, sum.BusyMismatch, c.mismatch, c.busy, m)
			}
			text := machineText(t, sum)
			for _, want := range c.text {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			if c.busy == 0 && strings.Contains(text, "the machine was busy") {
				t.Errorf("a quiet machine called busy:\n%s", text)
			}
		})
	}

	t.Run("lint", func(t *testing.T) {
		r, sum := fakeRunner(busy...)
		m := measure(r.take(), r.take(), 0)
		r.record("workerpool", StageLint, []finding.Finding{{Rule: "SD101", Severity: finding.Warning}}, m, nil)
		tally(sum)
		if sum.Mismatch != 1 || sum.BusyMismatch != 0 {
			t.Errorf("a lint mismatch on a busy machine: mismatch %d, busy %d; want 1, 0", sum.Mismatch, sum.BusyMismatch)
		}
	})
	t.Run("error", func(t *testing.T) {
		r, sum := fakeRunner(busy...)
		m := measure(r.take(), r.take(), 0)
		r.record("mutex", StageTrace, nil, m, errTest)
		tally(sum)
		if sum.Mismatch != 1 {
			t.Errorf("a stage that failed on a busy machine: mismatch %d; want 1", sum.Mismatch)
		}
	})
}

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "running lab program mutex: exit status 2" }

// TestRecordCheck: the service's cell from a check's findings, as the
// join makes them: the three causes with their sources, SD406 as the
// machine's, and a warning in a healthy handler as unexpected.
func TestRecordCheck(t *testing.T) {
	cs, err := labsvc.Causes()
	if err != nil {
		t.Fatal(err)
	}
	line := map[string]int{}
	for _, c := range cs {
		line[c.Name] = c.Line
	}
	file := "/tmp/schedoctor-demo-1/service/" + labsvc.RelPath
	at := func(rule string, l int, sev finding.Severity, fn string, src ...string) finding.Finding {
		return finding.Finding{Rule: rule, Severity: sev, Sources: src, Locations: []finding.Location{{File: file, Line: l, Function: fn}}}
	}
	fs := []finding.Finding{
		at("SD204", line["busy-select"], finding.Critical, "main.consume", "lint", "profile", "trace"),
		at("SD307", line["poll"], finding.Warning, "main.poll", "lint", "trace"),
		at("SD701", line["leak"], finding.Warning, "main.work"),
		{Rule: "SD406", Severity: finding.Warning, Locations: []finding.Location{{File: "/proc/1/task/*/schedstat"}}},
	}
	r, sum := fakeRunner()
	if _, err := r.recordCheck(fs, nil); err != nil {
		t.Fatal(err)
	}
	tally(sum)
	cell := sum.Programs[2].Cells[StageCheck]
	if got := cell.String(); got != "✓ SD204(3) SD307(2) SD701 !SD406" || sum.Mismatch != 0 {
		t.Errorf("cell %q, mismatches %d; want ✓ SD204(3) SD307(2) SD701 !SD406 and none", got, sum.Mismatch)
	}
	if fs[0].Locations[0].File != labsvc.RelPath {
		t.Errorf("location %s not rewritten to the repository's path", fs[0].Locations[0].File)
	}

	r, sum = fakeRunner()
	bad := append(fs[:1:1], at("SD307", line["poll"], finding.Warning, "main.poll", "trace"),
		at("SD204", line["leak"]+5, finding.Warning, "main.handleHash", "profile"))
	if _, err := r.recordCheck(bad, nil); err != nil {
		t.Fatal(err)
	}
	tally(sum)
	cell = sum.Programs[2].Cells[StageCheck]
	if got := cell.String(); got != "✗ +SD204 -poll/1src -leak" {
		t.Errorf("cell %q; want the lone-source poll, the missing leak and the handler's SD204", got)
	}
	if sum.Mismatch != 1 {
		t.Errorf("mismatches %d; want 1", sum.Mismatch)
	}
}
