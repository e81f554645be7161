package demo

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/demo/labsvc"
	"github.com/schedoctor/schedoctor/lint/inspect"
	"github.com/schedoctor/schedoctor/viz"
)

const serviceSummary = "HTTP service: busy select, 10µs sleep poll, /slow leaks a goroutine; /ok and /hash healthy"

// ServiceSummary is what `check` said about the lab service: each fault
// with the rule and the sources that reported it, the healthy handlers,
// and the load the demo drove.
type ServiceSummary struct {
	Target   string               `json:"target"`
	Seconds  int                  `json:"profile_seconds"`
	Causes   []labsvc.CauseResult `json:"causes"`
	Healthy  []string             `json:"healthy_warnings,omitempty"` // warnings located in the healthy handlers
	Requests int64                `json:"requests"`                   // requests answered during the check
	Errors   int64                `json:"request_errors"`
	Failed   []string             `json:"failed_captures,omitempty"`
}

// warmup is how long the load runs before the first goroutine dump:
// SD701's growth counts a group of leaked goroutines that the first dump
// already holds (goroutines.Analyze), so some must have gathered.
const warmup = 1500 * time.Millisecond

// check builds the lab service, starts it on loopback, drives its
// handlers, runs the check pipeline on it (captures, procs, the join) and
// compares the findings with the service's causes. The service runs in its
// own process group for a bounded time and is killed before check returns.
func (r *runner) check(ctx context.Context) (*ServiceSummary, error) {
	dir := filepath.Join(r.dir, "service")
	if err := labsvc.WriteModule(dir); err != nil {
		return nil, err
	}
	r.progress("check: building the lab service")
	bin, err := labsvc.Build(ctx, dir, filepath.Join(r.dir, "bin-service"))
	if err != nil {
		return nil, err
	}
	// A profile of 3 seconds at least: the poll's sleeps and the leak's
	// growth need a few seconds to be told from noise.
	seconds := max(3, int(math.Round(3*r.opt.Duration.Seconds())))
	const traceSeconds, deltaSeconds = 1, 1
	window := warmup + time.Duration(seconds+traceSeconds+2*deltaSeconds+1)*time.Second
	// The service exits by itself a minute after the check should have
	// ended, so that no path leaves it running.
	svc, err := labsvc.Start(ctx, bin, window+time.Minute)
	if err != nil {
		return nil, err
	}
	defer svc.Stop()
	pid := svc.PID()
	r.progress("check: lab service pid %d at %s; driving %v over loopback, then capturing (profile %ds)", pid, svc.App, labsvc.Paths, seconds)

	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var load labsvc.Load
	loadDone := make(chan struct{})
	go func() {
		labsvc.Drive(loadCtx, svc.App, &load)
		close(loadDone)
	}()
	before, cpu0 := r.take(), processCPU(pid)
	select {
	case <-time.After(warmup):
	case <-ctx.Done():
		stopLoad()
		<-loadDone
		return nil, context.Cause(ctx)
	}
	set, runErr := check.Run(ctx, svc.PProf, check.Options{
		Seconds: seconds, TraceSeconds: traceSeconds, DeltaSeconds: deltaSeconds, PID: pid,
		Log: func(format string, args ...any) { r.progress("check: "+format, args...) },
	})
	if runErr == nil {
		// While the load still runs, as `schedoctor check -pid` reads it
		// after the captures.
		if err := set.InspectProcs(pid, time.Second); err != nil {
			set.Captures = append(set.Captures, &check.Capture{Kind: "procs", Error: err.Error()})
		}
	}
	cpu1 := processCPU(pid)
	after := r.take()
	stopLoad()
	<-loadDone
	svc.Stop()
	svcCPU := 0.0
	if cpu0 >= 0 && cpu1 >= cpu0 {
		svcCPU = cpu1 - cpu0
	}
	// The service and the demo's own load driving are the program here;
	// everything else on the machine is the disturbance.
	m := measure(before, after, svcCPU)

	sum := &ServiceSummary{Target: svc.PProf, Seconds: seconds, Requests: load.Requests.Load(), Errors: load.Errors.Load()}
	if runErr != nil {
		r.record(ServiceName, StageCheck, nil, m, runErr)
		return sum, nil
	}
	sum.Failed = set.Failed()
	if set.Captured() == 0 {
		r.record(ServiceName, StageCheck, nil, m, fmt.Errorf("nothing could be captured from %s: %v", svc.PProf, sum.Failed))
		return sum, nil
	}
	// The service was built from the module the demo wrote, so the paths
	// its profile and trace record are readable: the source joins in.
	res, err := check.Analyze(ctx, set, check.AnalyzeOptions{Source: &inspect.Resolver{NoFindings: true}})
	if err != nil {
		r.record(ServiceName, StageCheck, nil, m, err)
		return sum, nil
	}
	v, err := r.recordCheck(res.Findings, m)
	if err != nil {
		return nil, err
	}
	r.picture(ServiceName, StageCheck, checkVisuals(res.Summary))
	sum.Causes, sum.Healthy = v.Causes, v.Healthy
	return sum, nil
}

