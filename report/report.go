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
