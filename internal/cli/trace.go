package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "trace", short: "latency, P use, migrations, syscalls, GC in an execution trace, streamed (SD301–SD309)", order: 30, run: runTrace})
}

func runTrace(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor trace [-cpus N] [-process-cpu D] [-src DIR] [-json|-sarif] [-fail LEVEL] FILE|-",
		`Read a Go execution trace (runtime/trace, go test -trace, net/http/pprof's /debug/pprof/trace)
as a stream and report scheduling latency, P utilisation, migrations, syscalls, GC pauses and
assists, per goroutine creation site, with findings SD301-SD309.

A trace does not record how many CPUs the process could use: pass -cpus (the cgroup quota or
cpuset, or nproc) to check for Ps busier than the CPUs (SD303). A truncated trace is analysed up
to where it breaks, with a warning saying where.

Goroutines that run until preempted (SD308) may compute or spin: the trace alone cannot tell. The
line where they ran (from the trace's CPU samples when a CPU profile ran during tracing, else where
they were preempted) is read in the source: at the recorded path, else under each -src DIR. A spin
there is reported at warning at its line and named as the cause of the latency findings.

The CPU the process really got (the trace's CPU samples × 10ms, or -process-cpu, the user+system
time of the same window from rusage) tells "the host took the CPU" from "Go queued work".`,
		"  go test -trace trace.out -run TestX ./pkg && schedoctor trace trace.out\n"+
			"  curl -s localhost:6060/debug/pprof/trace?seconds=5 | schedoctor trace -cpus 2 -\n"+
			"  schedoctor trace -src ~/src/myservice -process-cpu 1.8s trace.out\n"+
			"  schedoctor trace -json trace.out | jq .summary.latency.overall")
	var out outputFlags
	out.register(fs, true)
	cpus := fs.Float64("cpus", 0, "the `N` CPUs available to the traced process (quota, cpuset or nproc); 0: unknown, skip SD303")
	procCPU := fs.Duration("process-cpu", 0, "the CPU `time` (user+system, rusage) the process got during the trace; 0: unknown (the trace's CPU samples are used when present)")
	maxGenMB := traceGenerationFlag(fs)
	var src srcDirs
	fs.Var(&src, "src", "a `DIR` to find the source under when the recorded paths do not exist (repeatable, or comma-separated)")
	noSrc := fs.Bool("nosrc", false, "do not read the source: report the trace's findings alone")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.usageError("want one trace file, or - for stdin")
	}
	if code, ok := e.checkCPUs("cpus", *cpus); !ok {
		return code
	}
	if *procCPU < 0 {
		return e.usageError("-process-cpu %v: want a duration ≥ 0", *procCPU)
	}
	if code, ok := e.checkGeneration(*maxGenMB); !ok {
		return code
	}
	name := fs.Arg(0)
	r, closeIn, err := e.openInput(ctx, name)
	if err != nil {
		return e.fail(err)
	}
	defer closeIn()
	if name == "-" {
		name = "stdin"
	}
	topt := exectrace.Options{CPUs: *cpus, ProcessCPU: *procCPU, MaxGeneration: int64(*maxGenMB * (1 << 20))}
	res, err := exectrace.Analyze(ctx, r, topt)
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", name, err))
	}
	if t := res.Summary.Truncated; t != nil {
		e.warn("%s: %s", name, t)
	}
	opt := diagnose.Options{}
	if !*noSrc {
		opt.Source = sourceReader(src, isURL(fs.Arg(0))) // the verdicts read the loop, not the analyzers' findings
	}
	joined, err := diagnose.Trace(res, topt, opt)
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", name, err))
	}
	return e.emit(&out, report.Report{Source: finding.SourceTrace, Findings: joined.Findings, Summary: joined.Summary})
}

// traceGenerationFlag registers -max-generation-mb, the trace reader's
// bound (issue 12: a generation larger than it is cut there, never held).
func traceGenerationFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("max-generation-mb", exectrace.DefaultMaxGeneration>>20, "read no generation (about 1s of trace) larger than this many `MB`: the reader holds one whole")
}

// checkGeneration range-checks -max-generation-mb.
func (e *Env) checkGeneration(mb float64) (int, bool) {
	if !(mb*(1<<20) >= exectrace.MinMaxGeneration && mb <= 1<<30) {
		return e.usageError("-max-generation-mb %g: want a size from %g MB (one batch) up", mb, float64(exectrace.MinMaxGeneration)/(1<<20)), false
	}
	return 0, true
}
