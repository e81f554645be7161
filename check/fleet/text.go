package fleet

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
)

// WriteText prints every target, what became of it, and the causes ranked
// by cost; the findings follow in the report. It fits 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth is WriteText within width columns (0: unwrapped). Every
// line is escaped (textlayout.Lines): instances, labels and errors come
// from Prometheus's answer and the targets'.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	sel := ""
	if s.Selector != "" {
		sel = " {" + s.Selector + "}"
	}
	fmt.Fprintf(&b, "check of job %s%s through Prometheus %s: %d target(s), %d checked (%d clean), %d skipped, %d failed, in %.1fs (captures of %.0fs, %d at a time)\n",
		s.Job, sel, s.Prometheus, len(s.Targets), s.Checked, s.Clean, s.Skipped, s.Failed, s.Duration, s.CaptureSeconds, s.Concurrency)
	wide := 0
	for _, t := range s.Targets {
		wide = max(wide, len(t.Instance))
	}
	wide = min(wide, 40)
	for _, t := range s.Targets {
		var what string
		switch t.Status {
		case StatusChecked:
			switch {
			case len(t.Findings) == 0:
				what = "clean"
			case t.Clean:
				what = "clean; info: " + findingWords(t.Findings)
			default:
				what = findingWords(t.Findings)
			}
			if t.Summary != nil && len(t.Summary.Failed) > 0 {
				what += fmt.Sprintf("; %d capture(s) failed", len(t.Summary.Failed))
			}
			what += fmt.Sprintf(" (%.1fs)", t.Duration)
		default:
			what = t.Status + ": " + t.Reason
		}
		fmt.Fprintf(&b, "  %-*s %s\n", wide, t.Instance, what)
	}
	if len(s.Causes) > 0 {
		b.WriteString("causes, most costly first:\n")
		for _, g := range s.Causes {
			at := ""
			if g.Location.File != "" {
				at = fmt.Sprintf(" at %s:%d", path.Base(g.Location.File), g.Location.Line)
			}
			cost := ""
			if len(g.Cores) > 0 {
				cost = ", " + coreRange(g.Cores)
			}
			fmt.Fprintf(&b, "  %s %s%s: %d of %d target(s)%s\n", strings.ToUpper(g.Severity.String()), g.Rule, at, len(g.Targets), g.Of, cost)
		}
	}
	_, err := io.WriteString(w, textlayout.Lines(b.String(), width))
	return err
}

// findingWords is "2 findings: SD204 (critical), SD307".
func findingWords(fs []finding.Finding) string {
	var rules []string
	for _, f := range fs {
		r := f.Rule
		if f.Severity == finding.Critical {
			r += " (critical)"
		}
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return fmt.Sprintf("%d finding(s): %s", len(fs), strings.Join(rules, ", "))
}

// ThinEvidence (report.ThinSummary) names the clean targets whose
// evidence was too thin to rule causes out: an idle service's profile of
// a few samples is "clean" only as far as it was seen. A target with
// findings is not named: what was found stands. The walk of the report
// stops here, so that one target's thin profile is never read as the
// whole fleet's.
func (s *Summary) ThinEvidence() string {
	var thin []string
	n := 0
	for _, t := range s.Targets {
		if t.Status != StatusChecked || !t.Clean || t.Summary == nil {
			continue
		}
		var why string
		if p := t.Summary.Profile; p != nil && p.Summary != nil {
			why = p.ThinEvidence()
		}
		if tr := t.Summary.Trace; why == "" && tr != nil && tr.Summary != nil {
			why = tr.ThinEvidence()
		}
		if why == "" {
			continue
		}
		n++
		if len(thin) < 3 {
			thin = append(thin, t.Instance+": "+why)
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(thin) {
		more = fmt.Sprintf("; and %d more", n-len(thin))
	}
	return fmt.Sprintf("%d of the %d clean target(s) were seen too little to rule causes out (%s%s)", n, s.Clean, strings.Join(thin, "; "), more)
}
