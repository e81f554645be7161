// Package report renders findings: text for people, JSON for tools (the
// contract in docs/contract.md), SARIF 2.1.0 for code-scanning UIs.
//
// Renderers know the finding model and nothing of the sources: a source's
// figures travel in Report.Summary, marshalled to JSON as they are, and shown
// in text when they implement TextSummary.
package report

import (
	"io"

	"github.com/schedoctor/schedoctor/finding"
)

// Report is what one diagnosing run produced.
type Report struct {
	Source   finding.Source    // "lint", "profile", ...
	Findings []finding.Finding // sorted by the renderers' caller with finding.Sort
	Summary  any               // source-specific figures; nil for none
	// Hints ask for inputs that would sharpen the whole report (the CPUs
	// a trace does not record, the module's source): notes of kind
	// finding.NoteHint, in a library's words until a front end adds its
	// flag. Fill it with SummaryHints.
	Hints []finding.Note
}

// Hinter is implemented by summaries that know an input would sharpen
// them; a summary says it in data (Hints), not by naming a flag in its text.
type Hinter interface {
	Hints() []finding.Note
}

// SummaryHints is what the summary asks for, nil when it asks nothing.
func SummaryHints(summary any) []finding.Note {
	if h, ok := summary.(Hinter); ok && h != nil {
		return h.Hints()
	}
	return nil
}

// TextSummary is implemented by summaries that have a text form (a table of
// causes, a sweep chart). The text renderer prints it before the findings.
type TextSummary interface {
	WriteText(w io.Writer) error
}

// WidthTextSummary is a TextSummary that lays its tables out within a
// width: 80 columns by default, 0 for one line per row however wide (the
// CLI's -wide). Text prefers it to WriteText.
type WidthTextSummary interface {
	WriteTextWidth(w io.Writer, width int) error
}
