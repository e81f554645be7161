package report

import (
	"encoding/json"
	"io"

	"github.com/schedoctor/schedoctor/finding"
)

type jsonReport struct {
	Source   finding.Source    `json:"source"`
	File     string            `json:"file,omitempty"` // JSONLine's only
	Findings []finding.Finding `json:"findings"`
	Summary  any               `json:"summary"`
	Hints    []finding.Note    `json:"hints,omitempty"`
}

// JSON writes exactly one JSON object: {"source", "findings", "summary"}.
// findings is [] and summary {} rather than null when there are none;
// hints, what would sharpen the report, only when there are some.
func JSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(document(r, ""))
}

// JSONLine writes r as one line of a stream of reports (NDJSON), one per
// input of a run over several (trace A B C): JSON's object, compact, with
// "file" after "source" naming the input it came from.
func JSONLine(w io.Writer, file string, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(document(r, file)) // one line: no indent, and Encode ends it
}

// document is the object JSON and JSONLine write.
func document(r Report, file string) jsonReport {
	j := jsonReport{Source: r.Source, File: file, Findings: r.Findings, Summary: r.Summary, Hints: r.Hints}
	if j.Findings == nil {
		j.Findings = []finding.Finding{}
	}
	if j.Summary == nil {
		j.Summary = struct{}{}
	}
	return j
}

// JSONErrorLine writes the line of an input that could not be read in such
// a stream: {"source", "file", "error"}, without findings or summary.
func JSONErrorLine(w io.Writer, source finding.Source, file, msg string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Source finding.Source `json:"source"`
		File   string         `json:"file"`
		Error  string         `json:"error"`
	}{source, file, msg})
}
