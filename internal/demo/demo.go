// Package demo runs schedoctor on its own lab, so that a new user sees every
// layer work in one command: it writes the embedded lab programs into a
// temporary module (no network), lints them, runs each anti-pattern under a
// CPU profile and an execution trace, diagnoses what it recorded, runs
// `check` on the lab service under load over loopback, and checks the
// diagnoses against the lab's markers (lab.Markers, labsvc.Causes).
//
// Each run of a program is measured against the rest of the machine
// (Machine): a diagnosis that differs from the lab's markers while other
// processes measurably used the CPUs is reported as the busy machine's, not
// counted as a failure; on a quiet machine it fails.
package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/viz"
)

// Stage is one layer the demo exercises.
type Stage string

const (
	StageLint    Stage = "lint"
	StageProfile Stage = "profile"
	StageTrace   Stage = "trace"
	// StageCheck runs `schedoctor check` on the lab service (ServiceName),
	// not on the lab programs.
	StageCheck Stage = "check"
)

// Stages lists every stage in the order they run.
var Stages = []Stage{StageLint, StageProfile, StageTrace, StageCheck}

// ServiceName is the lab service's row in the table and its name in
// Options.Programs.
const ServiceName = "labservice"

// ruleStage maps a rule to the stage that reports it, by its hundreds digit.
func ruleStage(rule string) Stage {
	switch {
	case strings.HasPrefix(rule, "SD1"):
		return StageLint
	case strings.HasPrefix(rule, "SD2"):
		return StageProfile
	case strings.HasPrefix(rule, "SD3"):
		return StageTrace
	}
	return ""
}

// Options control Run. The zero value runs every stage on every program.
type Options struct {
	Stages   []Stage       // nil means Stages
	Programs []string      // nil means every lab program and the lab service (ServiceName)
	Duration time.Duration // how long each program runs per stage; 0 means 1s
	WorkDir  string        // where to write the lab module; "" means a temporary directory, removed at the end
	Progress io.Writer     // one line per step; nil means silent
}

// Result is the demo's findings (all stages, all programs) and its summary.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Summary is the demo's table: for each program and stage, the rules that
// were expected (the lab's markers) and the rules that were found.
type Summary struct {
	Stages   []Stage          `json:"stages"`
	Programs []ProgramSummary `json:"programs"`
	// Mismatch counts the program×stage cells whose findings differ from
	// the markers on a quiet machine, or by a stage that does not depend
	// on the machine (lint), or because the stage failed: the demo fails.
	Mismatch int `json:"mismatches"`
	// BusyMismatch counts the cells whose findings differ from the
	// markers while the machine was measurably busy (StageSummary.Busy):
	// reported, not counted as failures.
	BusyMismatch int `json:"busy_mismatches,omitempty"`
	// Busiest is the busiest machine measured during those cells' runs.
	Busiest *Machine `json:"busiest,omitempty"`
	// BusyHost counts the cells with findings caused by the host
	// withholding CPU (StageSummary.Host): the machine was busy.
	BusyHost int `json:"busy_host"`
	// Service is what `check` said about the lab service (StageCheck).
	Service *ServiceSummary `json:"service,omitempty"`
	// Live is the live monitor's step (live.go), run with StageCheck.
	Live *LiveSummary `json:"live,omitempty"`
}

// ProgramSummary is one row of the table.
type ProgramSummary struct {
	Name    string                  `json:"name"`
	Summary string                  `json:"summary"`
	Healthy bool                    `json:"healthy"`
	Cells   map[Stage]*StageSummary `json:"stages"`
}

