package report

import (
	"reflect"
	"slices"
)

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
// ThinSummary, else those of the ThinSummaries among its fields, slice
// elements and map values (check's summary holds the profile's and the
// trace's), a few levels deep, each once.
func Thin(summary any) []string {
	var out []string
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if !v.IsValid() || depth > 4 || len(out) >= 8 {
			return
		}
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface || v.Kind() == reflect.Map ||
			v.Kind() == reflect.Slice) && v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer {
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		if v.CanInterface() {
			if t, ok := v.Interface().(ThinSummary); ok {
				if s := t.ThinEvidence(); s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
				return
			}
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			walk(v.Elem(), depth)
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), depth+1)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len() && i < 64; i++ {
				walk(v.Index(i), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(summary), 0)
	return out
}
