package cli

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/check/fleet"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

// fleetFlags are check's flags for a check of every target of a job that
// Prometheus scrapes (check/fleet).
type fleetFlags struct {
	prometheus, job, selector, portLabel string
	port, concurrency, maxTargets        int
	maxTargetsMB                         int
	targetTimeout                        time.Duration
}

func (f *fleetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.prometheus, "prometheus", "", "check every target of -job that the Prometheus at `URL` scrapes (its /api/v1/targets), instead of one URL")
	fs.StringVar(&f.job, "job", "", "with -prometheus: the `JOB` whose targets to check (its job label; the scrape pool of that name is asked for)")
	fs.StringVar(&f.selector, "selector", "", "with -prometheus: check only the targets whose labels hold every `k=v,...`")
	fs.IntVar(&f.port, "pprof-port", 0, "with -prometheus: the `PORT` of every target's pprof (default: the scrape URL's port)")
	fs.StringVar(&f.portLabel, "pprof-port-label", "", "with -prometheus: the target or discovered `LABEL` holding its pprof port (e.g. __meta_kubernetes_pod_annotation_profiles_grafana_com_cpu_port)")
	fs.IntVar(&f.concurrency, "concurrency", fleet.DefaultConcurrency, "with -prometheus: check at most `N` targets at once")
	fs.IntVar(&f.maxTargets, "max-targets", fleet.DefaultMaxTargets, "with -prometheus: refuse a job with more than `N` matching targets (narrow it with -selector)")
	fs.IntVar(&f.maxTargetsMB, "max-targets-mb", fleet.DefaultMaxTargetsBytes>>20, "with -prometheus: the largest answer of Prometheus's targets API, in `MB`")
	fs.DurationVar(&f.targetTimeout, "target-timeout", 0, "with -prometheus: each target's deadline for its captures (default: the captures' length plus 30s)")
}

// set names a fleet flag given on the command line, "" when none was
// (-prometheus aside).
func (f *fleetFlags) set(fs *flag.FlagSet) string {
	name := ""
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "job", "selector", "pprof-port", "pprof-port-label", "concurrency", "max-targets", "max-targets-mb", "target-timeout":
			if name == "" {
				name = fl.Name
			}
		}
	})
	return name
}

// runCheckFleet checks every target of the job and reports per target and
// across them (fleet.Run); copt and aopt are each target's check.
func runCheckFleet(ctx context.Context, e *Env, out *outputFlags, f *fleetFlags, copt check.Options, aopt check.AnalyzeOptions, quiet bool) int {
	switch {
	case f.job == "":
		return e.usageError("-prometheus needs -job JOB: the job whose targets to check")
	case f.port < 0 || f.port > 65535:
		return e.usageError("-pprof-port %d: want a port, 1 to 65535", f.port)
	case f.port > 0 && f.portLabel != "":
		return e.usageError("-pprof-port and -pprof-port-label cannot be used together")
	case f.concurrency < 1 || f.concurrency > 1024:
		return e.usageError("-concurrency %d: want 1 to 1024", f.concurrency)
	case f.maxTargets < 1:
		return e.usageError("-max-targets %d: want 1 or more", f.maxTargets)
	case f.maxTargetsMB < 1 || f.maxTargetsMB > 1<<12:
		return e.usageError("-max-targets-mb %d: want 1 to %d", f.maxTargetsMB, 1<<12)
	case f.targetTimeout < 0:
		return e.usageError("-target-timeout %v: want a positive duration", f.targetTimeout)
	}
	sel, err := fleet.ParseSelector(f.selector)
	if err != nil {
		return e.usageError("-selector: %v", err)
	}
	opt := fleet.Options{
		Discovery: fleet.Discovery{Prometheus: f.prometheus, Job: f.job, Selector: sel, PprofPort: f.port,
			PprofPortLabel: f.portLabel, MaxTargets: f.maxTargets, MaxBytes: int64(f.maxTargetsMB) << 20},
		Check: copt, Analyze: aopt, Concurrency: f.concurrency, TargetTimeout: f.targetTimeout,
	}
	if !quiet {
		var mu sync.Mutex // the targets' goroutines log at once
		opt.Log = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(e.Stderr, "schedoctor check: "+format+"\n", args...)
		}
	}
	e.doing("checking the targets of job " + f.job)
	res, err := fleet.Run(ctx, opt)
	if err != nil {
		return e.fail(err)
	}
	s := res.Summary
	if s.Checked == 0 {
		if len(s.Targets) == 0 {
			return e.fail(fmt.Errorf("Prometheus at %s lists no active target of job %q%s (the scrape pool of that name, whose job label is %q)",
				s.Prometheus, f.job, selectorClause(f.selector), f.job))
		}
	}
	code := e.emit(out, report.Report{Source: finding.SourceCheck, Findings: res.Findings, Summary: s})
	if s.Checked == 0 {
		// The report says why for each target; nothing was diagnosed.
		return e.fail(fmt.Errorf("none of the %d target(s) of job %q could be checked: %d skipped, %d failed",
			len(s.Targets), f.job, s.Skipped, s.Failed))
	}
	return code
}

func selectorClause(sel string) string {
	if sel == "" {
		return ""
	}
	return " matching " + sel
}
