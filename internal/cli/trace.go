package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "trace", short: "latency, P use, migrations, syscalls, GC in an execution trace, streamed (SD301–SD309)", order: 30, run: runTrace})
}

func runTrace(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor trace [-cpus N] [-json|-sarif] [-fail LEVEL] FILE|-",
		`Read a Go execution trace (runtime/trace, go test -trace, net/http/pprof's /debug/pprof/trace)
as a stream and report scheduling latency, P utilisation, migrations, syscalls, GC pauses and
assists, per goroutine creation site, with findings SD301-SD309.

A trace does not record how many CPUs the process could use: pass -cpus (the cgroup quota or
cpuset, or nproc) to check for Ps busier than the CPUs (SD303). A truncated trace is analysed up
to where it breaks, with a warning saying where.`,
		"  go test -trace trace.out -run TestX ./pkg && schedoctor trace trace.out\n"+
			"  curl -s localhost:6060/debug/pprof/trace?seconds=5 | schedoctor trace -cpus 2 -\n"+
			"  schedoctor trace -json trace.out | jq .summary.latency.overall")
	var out outputFlags
	out.register(fs, true)
	cpus := fs.Float64("cpus", 0, "the `N` CPUs available to the traced process (quota, cpuset or nproc); 0: unknown, skip SD303")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.usageError("want one trace file, or - for stdin")
	}
	if *cpus < 0 {
		return e.usageError("-cpus %g: want a number of CPUs ≥ 0", *cpus)
	}
	name := fs.Arg(0)
	var r io.Reader = e.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return e.fail(err)
		}
		defer f.Close()
		r = f
	} else {
		name = "stdin"
	}
	res, err := exectrace.Analyze(ctx, r, exectrace.Options{CPUs: *cpus})
	if err != nil {
		return e.fail(fmt.Errorf("%s: %w", name, err))
	}
	if t := res.Summary.Truncated; t != nil {
		e.warn("%s: %s", name, t)
	}
	return e.emit(&out, report.Report{Source: finding.SourceTrace, Findings: res.Findings, Summary: res.Summary})
}
