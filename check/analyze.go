package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
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
	// defaults of profile.ReadOptions), as for `schedoctor profile`.
	ProfileLimits profile.ReadOptions
	// MaxGeneration bounds the trace reader's generation, in bytes (0: the
	// default of exectrace.Options).
	MaxGeneration int64
	// Release drops each capture's raw bytes (Capture.Data) once it is
	// read, keeping only what was read from it: the captures are held
	// together only until then. Set it when the set is not saved after.
	Release bool
}

// Summary is what each source saw, for the report; a nil part was not
// captured or could not be read (Failed says why).
type Summary struct {
	Target   string     `json:"target"`
	Captures []*Capture `json:"captures"`
	Failed   []string   `json:"failed,omitempty"`
	// Skipped lists the captures not taken on purpose, and why.
	Skipped []string `json:"skipped,omitempty"`
	// Read counts the captures read by their source: 0 means nothing
	// could be diagnosed, whatever the failures say.
	Read int `json:"read"`
	// Dumps names the goroutine captures the leak analysis compared.
	Dumps      []string                 `json:"goroutine_dumps,omitempty"`
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

// ReadError is the error of a check whose captures were all there but
// none could be read (a saved directory of garbage, a target answering
// junk): no diagnosis, not "no findings". nil when something was read.
func (r *Result) ReadError() error {
	if r.Summary.Read > 0 {
		return nil
	}
	msg := "no capture could be read"
	if len(r.Summary.Failed) > 0 {
		msg += ":\n  " + strings.Join(r.Summary.Failed, "\n  ")
	}
	return errors.New(msg)
}

// Analyze reads every capture with its source's reader and analysis and
// hands every source's findings, the live monitor's included, to the one
// join (diagnose.Check). A capture that cannot be read is
// added to Failed and the others still count.
func Analyze(ctx context.Context, s *Set, opt AnalyzeOptions) (*Result, error) {
	sum := &Summary{Target: s.Target, Captures: s.Captures, Skipped: s.Skipped()}
	var in diagnose.CheckInput
	fail := func(kind string, err error) {
		if c := s.Get(kind); c != nil && c.File != "" {
			kind += " (file " + c.File + ")" // a saved directory's: say which file
		}
		sum.Failed = append(sum.Failed, fmt.Sprintf("%s: %v", kind, err))
	}
	// done marks a capture read (ok) and, with Release, drops its bytes.
	done := func(c *Capture, ok bool) {
		if ok {
			sum.Read++
		}
		if opt.Release && c != nil {
			c.Bytes = c.Size()
			c.Data = nil
		}
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
			sum.Read++
			if cpus <= 0 && pc.Summary != nil {
				cpus = pc.Summary.CPUs.Available
			}
		}
	}

	if c := s.Get(KindProfile); c.OK() {
		p, err := profile.Read(ctx, c.Endpoint, bytes.NewReader(c.Data), opt.ProfileLimits)
		done(c, err == nil)
		if err != nil {
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
		topt := exectrace.Options{CPUs: cpus, ProcessCPU: time.Duration(c.ProcessCPU * float64(time.Second))}
		res, err := readTrace(ctx, c.Endpoint, bytes.NewReader(c.Data), exectrace.ReadOptions{MaxGeneration: opt.MaxGeneration}, topt)
		done(c, err == nil)
		if err != nil {
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

	sum.Goroutines, in.Goroutines, sum.Dumps = analyzeDumps(ctx, s, fail, done)

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
		p, err := contention.Read(ctx, c.Endpoint, bytes.NewReader(c.Data), contention.ReadOptions{Kind: contention.Kind(kind)})
		done(c, err == nil)
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

	lr := readLive(ctx, s, cpus, opt.Source, fail)
	if lr != nil {
		in.Live = lr.in
	}
	in.Source = opt.Source
	fs, js := diagnose.Check(in)
	sum.Join = js
	if lr != nil {
		sum.Live = lr.summary(js.Live, fail)
		sum.Read++
	}
	for _, kind := range []string{KindLive, KindLiveSnapshot} {
		if c := s.Get(kind); c != nil && opt.Release {
			done(c, false)
		}
	}
	return &Result{Findings: fs, Summary: sum}, nil
}

// analyzeDumps reads the goroutine captures and finds leaks. Two dumps of
// one format are compared: the full dumps (debug=2: IDs, ages, creators)
// when both were taken, else the two goroutine profiles (debug=0), which
// every check takes; the leak endpoint's answer, whatever its form, is the
// leak profile. It returns the summary, the findings and the captures
// compared.
func analyzeDumps(ctx context.Context, s *Set, fail func(string, error), done func(*Capture, bool)) (*goroutines.Summary, []finding.Finding, []string) {
	pick := []string{}
	switch {
	case s.Get(KindGoroutineStart).OK() && s.Get(KindGoroutineEnd).OK():
		pick = append(pick, KindGoroutineStart, KindGoroutineEnd)
	case s.Get(KindGoroutineStartProto).OK() && s.Get(KindGoroutineEndProto).OK():
		pick = append(pick, KindGoroutineStartProto, KindGoroutineEndProto)
	default:
		// One moment only: the richest capture of the latest.
		for _, k := range []string{KindGoroutineEnd, KindGoroutineEndProto, KindGoroutineStart, KindGoroutineStartProto} {
			if s.Get(k).OK() {
				pick = append(pick, k)
				break
			}
		}
	}
	var dumps []*goroutines.Dump
	var used []string
	read := func(kind string, leak bool) {
		c := s.Get(kind)
		if !c.OK() {
			return
		}
		d, err := goroutines.Read(ctx, c.Endpoint, bytes.NewReader(c.Data), goroutines.ReadOptions{})
		done(c, err == nil)
		if err != nil {
			fail(kind, err)
			return
		}
		if d.Time.IsZero() {
			// The answer's time: the dump is taken when the server answers.
			d.Time = c.Start.Add(time.Duration(c.Duration * float64(time.Second))).UTC()
		}
		if leak {
			markLeakAnswer(d)
		}
		dumps = append(dumps, d)
		used = append(used, kind)
	}
	for _, k := range pick {
		read(k, false)
	}
	read(KindLeak, true)
	// The captures not compared are not read: drop their bytes too.
	for _, k := range []string{KindGoroutineStart, KindGoroutineEnd, KindGoroutineStartProto, KindGoroutineEndProto} {
		if c := s.Get(k); c.OK() && !slices.Contains(pick, k) {
			done(c, false)
		}
	}
	if len(dumps) == 0 {
		return nil, nil, nil
	}
	// In the order they were taken: a full-dump leak profile stands in
	// for a missing dump at its own moment.
	slices.SortStableFunc(dumps, func(a, b *goroutines.Dump) int { return a.Time.Compare(b.Time) })
	// The window of a single check is short: only the two dumps' growth
	// and the leak profile can show a leak; age needs minutes.
	res, err := goroutines.Analyze(dumps, goroutines.Options{})
	if err != nil {
		fail("goroutines", err)
		return nil, nil, used
	}
	return res.Summary, res.Findings, used
}

// markLeakAnswer makes what the leak endpoint answered the leak profile,
// whatever its form: Go 1.26 built with GOEXPERIMENT=goroutineleakprofile
// answers goroutineleak?debug=2 with a full dump of every goroutine, the
// leaked marked "(leaked)" and none when none leaked; its profile
// (debug=0, 1) lists only the leaked. The endpoint says what it is even
// when the dump's marks do not.
func markLeakAnswer(d *goroutines.Dump) {
	d.Profile = goroutines.ProfileGoroutineLeak
}

// readTrace reads a captured trace and analyses it.
func readTrace(ctx context.Context, name string, r io.Reader, ropt exectrace.ReadOptions, topt exectrace.Options) (*exectrace.Result, error) {
	t, err := exectrace.Read(ctx, name, r, ropt)
	if err != nil {
		return nil, err
	}
	return exectrace.Analyze(t, topt)
}
