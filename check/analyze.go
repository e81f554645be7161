package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/contention"
	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/goroutines"
	"github.com/schedoctor/schedoctor/procs"
	"github.com/schedoctor/schedoctor/profile"
)

// ProcsCapture is the process layer as saved: the summary for the report
// and the findings procs derived live (some of its figures are not in the
// summary's JSON, so the findings are kept as they were made).
type ProcsCapture struct {
	Summary  *procs.Summary    `json:"summary"`
	Findings []finding.Finding `json:"findings"`
}

// InspectProcs reads the procs layer of pid and keeps it in the set.
func (s *Set) InspectProcs(pid int, window time.Duration) error {
	sum, err := procs.Inspect(procs.Options{PID: pid, Window: window})
	if err != nil {
		return fmt.Errorf("procs of pid %d: %w", pid, err)
	}
	b, err := json.Marshal(ProcsCapture{Summary: sum, Findings: procs.Findings(sum)})
	if err != nil {
		return fmt.Errorf("procs of pid %d: %w", pid, err)
	}
	s.Procs = b
	return nil
}

// AnalyzeOptions tune Analyze.
type AnalyzeOptions struct {
	// Source reads the lines the profile and trace name; nil reads none.
	Source diagnose.SourceReader
	// CPUs overrides the CPU count the trace analysis uses; 0 takes the
	// procs layer's available CPUs when it was read.
	CPUs float64
	// ProfileLimits bound the CPU profile's reading (zero fields: the
	// defaults of profile.Limits), as for `schedoctor profile`.
	ProfileLimits profile.Limits
	// MaxGeneration bounds the trace reader's generation, in bytes (0: the
	// default of exectrace.Options).
	MaxGeneration int64
}

// Summary is what each source saw, for the report; a nil part was not
// captured or could not be read (Failed says why).
type Summary struct {
	Target     string                   `json:"target"`
	Captures   []*Capture               `json:"captures"`
	Failed     []string                 `json:"failed,omitempty"`
	Profile    *diagnose.ProfileSummary `json:"profile,omitempty"`
	Trace      *diagnose.TraceSummary   `json:"trace,omitempty"`
	Goroutines *goroutines.Summary      `json:"goroutines,omitempty"`
	Contention *contention.Summary      `json:"contention,omitempty"`
	Procs      *procs.Summary           `json:"procs,omitempty"`
	Join       *diagnose.CheckSummary   `json:"join,omitempty"`
	Live       *LiveSummary             `json:"live,omitempty"`
}

// Result is the joined diagnosis of a set.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Analyze reads every capture with its source's reader and analysis and
// joins the findings (diagnose.Check). A capture that cannot be read is
// added to Failed and the others still count.
func Analyze(ctx context.Context, s *Set, opt AnalyzeOptions) (*Result, error) {
	sum := &Summary{Target: s.Target, Captures: s.Captures}
	var in diagnose.CheckInput
	fail := func(kind string, err error) {
		sum.Failed = append(sum.Failed, fmt.Sprintf("%s: %v", kind, err))
	}
	for _, c := range s.Captures {
		if c.Error != "" {
			sum.Failed = append(sum.Failed, fmt.Sprintf("%s: %s", c.Kind, c.Error))
		}
	}

	cpus := opt.CPUs
	if len(s.Procs) > 0 {
		var pc ProcsCapture
		if err := json.Unmarshal(s.Procs, &pc); err != nil {
			fail("procs", err)
		} else {
			sum.Procs = pc.Summary
			in.Procs = pc.Findings
			if cpus <= 0 && pc.Summary != nil {
				cpus = pc.Summary.CPUs.Available
			}
		}
	}

	if c := s.Get(KindProfile); c.OK() {
		if p, err := profile.ReadContext(ctx, c.Endpoint, bytes.NewReader(c.Data), opt.ProfileLimits); err != nil {
			fail(c.Kind, err)
		} else if res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{}); err != nil {
			fail(c.Kind, err)
		} else if j, err := diagnose.Profile(res, diagnose.Options{Source: opt.Source}); err != nil {
			fail(c.Kind, err)
		} else {
			sum.Profile, in.Profile = j.Summary, j.Findings
		}
	}

	if c := s.Get(KindTrace); c.OK() {
		topt := exectrace.Options{CPUs: cpus, ProcessCPU: time.Duration(c.ProcessCPU * float64(time.Second)), MaxGeneration: opt.MaxGeneration}
		if res, err := exectrace.Analyze(ctx, bytes.NewReader(c.Data), topt); err != nil {
			fail(c.Kind, err)
		} else {
			if t := res.Summary.Truncated; t != nil {
				fail(c.Kind, fmt.Errorf("trace read up to a break: %s", t))
			}
			if j, err := diagnose.Trace(res, topt, diagnose.Options{Source: opt.Source}); err != nil {
				fail(c.Kind, err)
			} else {
				sum.Trace, in.Trace = j.Summary, j.Findings
			}
		}
	}

	var dumps []*goroutines.Dump
	for _, kind := range []string{KindGoroutineStart, KindGoroutineEnd, KindLeak} {
		c := s.Get(kind)
		if !c.OK() {
			continue
		}
		d, err := goroutines.Parse(c.Endpoint, c.Data, goroutines.ReadOptions{})
		if err != nil {
			fail(kind, err)
			continue
		}
		if d.Time.IsZero() {
			// The answer's time: the dump is taken when the server answers.
			d.Time = c.Start.Add(time.Duration(c.Duration * float64(time.Second))).UTC()
		}
		dumps = append(dumps, d)
	}
	if len(dumps) > 0 {
		// The window of a single check is short: only the two dumps' growth
		// and the leak profile can show a leak; age needs minutes.
		if res, err := goroutines.Analyze(dumps, goroutines.Options{}); err != nil {
			fail("goroutines", err)
		} else {
			sum.Goroutines, in.Goroutines = res.Summary, res.Findings
		}
	}

	var profs []*contention.Profile
	for _, kind := range []string{KindMutex, KindBlock} {
		c := s.Get(kind)
		if !c.OK() {
			continue
		}
		// The endpoint says which profile it is: an empty block profile
		// has no leaves to tell it from a mutex one by (contention.guessKind
		// would call both "mutex", and the summary would name the wrong
		// setting to enable).
		p, err := contention.Parse(c.Endpoint, c.Data, contention.ReadOptions{Kind: contention.Kind(kind)})
		if err != nil {
			fail(kind, err)
			continue
		}
		profs = append(profs, p)
	}
	if len(profs) > 0 {
		if res, err := contention.Analyze(profs, contention.Options{}); err != nil {
			fail("contention", err)
		} else {
			sum.Contention, in.Contention = res.Summary, res.Findings
		}
	}

	in.Source = opt.Source
	fs, js := diagnose.Check(in)
	sum.Join = js
	fs, sum.Live = joinLive(ctx, s, fs, cpus, opt.Source, fail)
	return &Result{Findings: fs, Summary: sum}, nil
}
