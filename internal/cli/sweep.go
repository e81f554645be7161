package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/sweep"
	"github.com/schedoctor/schedoctor/sweep/loadgen"
)

func init() {
	register(&command{name: "sweep", short: "run a command at each GOMAXPROCS, measure, and find the knee", order: 50, run: runSweep})
}

const sweepDescription = `
Run CMD as a fresh process at each GOMAXPROCS value, several times in an
interleaved, shuffled order, and measure every run: wall time, user and system
CPU, context switches and peak RSS (rusage), run-queue wait (schedstat), and
the throughput CMD reports: go test -bench lines (ns/op and b.ReportMetric
units), a -metric regexp on its output, or, with -load, the latency of a
fixed-rate HTTP load against it. Without any of these the metric is wall time.

The report gives each value's median with a confidence interval, the knee
(the smallest GOMAXPROCS within -tolerance of the best: SD501) and negative
scaling (a higher GOMAXPROCS worse beyond both intervals: SD502).

The default -procs is 1..CPUs and 2×CPUs (on 2 CPUs: 1,2,4). Each child runs
in its own process group, killed with it on -timeout, on Ctrl-C and when its
run ends. -load accepts loopback URLs only.`

const sweepExamples = `  schedoctor sweep -runs 5 -metric 'ops/s=ops/s ([0-9.]+)' -- ./cpubound -work 4000
  schedoctor sweep -procs 1..8 -- go test -run '^$' -bench BenchmarkHash -benchtime 2000x ./hash
  schedoctor sweep -procs 1,2,4 -load http://127.0.0.1:8391/ -rate 500 -duration 5s -- ./httpserver -addr 127.0.0.1:8391 -duration 1m
  schedoctor sweep -json -keep-going -timeout 2m -- ./mybench`

