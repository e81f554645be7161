package report

import (
	"encoding/json"
	"io"

	"github.com/schedoctor/schedoctor/finding"
)

type jsonReport struct {
	Source   finding.Source    `json:"source"`
	Findings []finding.Finding `json:"findings"`
	Summary  any               `json:"summary"`
	Hints    []finding.Note    `json:"hints,omitempty"`
}

// JSON writes exactly one JSON object: {"source", "findings", "summary"}.
// findings is [] and summary {} rather than null when there are none;
// hints, what would sharpen the report, only when there are some.
func JSON(w io.Writer, r Report) error {
	j := jsonReport{Source: r.Source, Findings: r.Findings, Summary: r.Summary, Hints: r.Hints}
	if j.Findings == nil {
		j.Findings = []finding.Finding{}
	}
	if j.Summary == nil {
		j.Summary = struct{}{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(j)
}
