package viz

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Every label that reaches the picture is escaped and capped: the HTML
// report's script draws them as text.
func TestCleanEscapesEveryLabel(t *testing.T) {
	const rlo = "main.\u202eexe.gnp\x1b]0;x\a"
	huge := strings.Repeat("y", 1<<20)
	s := &Set{
		Title:    rlo,
		Causes:   []CauseCPU{{Cause: rlo, Cores: 1}},
		Flame:    &Flame{Names: []string{"all", rlo, huge}, Causes: []string{rlo}, Root: &FlameNode{}},
		Latency:  &Histogram{Series: []Series{{Name: rlo}}, Quants: []Quantile{{Name: rlo}}},
		Timeline: &Timeline{States: []string{rlo}},
		Curves:   []Curve{{Title: rlo, XLabel: rlo, YLabel: rlo, MarkLabel: rlo}},
	}
	c := Clean(s)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			labels = append(labels, v)
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var doc any
	json.Unmarshal(b, &doc)
	walk(doc)
	if len(labels) < 12 {
		t.Errorf("%d strings, want the 12 labels at least: %q", len(labels), labels)
	}
	for _, l := range labels {
		if !textsafe.Is(l) || len(l) > 2*textsafe.MaxField {
			t.Errorf("label not clean: %.80q (%d bytes)", l, len(l))
		}
	}
	if s.Flame.Names[1] != rlo || s.Title != rlo {
		t.Error("Clean changed its argument")
	}
	if Clean(&Set{Title: "x"}).Causes != nil {
		t.Error("a nil slice became empty")
	}
}
