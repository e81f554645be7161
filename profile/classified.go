package profile

import (
	"io"

	"github.com/schedoctor/schedoctor/profile/classify"
)

// CauseLabel is the sample label WriteClassified sets.
const CauseLabel = "cause"

// WriteClassified writes the analysed (merged) profile, gzip-compressed,
// with a "cause" label on every sample, so that any pprof viewer shows the
// breakdown: go tool pprof -tagfocus cause=thread-churn -top FILE.
// The labels are set on a copy; the Result is not changed.
func (r *Result) WriteClassified(w io.Writer) error {
	p := r.merged.Copy()
	for i, s := range p.Sample {
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		s.Label[CauseLabel] = []string{string(r.classes[r.group[i]].Cause)}
	}
	return p.Write(w)
}

// CauseOf returns the cause label of a sample label map, as written by
// WriteClassified; "" when it has none.
func CauseOf(labels map[string][]string) classify.Cause {
	if v := labels[CauseLabel]; len(v) == 1 {
		return classify.Cause(v[0])
	}
	return ""
}