func runSweep(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor sweep [flags] -- CMD [ARGS...]", sweepDescription, sweepExamples)
	var out outputFlags
	out.register(fs, false)
	var procs procsFlag
	fs.Var(&procs, "procs", "GOMAXPROCS `values`: a list and ranges, 1,2,4,8 or 1..16 (default 1..CPUs and 2×CPUs)")
	runs := fs.Int("runs", sweep.DefaultRuns, "runs per GOMAXPROCS value")
	var metrics metricsFlag
	fs.Var(&metrics, "metric", "read `NAME=REGEXP` from CMD's output: the first group of the last matching line; repeatable; the first is the knee metric")
	var better betterFlag
	fs.Var(&better, "better", "which `way` the knee metric improves: auto, higher or lower (auto: higher for -metric and /s units, else lower)")
	var tol percentFlag = 5
	fs.Var(&tol, "tolerance", "the knee is the smallest GOMAXPROCS within this `percent` of the best")
	timeout := fs.Duration("timeout", 10*time.Minute, "kill a run (its whole process group) after this `duration`")
	keepGoing := fs.Bool("keep-going", false, "record a failed run and go on, instead of stopping the sweep")
	seed := fs.Uint64("seed", 0, "`seed` of the interleaved order; 0 picks one from the clock (the report shows it)")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	loadURL := fs.String("load", "", "load mode: send HTTP GETs to this loopback `URL` while CMD runs; the knee metric is p99 latency")
	rate := fs.Float64("rate", 0, "load mode: send `R` requests per second, open-loop")
	loadDur := fs.Duration("duration", 5*time.Second, "load mode: how long to send at each run")
	inflight := fs.Int("max-inflight", 512, "load mode: requests outstanding at most")
	ready := fs.Duration("ready-timeout", 10*time.Second, "load mode: how long CMD may take to accept connections")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	cmd := fs.Args()
	if len(cmd) == 0 {
		return e.usageError("no command: give it after --, e.g. schedoctor sweep -- ./mybench -n 1000")
	}
	if *runs < 1 || *runs > 1000 {
		return e.usageError("-runs %d: want 1..1000", *runs)
	}
	if *timeout <= 0 {
		return e.usageError("-timeout %v: want a positive duration", *timeout)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opt := sweep.Options{
		Command:   cmd,
		Procs:     procs.list,
		Runs:      *runs,
		Seed:      *seed,
		Metrics:   metrics.specs,
		Better:    better.v,
		Tolerance: float64(tol) / 100,
		Timeout:   *timeout,
		KeepGoing: *keepGoing,
		Env:       os.Environ(),
		CPUs:      runtime.NumCPU(),
	}
	if len(opt.Procs) == 0 {
		opt.Procs = sweep.DefaultProcs(opt.CPUs)
	}
	if opt.Seed == 0 {
		opt.Seed = uint64(time.Now().UnixNano())
	}
	if !*quiet {
		opt.Progress = e.Stderr
	}
	switch {
	case *loadURL != "":
		if _, err := loadgen.CheckURL(*loadURL); err != nil {
			return e.usageError("-load: %v", err)
		}
		if !set["rate"] {
			return e.usageError("-load needs -rate, the requests per second (e.g. -rate 1000)")
		}
		// NaN passes every comparison: it is named here, not found later
		// as "no request succeeded".
		if math.IsNaN(*rate) || math.IsInf(*rate, 0) || *rate <= 0 || *rate > maxRate {
			return e.usageError("-rate %v: want requests per second above 0 and at most %d", *rate, maxRate)
		}
		if *inflight > 1<<20 {
			return e.usageError("-max-inflight %d: want at most %d", *inflight, 1<<20)
		}
		if *loadDur <= 0 || *inflight < 1 || *ready <= 0 {
			return e.usageError("-duration, -max-inflight and -ready-timeout must be positive")
		}
		opt.Load = &sweep.LoadOptions{URL: *loadURL, Rate: *rate, Duration: *loadDur, MaxInFlight: *inflight, ReadyTimeout: *ready}
	default:
		for _, name := range []string{"rate", "duration", "max-inflight", "ready-timeout"} {
			if set[name] {
				return e.usageError("-%s is for load mode: it needs -load URL", name)
			}
		}
	}
	e.doing("running the sweep of " + textsafe.ShellJoin(cmd))
	s, err := sweep.Run(ctx, opt)
	if err != nil {
		return e.fail(err)
	}
	return e.emit(&out, report.Report{Source: finding.SourceSweep, Findings: s.Findings(), Summary: s})
}

// maxRate bounds -rate: beyond a million requests a second the open-loop
// generator's interval would be under a microsecond, which no timer keeps.
const maxRate = 1_000_000

// procsFlag is -procs: a validated GOMAXPROCS list.
type procsFlag struct{ list []int }

func (p *procsFlag) String() string {
	s := make([]string, len(p.list))
	for i, v := range p.list {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (p *procsFlag) Set(s string) error {
	l, err := sweep.ParseProcs(s)
	if err != nil {
		return err
	}
	p.list = l
	return nil
}

// metricsFlag is -metric, repeatable.
type metricsFlag struct{ specs []sweep.MetricSpec }

func (m *metricsFlag) String() string {
	s := make([]string, len(m.specs))
	for i, v := range m.specs {
		s[i] = v.String()
	}
	return strings.Join(s, " ")
}

func (m *metricsFlag) Set(s string) error {
	spec, err := sweep.ParseMetricSpec(s)
	if err != nil {
		return err
	}
	for _, o := range m.specs {
		if o.Name == spec.Name {
			return fmt.Errorf("metric %q given twice", spec.Name)
		}
	}
	m.specs = append(m.specs, spec)
	return nil
}

// betterFlag is -better.
type betterFlag struct{ v sweep.BetterFlag }

func (b *betterFlag) String() string {
	return [...]string{sweep.Auto: "auto", sweep.Lower: "lower", sweep.Higher: "higher"}[b.v]
}

func (b *betterFlag) Set(s string) error {
	switch s {
	case "auto":
		b.v = sweep.Auto
	case "lower":
		b.v = sweep.Lower
	case "higher":
		b.v = sweep.Higher
	default:
		return errors.New("want auto, higher or lower")
	}
	return nil
}

// percentFlag is a percentage in (0, 100): "5%" or "5".
type percentFlag float64

func (p *percentFlag) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) + "%" }

func (p *percentFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v > 0 && v < 100) {
		return fmt.Errorf("%q: want a percentage between 0 and 100, e.g. 5%%", s)
	}
	*p = percentFlag(v)
	return nil
}
