package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/demo"
	"github.com/schedoctor/schedoctor/report"
)

func init() {
	register(&command{name: "demo", short: "run the built-in lab workloads and diagnose them (start here)", order: 0, run: runDemo})
}

func runDemo(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor demo [-v] [-json] [-html FILE] [-stages LIST] [-programs LIST]", `
Run schedoctor on its own lab: small programs, each one scheduler
anti-pattern (a busy select, sleep polling, a timer per iteration, a
Gosched spin, lock contention, GC pressure, tiny syscalls, GOMAXPROCS above
the CPUs) and healthy controls. The demo writes them from an embedded copy
into a temporary module (no network; it needs the go command), lints them,
runs each under a CPU profile and an execution trace, and diagnoses what it
recorded; the check stage runs 'schedoctor check' on a lab HTTP service
driven over loopback. The table shows, per program and layer, the rules
found and whether they are what the program contains. -html FILE also
writes the report with each program's flame graph, P timeline and
latency histogram.

Exit status: 0 when every diagnosis matches the lab, or differs only in
runs measured on a busy machine (other processes took the CPUs; the
table marks them), 1 when one differs on a quiet machine, 2 when the lab
cannot be built. With -fail LEVEL, 1 also when a finding is at or above
LEVEL.`, `  schedoctor demo
  schedoctor demo -html report.html
  schedoctor demo -v -programs busyselect,sleeppoll
  schedoctor demo -stages lint
  schedoctor demo -json > demo.json`)
	var out outputFlags
	out.register(fs, false)
	// The demo's exit status is the lab's verdict, not its findings (the
	// lab is full of them): -fail is off unless asked for, and the help
	// says so rather than the other commands' default.
	out.fail = failLevel{none: true}
	if f := fs.Lookup("fail"); f != nil {
		f.DefValue = out.fail.String()
	}
	verbose := fs.Bool("v", false, "print every finding with its evidence and fix, not one line each")
	stages := fs.String("stages", stageList(","), "comma-separated `layers` to run: "+stageList(", "))
	programs := fs.String("programs", "", "comma-separated lab `programs` to run (default all; see internal/lab)")
	duration := fs.Duration("duration", time.Second, "how long each program runs per layer")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return e.usageError("unexpected arguments: %v", fs.Args())
	}
	// A program needs some time to show its pattern; more than ten minutes
	// per program and layer is a typo.
	if *duration <= 0 || *duration > 10*time.Minute {
		return e.usageError("-duration %v: want above 0 and at most 10m", *duration)
	}
	opt := demo.Options{Duration: *duration}
	for _, s := range splitList(*stages) {
		st := demo.Stage(s)
		if !slices.Contains(demo.Stages, st) {
			return e.usageError("unknown stage %q in -stages (want %s)", s, stageList(", "))
		}
		opt.Stages = append(opt.Stages, st)
	}
	if len(opt.Stages) == 0 {
		return e.usageError("-stages is empty")
	}
	opt.Programs = splitList(*programs)
	if !out.json {
		opt.Progress = e.Stderr
	}
	e.doing("running the lab programs (" + strings.Join(splitList(*stages), ", ") + ")")
	res, err := demo.Run(ctx, opt)
	if err != nil {
		return e.fail(err)
	}
	r := report.Report{Source: finding.Source("demo"), Findings: res.Findings, Summary: res.Summary}
	var code int
	if out.json || *verbose {
		code = e.emit(&out, r)
	} else {
		r.Findings = e.withFlags(r.Findings)
		finding.Sort(r.Findings)
		if err := report.Text(e.Stdout, r, report.TextOptions{Compact: true, Color: e.color(), Wide: out.wide}); err != nil {
			return e.fail(err)
		}
		fmt.Fprintln(e.Stdout, "\nRun with -v for each finding's evidence and fix,\nor 'schedoctor rules SDnnn' to explain a rule.")
		if out.html != "" {
			if err := writeHTML(out.html, r); err != nil {
				return e.fail(err)
			}
		}
		code = exitCode(out.fail, r.Findings)
	}
	if code == ExitClean && res.Summary.Mismatch > 0 {
		code = ExitFindings
	}
	return code
}

// stageList joins demo.Stages, so that the default and the messages follow
// the stages the demo has.
func stageList(sep string) string {
	names := make([]string, len(demo.Stages))
	for i, st := range demo.Stages {
		names[i] = string(st)
	}
	return strings.Join(names, sep)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
