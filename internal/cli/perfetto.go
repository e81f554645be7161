package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/exectrace/perfetto"
	"github.com/schedoctor/schedoctor/internal/safewrite"
)

// defaultPerfettoSpan is -span: a spike window (100 ms, issue 22) and as
// much again on either side, to see what led to it and what followed.
const defaultPerfettoSpan = 300 * time.Millisecond

// perfettoFlags are trace's -perfetto, -at, -span and -perfetto-max-mb.
type perfettoFlags struct {
	out   string
	at    time.Duration
	atSet bool
	span  time.Duration
	maxMB float64
}

func (p *perfettoFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.out, "perfetto", "", "also write the trace as a Perfetto `file` (ui.perfetto.dev): the window of -at and -span, else around the worst latency spike, else the whole trace, bounded by -perfetto-max-mb")
	fs.DurationVar(&p.at, "at", 0, "with -perfetto: centre the window on this `time` since the trace's start (as the report prints times)")
	fs.DurationVar(&p.span, "span", defaultPerfettoSpan, "with -perfetto: the window's `length` (around -at, or the worst spike)")
	fs.Float64Var(&p.maxMB, "perfetto-max-mb", float64(perfetto.DefaultMaxBytes)/(1<<20), "with -perfetto: write at most this many `MB`; a longer window is cut there")
}

// check refuses the window flags without -perfetto, and values out of range.
func (p *perfettoFlags) check(e *Env, fs *flag.FlagSet) (int, bool) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	p.atSet = set["at"]
	if p.out == "" {
		for _, name := range []string{"at", "span", "perfetto-max-mb"} {
			if set[name] {
				return e.usageError("-%s is for -perfetto FILE", name), false
			}
		}
		return 0, true
	}
	if set["span"] && !p.atSet {
		return e.usageError("-span %v: give -at T, the time to centre the window on", p.span), false
	}
	if p.at < 0 {
		return e.usageError("-at %v: want a time since the trace's start, ≥ 0", p.at), false
	}
	if p.span <= 0 {
		return e.usageError("-span %v: want a duration above 0", p.span), false
	}
	if !(p.maxMB*(1<<20) >= perfetto.MinMaxBytes && p.maxMB <= 1<<20) {
		return e.usageError("-perfetto-max-mb %g: want a size from %g MB up", p.maxMB, float64(perfetto.MinMaxBytes)/(1<<20)), false
	}
	return 0, true
}

// perfettoWindow is the part of the trace -perfetto writes: -span around
// -at; else the worst spike (the highest p99 of exectrace's spike
// windows), -span around its middle or the whole spike when it is longer;
// else the whole trace (bounded by the size limit).
func perfettoWindow(p *perfettoFlags, sum *exectrace.Summary) perfetto.Window {
	if p.atSet {
		return perfetto.Around(p.at, p.span)
	}
	if sum == nil || len(sum.Spikes) == 0 {
		return perfetto.Window{}
	}
	worst := sum.Spikes[0]
	for _, sp := range sum.Spikes[1:] {
		if sp.Latency.P99 > worst.Latency.P99 {
			worst = sp
		}
	}
	return perfetto.Around((worst.Start+worst.End)/2, max(p.span, worst.End-worst.Start))
}

// writePerfetto writes the Perfetto export of the trace file name to
// -perfetto's file, as -html is written (0600, a link there replaced,
// never followed), and warns when the size limit cut the window.
func (e *Env) writePerfetto(ctx context.Context, p *perfettoFlags, name string, ropt exectrace.ReadOptions, sum *exectrace.Summary) error {
	e.doing("writing the Perfetto trace " + p.out)
	opt := perfetto.Options{
		Window:   perfettoWindow(p, sum),
		MaxBytes: int64(p.maxMB * (1 << 20)),
		Read:     ropt,
	}
	var st *perfetto.Stats
	err := safewrite.ReplaceFile(p.out, func(w io.Writer) error {
		var err error
		st, err = perfetto.ExportFile(ctx, w, name, opt)
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the Perfetto trace: %w", err)
	}
	if st.Cut {
		e.warn("%s: the Perfetto window (%v) was cut at %v by the size limit of %g MB (-perfetto-max-mb): it ends there",
			p.out, opt.Window, st.Window.End.Round(time.Microsecond), p.maxMB)
	}
	return nil
}

// sameFile reports whether the file out would replace is the file in
// (through a link or another path): the export would replace the trace it
// reads.
func sameFile(out, in string) bool {
	a, err := os.Stat(out)
	if err != nil {
		return false
	}
	b, err := os.Stat(in)
	return err == nil && os.SameFile(a, b)
}
