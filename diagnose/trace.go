package diagnose

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// TraceResult is an execution trace's diagnosis joined with the source.
type TraceResult struct {
	Findings []finding.Finding
	Summary  *TraceSummary
}

// TraceSummary is the trace's figures with what the source said about
// the lines where the spinning sites' goroutines ran. It marshals as the
// trace's summary plus "source" and "spin_verdicts", and prints as text.
type TraceSummary struct {
	*exectrace.Summary
	Source   *SourceReport  `json:"source"`
	Verdicts []TraceVerdict `json:"spin_verdicts,omitempty"`
}

// TraceVerdict is the source's verdict on one spinning site.
type TraceVerdict struct {
	Function string       `json:"function"` // what the site's goroutines run
	File     string       `json:"file"`     // as the trace recorded it
	Line     int          `json:"line"`     // the line read
	Kind     inspect.Kind `json:"kind"`
	SpinLine int          `json:"spin_line,omitempty"`
	Detail   string       `json:"detail"`
	Spin     bool         `json:"spin"`
}

// Hints is what the trace and the source ask for.
func (s *TraceSummary) Hints() []finding.Note {
	return append(s.Summary.Hints(), s.Source.Hints()...)
}

// WriteText prints the trace's tables, then the source account and
// verdicts, in 80 columns.
func (s *TraceSummary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth is WriteText within width columns (0: unwrapped); paths
// and names from the trace are escaped (textsafe).
func (s *TraceSummary) WriteTextWidth(w io.Writer, width int) error {
	if err := s.Summary.WriteTextWidth(w, width); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n" + textlayout.Wrap("", "  ", textsafe.String(s.Source.Text()), width))
	for _, v := range s.Verdicts {
		verdict := "not a spin"
		if v.Spin {
			verdict = "SPIN"
		}
		b.WriteString(textlayout.Wrap("  ", "      ", textsafe.String(fmt.Sprintf("%s:%d  %s  %s (%s): %s", shortPath(v.File), v.Line, v.Function, v.Kind, verdict, v.Detail)), width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shortPath(f string) string {
	parts := strings.Split(f, "/")
	if len(parts) > 2 {
		return strings.Join(parts[len(parts)-2:], "/")
	}
	return f
}

// Trace joins a trace's spinning sites with the source: the line where
// their goroutines ran (from the trace's CPU samples, else where they
// were preempted) is read with lint/inspect. A spin there turns SD308's
// "compute or spin" into a warning at the spinning line, with both
// sources' evidence, and the latency findings name it as their cause; a
// loop that only computes keeps SD308 at info and lets "needs more CPU"
// stand. opt.Source nil: the findings are the trace's alone, and the
// summary's source report says so.
func Trace(res *exectrace.Result, traceOpt exectrace.Options, opt Options) (*TraceResult, error) {
	if res == nil || res.Summary == nil {
		return nil, fmt.Errorf("diagnosing a trace: no analysis result")
	}
	lk := newLookups(opt.Source)
	var verdicts []TraceVerdict
	judge := func(sp exectrace.SpinSite) *exectrace.Verdict {
		// Every line the goroutines were seen at is read: a spin at any
		// of them (the yield line of a loop that also computes between
		// yields) is the verdict; else the first loop's (compute, ...).
		var best *exectrace.Verdict
		lines, callers := candidates(sp)
		for i, at := range append(lines, callers...) {
			if i == len(lines) && best != nil {
				// The goroutines' own lines are in a loop that does not
				// spin (a busy consumer's work): its callers' loops do
				// not claim that time.
				break
			}
			loop := lk.at(at.File, at.Line)
			if loop == nil {
				continue
			}
			v := verdictOf(loop, at)
			verdicts = append(verdicts, TraceVerdict{Function: sp.Function, File: at.File, Line: at.Line, Kind: loop.Kind,
				SpinLine: v.Line.Line, Detail: loop.Detail, Spin: v.Spin})
			if v.Spin {
				return v
			}
			// A line outside any loop may be a callee of the loop that
			// spins: it decides nothing.
			if best == nil && loop.Kind != inspect.NotInLoop {
				best = v
			}
		}
		return best
	}
	// Judge runs once per spinning site, in order, on this goroutine.
	fs := exectrace.Findings(res.Summary, traceOpt, judge)
	return &TraceResult{Findings: fs, Summary: &TraceSummary{Summary: res.Summary, Source: lk.report(), Verdicts: verdicts}}, nil
}

// candidates are the lines to read for a spinning site: the hot line
// first, then where its goroutines were preempted; and, apart, the user
// frames that called them, read only when those lines are in no loop (a
// library's non-blocking call: the retry around it is its caller's).
// User frames in Go source only (not a library's assembly).
func candidates(sp exectrace.SpinSite) (lines, callers []finding.Location) {
	seen := func(l finding.Location) bool {
		same := func(o finding.Location) bool { return o.File == l.File && o.Line == l.Line }
		return slices.ContainsFunc(lines, same) || slices.ContainsFunc(callers, same)
	}
	for i, l := range append([]finding.Location{sp.HotLine, sp.StopAt}, sp.Callers...) {
		if l.File == "" || l.Line <= 0 || !finding.UserFunction(l.Function) || !goFile(l.File) || seen(l) {
			continue
		}
		if i < 2 {
			lines = append(lines, l)
		} else {
			callers = append(callers, l)
		}
	}
	return lines, callers
}

// verdictOf turns the loop around a hot line into the trace's Verdict.
func verdictOf(loop *inspect.Loop, at finding.Location) *exectrace.Verdict {
	v := &exectrace.Verdict{Kind: string(loop.Kind), Detail: loop.Detail}
	if kind, start, _, ok := loop.SpinLoop(); ok {
		what, fix := spinWords(kind)
		line := loop.SpinLine
		if kind != loop.Kind || line == 0 {
			line = start // the hot line is in work nested inside the spin: point at the spinning loop
		}
		v.Spin, v.Kind, v.Fix = true, string(kind), fix
		v.Detail = what
		if loop.Detail != "" {
			v.Detail += " (" + loop.Detail + ")"
		}
		v.Line = finding.Location{File: at.File, Line: line, Function: at.Function}
		if start > 0 {
			v.Loop = finding.Location{File: at.File, Line: start, Function: at.Function}
		}
		return v
	}
	v.Compute = loop.Kind == inspect.Compute
	v.Line = at
	return v
}
