// Package sweep runs a command as a fresh process at each GOMAXPROCS value,
// several times in an interleaved order, measures every run from the
// kernel's accounting (package proc) and from the command's own output
// (go test -bench lines, a -metric regexp) or from an open-loop HTTP load
// (package loadgen), and finds the knee: the smallest GOMAXPROCS within a
// tolerance of the best (package stats). It reports SD501 (the knee) and
// SD502 (negative scaling).
//
// Runs are interleaved: for each round, every GOMAXPROCS value once, in an
// order shuffled with a seed that the summary records. Noise from the rest
// of the machine (other builds, thermal limits) then spreads over all values
// instead of landing on whichever ran last.
package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/sweep/loadgen"
	"github.com/schedoctor/schedoctor/sweep/proc"
	"github.com/schedoctor/schedoctor/sweep/stats"
)

// Defaults of Options: five runs give a median interval of [min, max] at
// 93.8% (a Binomial(5, 1/2) order statistic), and a knee within 5% of the
// best is where the lab's curves flatten (docs/sweep.md).
const (
	DefaultRuns      = 5
	DefaultTolerance = 0.05
)

// Options configure a sweep. Command and Procs are required; the zero value
// of every other field is the documented default.
type Options struct {
	Command []string // program and arguments
	Procs   []int    // GOMAXPROCS values, sorted
	Runs    int      // runs per value; 0 means DefaultRuns
	Seed    uint64   // seed of the interleaved order

	Metrics []MetricSpec // -metric; the first is the one the knee is found on
	// Better overrides which way the knee's metric improves; 0 (Auto)
	// means: higher for a -metric and for bench units ending in "/s",
	// lower for everything else (ns/op, wall time, latency).
	Better BetterFlag
	Load   *LoadOptions // nil: not a server

	Tolerance float64       // knee tolerance; 0 means DefaultTolerance
	Timeout   time.Duration // per run; 0 means 10 minutes
	KeepGoing bool          // record failed runs and go on instead of stopping

	Env      []string  // the environment the command gets, plus GOMAXPROCS
	Dir      string    // working directory; "" for the current one
	Progress io.Writer // one line per run; nil for none
	CPUs     int       // CPUs of the machine, for the report and the findings
}

// BetterFlag is Options.Better.
type BetterFlag int

const (
	Auto BetterFlag = iota
	Lower
	Higher
)

// LoadOptions are load mode's settings: while the command runs as a server,
// an open-loop generator sends Rate requests a second to URL for Duration.
type LoadOptions struct {
	URL          string
	Rate         float64
	Duration     time.Duration
	MaxInFlight  int           // 0 means 512
	ReadyTimeout time.Duration // for the server to accept connections; 0 means 10s
}

// confidence is the nominal level of the median's interval.
const confidence = 0.95

// RunError is a run that failed: the command did not start, exited non-zero,
// timed out, or printed no metric. It carries the end of its output.
type RunError struct {
	Seq    int    `json:"seq"`
	Procs  int    `json:"gomaxprocs"`
	Err    string `json:"error"`
	Stderr string `json:"stderrTail,omitempty"` // last lines of stderr
	Stdout string `json:"stdoutTail,omitempty"` // last lines of stdout, when the metric was missing
}