// StageSummary is what one stage said about one program.
type StageSummary struct {
	Expected   []string `json:"expected"`             // rules the lab marks for this stage
	Allowed    []string `json:"allowed,omitempty"`    // rules the lab allows but does not require
	Found      []string `json:"found"`                // rules reported (warning or above, or any marked rule)
	Missing    []string `json:"missing,omitempty"`    // expected, not found
	Unexpected []string `json:"unexpected,omitempty"` // found at warning or above, not expected
	// Host lists rules found at warning or above whose measured cause is
	// the machine, not the program: the trace saw the Ps busy far beyond
	// the CPU the program got (the host withheld it). They are true of this
	// run and say nothing about the lab's markers, so they are not
	// mismatches; the summary says the machine was busy.
	Host  []string `json:"host,omitempty"`
	Error string   `json:"error,omitempty"` // the stage failed for this program
	// Machine is the rest of the machine during the run (nil: not
	// measured, or a stage that does not run the program).
	Machine *Machine `json:"machine,omitempty"`
	// Busy is set when the findings differ from the markers while the
	// machine was busy (Machine.Busy): the mismatch is not a failure.
	Busy bool `json:"busy,omitempty"`
	// Sources gives, for the check stage, how many sources agree on each
	// found rule (the join's "sources").
	Sources map[string]int `json:"sources,omitempty"`
	// Visual is the stage's pictures for the HTML report (the profile's
	// flame graph and CPU by cause; the trace's P timeline and latency
	// histogram; for check, both), titled "<program>: <stage>". The HTML
	// renderer finds it through viz.Provider (htmlreport.Collect); the
	// JSON leaves it out, as `schedoctor profile -json` leaves out its
	// flame graph, so the table's JSON stays small.
	Visual *viz.Set `json:"-"`
}

// OK reports whether the stage found exactly what the lab expects.
func (s *StageSummary) OK() bool {
	return s.Error == "" && len(s.Missing) == 0 && len(s.Unexpected) == 0
}

// excusable reports whether a mismatch in this cell may be the busy
// machine's: the stage ran the program (lint reads source, and reads it
// the same on any machine), it did not fail, and the run was measured busy.
func (s *StageSummary) excusable(st Stage) bool {
	return st != StageLint && s.Error == "" && s.Machine.Busy()
}

// runner holds the state of one demo run.
type runner struct {
	opt      Options
	dir      string            // the lab module (go line of the project)
	bins     map[string]string // built programs by name
	programs []lab.Program
	service  bool // run check on the lab service
	res      Result
	rows     map[string]*ProgramSummary
	sample   sampler // the machine's counters; nil measures nothing
}

// Run runs the demo. It fails only when the lab cannot be written or
// built; a stage that fails on one program is recorded in the summary.
func Run(ctx context.Context, opt Options) (*Result, error) {
	if opt.Stages == nil {
		opt.Stages = Stages
	}
	if opt.Duration <= 0 {
		opt.Duration = time.Second
	}
	r := &runner{opt: opt, rows: map[string]*ProgramSummary{}, sample: readSample}
	for _, p := range lab.Programs {
		if p.Sweep {
			continue // a workload for schedoctor sweep, not a lesson
		}
		if opt.Programs == nil || slices.Contains(opt.Programs, p.Name) {
			r.programs = append(r.programs, p)
		}
	}
	r.service = slices.Contains(opt.Stages, StageCheck) && (opt.Programs == nil || slices.Contains(opt.Programs, ServiceName))
	programStages := slices.DeleteFunc(slices.Clone(opt.Stages), func(st Stage) bool { return st == StageCheck })
	if len(programStages) == 0 || len(r.programs) == 0 {
		r.programs = nil
		programStages = nil
	}
	if len(r.programs) == 0 && !r.service {
		return nil, fmt.Errorf("no lab program matches %v for stages %v (the lab service %s runs in the check stage only)", opt.Programs, opt.Stages, ServiceName)
	}
	dir := opt.WorkDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "schedoctor-demo-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	r.dir = dir
	sum := &Summary{Stages: opt.Stages}
	for _, p := range r.programs {
		row := &ProgramSummary{Name: p.Name, Summary: p.Summary, Healthy: p.Healthy, Cells: map[Stage]*StageSummary{}}
		expected, err := lab.Expected(p.Name)
		if err != nil {
			return nil, err
		}
		allowed, err := lab.Allowed(p.Name)
		if err != nil {
			return nil, err
		}
		for _, st := range programStages {
			cell := &StageSummary{Expected: []string{}, Found: []string{}}
			for _, rule := range expected {
				if ruleStage(rule) == st {
					cell.Expected = append(cell.Expected, rule)
				}
			}
			for _, rule := range allowed {
				if ruleStage(rule) == st {
					cell.Allowed = append(cell.Allowed, rule)
				}
			}
			slices.Sort(cell.Expected)
			row.Cells[st] = cell
		}
		sum.Programs = append(sum.Programs, *row)
	}
	if r.service {
		sum.Programs = append(sum.Programs, ProgramSummary{Name: ServiceName, Summary: serviceSummary,
			Cells: map[Stage]*StageSummary{StageCheck: {Expected: []string{}, Found: []string{}}}})
	}
	for i := range sum.Programs {
		r.rows[sum.Programs[i].Name] = &sum.Programs[i]
	}
	for _, st := range opt.Stages {
		var err error
		switch st {
		case StageLint:
			if len(r.programs) > 0 {
				err = r.lint(ctx)
			}
		case StageProfile, StageTrace:
			if len(r.programs) > 0 {
				err = r.runtime(ctx, st)
			}
		case StageCheck:
			if r.service {
				sum.Service, err = r.check(ctx)
				if err == nil {
					sum.Live = r.live(ctx)
				}
			}
		default:
			err = fmt.Errorf("unknown stage %q", st)
		}
		if err != nil {
			return nil, err
		}
	}
	tally(sum)
	r.res.Summary = sum
	finding.Sort(r.res.Findings)
	return &r.res, nil
}