// checkVisuals joins the pictures of the check's profile (CPU by cause,
// the flame graph) and of its trace (the P timeline, the latency
// histogram) into one set, as the service's one cell: nil when neither
// capture could be read.
func checkVisuals(sum *check.Summary) *viz.Set {
	if sum == nil {
		return nil
	}
	var set viz.Set
	if sum.Profile != nil && sum.Profile.Summary != nil {
		if p := sum.Profile.Visuals(); p != nil {
			set.Causes, set.Flame = p.Causes, p.Flame
		}
	}
	if sum.Trace != nil && sum.Trace.Summary != nil {
		if t := sum.Trace.Visuals(); t != nil {
			set.Latency, set.Timeline = t.Latency, t.Timeline
		}
	}
	if len(set.Causes) == 0 && set.Flame == nil && set.Latency == nil && set.Timeline == nil {
		return nil
	}
	return &set
}

// recordCheck files the check's findings in the service's cell: each
// cause found once with enough sources is its rule (with the number of
// sources that agree), a cause missing, repeated or backed by too few
// sources is Missing; a warning elsewhere — in a healthy handler or at
// no cause — is Unexpected unless the machine caused it (hostCaused).
func (r *runner) recordCheck(fs []finding.Finding, m *Machine) (*labsvc.Verdict, error) {
	cell := r.rows[ServiceName].Cells[StageCheck]
	cell.Machine = m
	for i := range fs {
		for j := range fs[i].Locations {
			fs[i].Locations[j].File = r.labPath(fs[i].Locations[j].File)
		}
	}
	v, err := labsvc.Judge(fs)
	if err != nil {
		return nil, err
	}
	cell.Sources = map[string]int{}
	for _, c := range v.Causes {
		cell.Expected = append(cell.Expected, c.Name)
		if c.OK() {
			cell.Found = append(cell.Found, c.Rule)
			cell.Sources[c.Rule] = c.NSources()
			continue
		}
		cell.Missing = append(cell.Missing, missingCause(c))
	}
	for _, i := range v.Others {
		f := &fs[i]
		if hostCaused(f) {
			if !slices.Contains(cell.Host, f.Rule) {
				cell.Host = append(cell.Host, f.Rule)
			}
			continue
		}
		if !slices.Contains(cell.Found, f.Rule) {
			cell.Found = append(cell.Found, f.Rule)
		}
		if !slices.Contains(cell.Unexpected, f.Rule) {
			cell.Unexpected = append(cell.Unexpected, f.Rule)
		}
	}
	slices.Sort(cell.Found)
	slices.Sort(cell.Unexpected)
	slices.Sort(cell.Host)
	r.res.Findings = append(r.res.Findings, fs...)
	return v, nil
}

// missingCause names a cause that was not reported as it should be, in
// one table word: "poll" (not found), "poll×2" (two findings for one
// cause), "poll/1src" (fewer sources than two can see).
func missingCause(c labsvc.CauseResult) string {
	switch {
	case c.Count == 0:
		return c.Name
	case c.Count > 1:
		return fmt.Sprintf("%s×%d", c.Name, c.Count)
	}
	return fmt.Sprintf("%s/%dsrc", c.Name, c.NSources())
}
