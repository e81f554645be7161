package fleet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
)

// DefaultConcurrency is how many targets are captured at once: a check
// mostly waits for its target's profile and trace, so 16 at a time cost
// the machine running schedoctor little but the analyses, which take
// their own bounded turns (at most GOMAXPROCS at once).
const DefaultConcurrency = 16

// Status of a target after the run.
const (
	StatusChecked = "checked" // captured and diagnosed (it may have findings)
	StatusSkipped = "skipped" // not contacted: not up, or no pprof address
	StatusFailed  = "failed"  // contacted, but nothing could be captured or read
)

// Options tune Run.
type Options struct {
	Discovery
	// Check and Analyze are every target's single-target check options;
	// Check.Client is replaced by TargetClient unless set.
	Check   check.Options
	Analyze check.AnalyzeOptions
	// Concurrency is how many targets are captured at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// TargetTimeout bounds each target's captures; 0 means CaptureTime
	// of Check plus 30 s. What was captured by then is still diagnosed.
	TargetTimeout time.Duration
	// Log gets progress lines, from several goroutines (it must be safe
	// for that); nil says nothing.
	Log func(format string, args ...any)
}

// CaptureTime is how long one target's captures last by their options
// alone: the CPU profile, the trace, and the mutex and block windows, one
// after the other (check.Run's order), as check.Run defaults them. The
// goroutine profiles and dumps add milliseconds to seconds on top.
func CaptureTime(o check.Options) time.Duration {
	secs := o.Seconds
	if secs <= 0 {
		secs = 10
	}
	tr := o.TraceSeconds
	if tr <= 0 {
		tr = max(1, secs/3)
	}
	delta := o.DeltaSeconds
	if delta <= 0 {
		delta = 2
	}
	return time.Duration(secs+tr+2*delta) * time.Second
}

// Checked is one target's result.
type Checked struct {
	*Target
	Status string `json:"status"`
	// Reason says why a target was skipped or failed.
	Reason   string            `json:"reason,omitempty"`
	Findings []finding.Finding `json:"findings"`
	// Clean is true for a checked target with no finding at warning or
	// above: a lab program is healthy when no source warns about it
	// (internal/lab's Healthy), and an info finding ("cheap at this load")
	// is listed, not a cause to fix.
	Clean bool `json:"clean"`
	// Summary is the single-target check's summary (check.Summary); nil
	// when the target was skipped or nothing was captured.
	Summary  *check.Summary `json:"check,omitempty"`
	Duration float64        `json:"duration_seconds"`

	late bool // its deadline passed while it was captured (Summary.Hints)
}

