package report

import "slices"

// ThinSummary is implemented by a summary that can say its evidence is too
// thin to rule causes out (a profile of a few samples, a trace of a few
// milliseconds): ThinEvidence returns why, with the figures and what to
// capture instead, and "" when the evidence is enough. The renderers put it
// at the top of the report, beside the count of findings, so that "no
// findings" is never read as "nothing wrong" when nothing could be seen.
type ThinSummary interface {
	ThinEvidence() string
}

// ThinPrefix starts every thin-evidence note the renderers print.
const ThinPrefix = "not enough evidence: "

// Thin returns the thin-evidence notes of a summary: its own when it is a
// ThinSummary, else those of the ThinSummaries among its fields and slice
// elements (check's summary holds the profile's and the trace's), a few
// levels deep, each once, at most 8.
func Thin(summary any) []string {
	var out []string
	Walk(summary, WalkLimits{Depth: 4, Elems: 64}, func(v any) (bool, bool) {
		t, ok := v.(ThinSummary)
		if !ok {
			return false, false
		}
		if s := t.ThinEvidence(); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
		return true, len(out) >= 8
	})
	return out
}