func (e *RunError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %d (GOMAXPROCS=%d): %s", e.Seq, e.Procs, e.Err)
	if e.Stderr != "" {
		fmt.Fprintf(&b, "\nlast lines of its stderr:\n%s", indent(e.Stderr))
	}
	if e.Stdout != "" {
		fmt.Fprintf(&b, "\nlast lines of its stdout:\n%s", indent(e.Stdout))
	}
	return b.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// ErrNoResults is returned when no run succeeded.
var ErrNoResults = errors.New("no run succeeded")

// Run runs the sweep. It returns an error for a command that cannot be
// started, for a failed run unless KeepGoing, when ctx is done, when no
// run succeeded, and when a check before a run fails (a survivor of an
// earlier run, the load address already taken). Every child's process
// group and every descendant that left it are gone when it returns.
func Run(ctx context.Context, opt Options) (*Summary, error) {
	if len(opt.Command) == 0 {
		return nil, errors.New("no command to run")
	}
	if len(opt.Procs) == 0 {
		return nil, errors.New("no GOMAXPROCS values")
	}
	opt.Runs = cmp.Or(opt.Runs, DefaultRuns)
	opt.Tolerance = cmp.Or(opt.Tolerance, DefaultTolerance)
	opt.Timeout = cmp.Or(opt.Timeout, 10*time.Minute)
	path, err := exec.LookPath(opt.Command[0])
	if err != nil {
		return nil, fmt.Errorf("command %q: %w", opt.Command[0], err)
	}
	s := &Summary{
		Command:   opt.Command,
		Procs:     opt.Procs,
		RunsPerP:  opt.Runs,
		Seed:      opt.Seed,
		Tolerance: opt.Tolerance,
		CPUs:      opt.CPUs,
		Runs:      []RunResult{},
	}
	if opt.Load != nil {
		s.Load = &LoadSettings{URL: opt.Load.URL, Rate: opt.Load.Rate, Duration: opt.Load.Duration.Seconds()}
	}
	r := &runner{opt: opt, path: path, s: s, reported: map[int]bool{}, tags: map[string]bool{}}
	// The guard kills the runs' descendants if this process is killed
	// before it can (SIGKILL); without it a sweep still cleans up after
	// every run, so its absence is a warning, not an error.
	if g, err := proc.StartGuard(); err != nil {
		if !errors.Is(err, proc.ErrUnsupported) {
			r.warn("no guard process (%v): if schedoctor is killed with SIGKILL, processes its runs started may survive it", err)
		}
	} else {
		r.guard = g
		defer g.Close()
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	seq := 0
	for round := 1; round <= opt.Runs; round++ {
		order := slices.Clone(opt.Procs)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		s.Order = append(s.Order, order)
		for _, p := range order {
			seq++
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("sweep stopped before run %d: %w", seq, context.Cause(ctx))
			}
			// A failed check fails every later run alike: stop even with
			// KeepGoing.
			if perr := r.preflight(seq, p); perr != nil {
				return nil, perr
			}
			res, rerr := r.run(ctx, seq, round, p)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("sweep stopped during run %d (GOMAXPROCS=%d): %w", seq, p, context.Cause(ctx))
			}
			if rerr != nil {
				res.Error = rerr.Err
				s.Failures = append(s.Failures, *rerr)
				if !opt.KeepGoing {
					return nil, rerr
				}
			}
			s.Runs = append(s.Runs, res)
			r.progress(res)
		}
	}
	if err := s.analyze(); err != nil {
		return nil, err
	}
	return s, nil
}

type runner struct {
	opt      Options
	path     string
	s        *Summary
	reported map[int]bool    // processes of other sweeps already warned about
	tags     map[string]bool // the tags of this sweep's runs so far
	guard    *proc.Guard     // nil without one
}

