package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sniff"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/schedtrace"
)

func init() {
	register(&command{name: "schedtrace", short: "diagnose GODEBUG=schedtrace output: run-queue backlog, spinning, idle Ps, thread growth", order: 32, run: runSchedtrace})
}

func runSchedtrace(ctx context.Context, e *Env, args []string) int {
	fs := e.newFlagSet("schedoctor schedtrace [-json] [-fail level] FILE|-",
		`Read the scheduler snapshots a Go program prints on stderr with GODEBUG=schedtrace=N (and
scheddetail=1), show them as time series, and report sustained run-queue backlog (SD302),
threads spinning with nothing to run (SD310), idle Ps beside queued goroutines (SD311),
a thread count that keeps climbing (SD312), and scheduling churn (SD313, SD314).

The program's own stderr may be mixed in: unrelated lines are skipped. FILE - reads stdin.
Findings point at the input's line of the first offending snapshot.`,
		`  GODEBUG=schedtrace=100 ./server 2> sched.txt; schedoctor schedtrace sched.txt
  GODEBUG=schedtrace=100,scheddetail=1 ./server 2>&1 >/dev/null | schedoctor schedtrace -
  schedoctor schedtrace -json -fail critical sched.txt`)
	var out outputFlags
	out.register(fs, false)
	maxTicks := fs.Int("max-ticks", schedtrace.DefaultMaxTicks, "analyse at most the last `N` snapshots (bounds memory on endless input)")
	if code, ok := e.parse(fs, args); !ok {
		return code
	}
	if *maxTicks < 10 || *maxTicks > 100_000_000 {
		return e.usageError("-max-ticks %d: want 10 to 100000000", *maxTicks)
	}
	if code, ok := out.check(e); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return e.usageError("want one FILE (or - for stdin), got %d arguments", fs.NArg())
	}
	name := fs.Arg(0)
	r, closeIn, err := e.openInput(ctx, name)
	if err != nil {
		return e.fail(fmt.Errorf("reading schedtrace output: %w", err))
	}
	defer closeIn()
	if name == "-" {
		name = "stdin"
	}
	br := bufio.NewReaderSize(r, sniff.HeadSize)
	if err := checkKind(br, name, "GODEBUG=schedtrace output", schedtraceTakes); err != nil {
		return e.fail(err)
	}
	t, err := schedtrace.Read(ctx, name, br, schedtrace.ReadOptions{MaxTicks: *maxTicks})
	if err != nil {
		return e.fail(err)
	}
	if st := t.Stats; st.Truncated > 0 {
		e.warn("%s: skipped %d SCHED lines cut or mixed with other output", name, st.Truncated)
	}
	if st := t.Stats; st.Overlong > 0 {
		e.warn("%s: skipped %d lines longer than %d bytes", name, st.Overlong, schedtrace.MaxLine)
	}
	if st := t.Stats; st.Dropped > 0 {
		e.warn("%s: kept the last %d of %d snapshots (-max-ticks)", name, len(t.Ticks), st.SchedLines)
	}
	res, err := schedtrace.Analyze(t, schedtrace.Options{})
	if err != nil {
		return e.fail(err)
	}
	return e.emit(&out, report.Report{Source: finding.SourceSchedtrace, Findings: res.Findings, Summary: res.Summary})
}