// Summary is a fleet check's report summary: every target, and the
// causes the targets share, ranked by cost.
type Summary struct {
	Prometheus string `json:"prometheus"`
	Job        string `json:"job"`
	Selector   string `json:"selector,omitempty"`
	// Targets lists every target the job's filters kept, by instance.
	Targets []*Checked `json:"targets"`
	// Counts by status, and Clean: checked and clean (Checked.Clean).
	Checked int `json:"checked"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	Clean   int `json:"clean"`
	// Causes are the causes found, most costly first (Group).
	Causes   []Group `json:"causes"`
	Duration float64 `json:"duration_seconds"`
	// CaptureSeconds is CaptureTime of the options; Concurrency the bound.
	CaptureSeconds float64 `json:"capture_seconds"`
	Concurrency    int     `json:"concurrency"`
}

// Hints asks for a longer deadline per target when one passed.
func (s *Summary) Hints() []finding.Note {
	for _, c := range s.Targets {
		if c.late {
			return []finding.Note{finding.HintNote(finding.HintTimeout, "a longer deadline per target")}
		}
	}
	return nil
}

// Result is a fleet check: the findings across targets (one per cause,
// Across) and the summary.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Run discovers the job's targets through Prometheus and checks each,
// at most Concurrency at a time. A target that is not up, or whose pprof
// address cannot be derived, is skipped; one whose check fails is
// reported with the reason; neither stops the others. The error is
// Prometheus's (nothing was checked) or the context's end.
func Run(ctx context.Context, opt Options) (*Result, error) {
	start := time.Now()
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.TargetTimeout <= 0 {
		opt.TargetTimeout = CaptureTime(opt.Check) + 30*time.Second
	}
	if opt.Check.Client == nil {
		opt.Check.Client = TargetClient()
	}
	targets, err := Discover(ctx, opt.Discovery)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Prometheus: redactedBase(opt.Prometheus), Job: opt.Job, Selector: opt.Selector.String(),
		CaptureSeconds: CaptureTime(opt.Check).Seconds(), Concurrency: opt.Concurrency}
	logf("Prometheus lists %d active target(s) of job %s%s", len(targets), opt.Job, selectorWords(opt.Selector))

	results := make([]*Checked, len(targets))
	sem := make(chan struct{}, opt.Concurrency)
	// The analyses read profiles and traces: CPU and memory on this
	// machine, unlike the captures, which wait on the targets.
	analyses := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, t := range targets {
		c := &Checked{Target: t, Findings: []finding.Finding{}}
		results[i] = c
		switch {
		case t.Health != "up":
			c.Status, c.Reason = StatusSkipped, notUp(t)
			logf("%s: skipped: %s", t.Instance, c.Reason)
			continue
		case t.Pprof == "":
			c.Status, c.Reason = StatusSkipped, t.Unusable()
			logf("%s: skipped: %s", t.Instance, c.Reason)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				c.Status, c.Reason = StatusFailed, "not checked: "+context.Cause(ctx).Error()
				return
			}
			defer func() { <-sem }()
			checkOne(ctx, c, opt, analyses, logf)
		}()
	}
	wg.Wait()
	sum.Targets = results
	for _, c := range results {
		switch c.Status {
		case StatusChecked:
			sum.Checked++
			if c.Clean {
				sum.Clean++
			}
		case StatusSkipped:
			sum.Skipped++
		default:
			sum.Failed++
		}
	}
	fs, groups := Across(results, opt.Job)
	sum.Causes = groups
	sum.Duration = time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return &Result{Findings: fs, Summary: sum}, context.Cause(ctx)
	}
	return &Result{Findings: fs, Summary: sum}, nil
}

func notUp(t *Target) string {
	s := fmt.Sprintf("Prometheus reports it %s", t.Health)
	if t.Health == "" || t.Health == "unknown" {
		s = "Prometheus has not scraped it yet (health unknown)"
	}
	if t.LastError != "" {
		s += ": " + t.LastError
	}
	return s
}

// checkOne runs the single-target check on one target: the captures under
// the target's deadline, the analysis after it (what was captured by then
// is diagnosed), in one of the analyses' turns.
func checkOne(ctx context.Context, c *Checked, opt Options, analyses chan struct{}, logf func(string, ...any)) {
	start := time.Now()
	defer func() { c.Duration = time.Since(start).Seconds() }()
	fail := func(err error) {
		c.Status, c.Reason = StatusFailed, err.Error()
		logf("%s: failed: %s", c.Instance, c.Reason)
	}
	copt := opt.Check
	copt.Log = nil
	if opt.Log != nil {
		copt.Log = func(format string, args ...any) { logf(c.Instance+": "+format, args...) }
	}
	tctx, cancel := context.WithTimeoutCause(ctx, opt.TargetTimeout,
		fmt.Errorf("the target's deadline of %v passed", opt.TargetTimeout))
	set, err := check.Run(tctx, c.Pprof, copt)
	c.late = errors.Is(context.Cause(tctx), context.DeadlineExceeded) || tctx.Err() == context.DeadlineExceeded
	cancel()
	if err != nil {
		fail(err)
		return
	}
	if err := set.CaptureError(); err != nil {
		fail(err)
		return
	}
	select {
	case analyses <- struct{}{}:
	case <-ctx.Done():
		fail(errors.New("not diagnosed: " + context.Cause(ctx).Error()))
		return
	}
	defer func() { <-analyses }()
	res, err := check.Analyze(ctx, set, opt.Analyze)
	if err == nil {
		err = res.ReadError()
	}
	if err != nil {
		fail(err)
		return
	}
	c.Status, c.Summary = StatusChecked, res.Summary
	if res.Findings != nil {
		c.Findings = res.Findings
	}
	finding.Sort(c.Findings)
	c.Clean = IsClean(c.Findings)
	logf("%s: %d finding(s)", c.Instance, len(c.Findings))
}

// IsClean reports whether fs has no finding at warning or above.
func IsClean(fs []finding.Finding) bool {
	sev, ok := finding.Max(fs)
	return !ok || sev < finding.Warning
}

// redactedBase is the Prometheus URL as reports show it: no password.
func redactedBase(raw string) string {
	if u, err := httpfetch.ParseURL(raw); err == nil {
		return u.Redacted()
	}
	return raw
}