func (r *runner) progress(res RunResult) {
	if r.opt.Progress == nil {
		return
	}
	status := "ok"
	if res.Error != "" {
		status = "FAILED: " + firstLine(res.Error)
	} else if v, ok := res.Metrics[r.s.Metric]; ok {
		status = r.s.metricLabel() + " " + r.s.fmtVal(v)
	}
	fmt.Fprintf(r.opt.Progress, "run %d/%d  GOMAXPROCS=%-3d wall %.3fs  %s\n",
		res.Seq, r.opt.Runs*len(r.opt.Procs), res.Procs, res.WallSeconds, status)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// env returns the command's environment with GOMAXPROCS=p in place of any
// GOMAXPROCS it had.
func (r *runner) env(p int) []string {
	env := make([]string, 0, len(r.opt.Env)+1)
	for _, kv := range r.opt.Env {
		if !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	return append(env, fmt.Sprintf("GOMAXPROCS=%d", p))
}

// run performs one run. The RunResult is filled in as far as the run got.
func (r *runner) run(ctx context.Context, seq, round, p int) (RunResult, *RunError) {
	res := RunResult{Seq: seq, Round: round, Procs: p, Metrics: map[string]float64{}}
	stdout, stderr := newOutputScanner(r.opt.Metrics), newOutputScanner(r.opt.Metrics)
	fail := func(msg string, withStdout bool) *RunError {
		e := &RunError{Seq: seq, Procs: p, Err: msg, Stderr: stderr.Tail()}
		if withStdout {
			e.Stdout = stdout.Tail()
		}
		return e
	}
	// The machine's busy CPU time and our own around the run: what is left
	// after the child's and ours is the other processes' load, the
	// disturbance of this run (Point.OtherCPUs).
	m0, merr0 := proc.ReadMachineCPU()
	self0, selfOK0 := proc.SelfCPU()
	child, err := proc.Start(proc.Spec{
		Path: r.path, Args: r.opt.Command[1:], Env: r.env(p), Dir: r.opt.Dir,
		Stdout: stdout, Stderr: stderr, Guard: r.guard,
	})
	if err != nil {
		return res, fail(fmt.Sprintf("starting %s: %v", r.opt.Command[0], err), false)
	}
	r.tags[child.Tag()] = true
	var loadErr error
	if lo := r.opt.Load; lo != nil {
		res.Load, loadErr = r.load(ctx, child)
		child.Stop(2 * time.Second)
	}
	u, werr := child.Wait(ctx, r.opt.Timeout)
	m1, merr1 := proc.ReadMachineCPU()
	self1, selfOK1 := proc.SelfCPU()
	stdout.flush()
	stderr.flush()
	res.fill(u)
	if left := child.Leftovers(); len(left) > 0 {
		for _, l := range left {
			res.Leftovers = append(res.Leftovers, l.String())
		}
		r.warn("run %d (GOMAXPROCS=%d): the command left %d process(es) running when it ended, killed: %s",
			seq, p, len(left), strings.Join(res.Leftovers, ", "))
	}
	if merr0 == nil && merr1 == nil && selfOK0 && selfOK1 {
		if elapsed := m1.At.Sub(m0.At).Seconds(); elapsed > 0 {
			others := (m1.Busy - m0.Busy - u.User - u.System - (self1 - self0)).Seconds()
			res.OtherCPUs, res.OtherMeasured = max(others, 0)/elapsed, true
		}
	}
	switch {
	case werr != nil:
		return res, fail(werr.Error(), false)
	case loadErr != nil:
		return res, fail(loadErr.Error(), false)
	}
	for k, v := range stdout.bench {
		res.Metrics[k] = stats.Median(append(v, stderr.bench[k]...))
	}
	for k, v := range stderr.bench {
		if _, ok := res.Metrics[k]; !ok {
			res.Metrics[k] = stats.Median(v)
		}
	}
	// -metric matches: stdout wins over stderr when both matched.
	for _, m := range r.opt.Metrics {
		if v, ok := stdout.metrics[m.Name]; ok {
			res.Metrics[m.Name] = v
		} else if v, ok := stderr.metrics[m.Name]; ok {
			res.Metrics[m.Name] = v
		}
	}
	if l := res.Load; l != nil {
		res.Metrics["p50"], res.Metrics["p90"], res.Metrics["p99"], res.Metrics["p99.9"] = l.P50, l.P90, l.P99, l.P999
		res.Metrics["throughput"] = l.Throughput
	}
	res.Metrics["wall"] = res.WallSeconds
	if r.s.Metric == "" {
		r.choosePrimary(append(stdout.benchOrder, stderr.benchOrder...))
	}
	if _, ok := res.Metrics[r.s.Metric]; !ok {
		msg := fmt.Sprintf("no value of the metric %q in the output", r.s.Metric)
		if len(r.opt.Metrics) > 0 {
			msg = fmt.Sprintf("no line of the output matched the metric %s", r.opt.Metrics[0])
			if e := cmp.Or(stdout.metricErr, stderr.metricErr); e != nil {
				msg = e.Error()
			}
		}
		return res, fail(msg, true)
	}
	return res, nil
}

// load waits for the server to accept connections and sends the load.
func (r *runner) load(ctx context.Context, child *proc.Process) (*loadgen.Result, error) {
	lo := r.opt.Load
	ctx, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	defer cancel()
	if err := loadgen.WaitReady(ctx, lo.URL, cmp.Or(lo.ReadyTimeout, 10*time.Second), child.Exited()); err != nil {
		return nil, err
	}
	if hs := strangers(lo.URL, child); len(hs) > 0 {
		return nil, fmt.Errorf("%s also listens on the load address (SO_REUSEPORT): it would take part of this run's load: stop it", holders(hs))
	}
	res, err := loadgen.Run(ctx, loadgen.Config{URL: lo.URL, Rate: lo.Rate, Duration: lo.Duration, MaxInFlight: lo.MaxInFlight})
	if err != nil {
		return nil, err
	}
	select {
	case <-child.Exited():
		return &res, errors.New("the server exited while under load")
	default:
	}
	if res.OK == 0 {
		return &res, fmt.Errorf("no request succeeded (%d errors; first: %s)", res.Errors, res.FirstError)
	}
	return &res, nil
}

// choosePrimary picks the metric the knee is found on, once, from the
// first successful run: the first -metric; in load mode p99; else the first
// benchmark value printed; else wall time.
func (r *runner) choosePrimary(benchOrder []string) {
	s := r.s
	switch {
	case len(r.opt.Metrics) > 0:
		s.Metric, s.Unit, s.Better = r.opt.Metrics[0].Name, r.opt.Metrics[0].Name, stats.Higher
	case r.opt.Load != nil:
		s.Metric, s.Better, s.Unit = "p99", stats.Lower, "s"
	case len(benchOrder) > 0:
		s.Metric = benchOrder[0]
		_, s.Unit, _ = strings.Cut(s.Metric, " ")
		s.Better = stats.Lower
		if strings.HasSuffix(s.Unit, "/s") {
			s.Better = stats.Higher
		}
	default:
		s.Metric, s.Better, s.Unit = "wall", stats.Lower, "s"
	}
	switch r.opt.Better {
	case Lower:
		s.Better = stats.Lower
	case Higher:
		s.Better = stats.Higher
	}
}