// tally counts the mismatches: a cell that differs from the markers fails
// the demo unless its run was measured on a busy machine (excusable).
func tally(sum *Summary) {
	sum.Mismatch, sum.BusyMismatch, sum.BusyHost, sum.Busiest = 0, 0, 0, nil
	for i := range sum.Programs {
		for _, st := range sum.Stages {
			cell := sum.Programs[i].Cells[st]
			if cell == nil {
				continue
			}
			cell.Busy = false
			switch {
			case cell.OK():
			case cell.excusable(st):
				cell.Busy = true
				sum.BusyMismatch++
				if sum.Busiest == nil || cell.Machine.OtherCPUs > sum.Busiest.OtherCPUs {
					sum.Busiest = cell.Machine
				}
			default:
				sum.Mismatch++
			}
			if len(cell.Host) > 0 {
				sum.BusyHost++
			}
		}
	}
}

func (r *runner) progress(format string, args ...any) {
	if r.opt.Progress != nil {
		fmt.Fprintf(r.opt.Progress, format+"\n", args...)
	}
}

// record files a stage's findings for a program and compares them with
// what the lab expects. Locations are made to point into the lab as
// internal/lab/<name>/main.go so that the output does not depend on the
// temporary directory.
func (r *runner) record(name string, st Stage, fs []finding.Finding, m *Machine, stageErr error) {
	cell := r.rows[name].Cells[st]
	cell.Machine = m
	if stageErr != nil {
		cell.Error = stageErr.Error()
		return
	}
	found := map[string]bool{}
	for i := range fs {
		f := &fs[i]
		for j := range f.Locations {
			f.Locations[j].File = r.labPath(f.Locations[j].File)
		}
		if f.Severity >= finding.Warning && !slices.Contains(cell.Expected, f.Rule) && hostCaused(f) {
			if !slices.Contains(cell.Host, f.Rule) {
				cell.Host = append(cell.Host, f.Rule)
			}
			continue
		}
		if f.Severity >= finding.Warning || slices.Contains(cell.Expected, f.Rule) {
			found[f.Rule] = true
		}
	}
	slices.Sort(cell.Host)
	for rule := range found {
		cell.Found = append(cell.Found, rule)
		if !slices.Contains(cell.Expected, rule) && !slices.Contains(cell.Allowed, rule) {
			cell.Unexpected = append(cell.Unexpected, rule)
		}
	}
	slices.Sort(cell.Found)
	slices.Sort(cell.Unexpected)
	for _, rule := range cell.Expected {
		if !found[rule] {
			cell.Missing = append(cell.Missing, rule)
		}
	}
	r.res.Findings = append(r.res.Findings, fs...)
}

// hostCaused reports whether a finding's measured cause is the host
// withholding CPU from the program: the trace analysis then reports the
// CPU the process got against its busy Ps (exectrace's SD303 "while the
// process got N cores"), which only a busy machine produces; and the
// procs layer's CPU pressure (SD406, the process's threads waiting on a
// run queue), which measures the machine around the program, not its code.
func hostCaused(f *finding.Finding) bool {
	if f.Rule == "SD406" {
		return true
	}
	if f.Rule != "SD303" {
		return false
	}
	for _, e := range f.Evidence {
		if e.Label == "busy Ps per core the process got" {
			return true
		}
	}
	return false
}

// labPath rewrites a path inside the temporary lab module to its place in
// the repository, internal/lab/<name>/main.go.
func (r *runner) labPath(p string) string {
	if i := strings.LastIndex(p, "internal/lab/"); i >= 0 {
		return p[i:]
	}
	return p
}
