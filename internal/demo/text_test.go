package demo

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTextWidth: the demo's table and sentences fit 80 columns even with
// every stage's cell full (the program name is stacked above its cells),
// -wide keeps one line per program, and an error cell quoting input is
// escaped.
func TestTextWidth(t *testing.T) {
	cell := func(found ...string) *StageSummary {
		return &StageSummary{Expected: found, Found: found, Host: []string{"SD303", "SD406"}}
	}
	s := &Summary{
		Stages: []Stage{StageLint, StageProfile, StageTrace, StageCheck},
		Programs: []ProgramSummary{
			{Name: "busyhandler", Cells: map[Stage]*StageSummary{
				StageLint: cell("SD101"), StageProfile: cell("SD201", "SD203", "SD204"),
				StageTrace: cell("SD301", "SD302", "SD304", "SD308"), StageCheck: cell("SD204", "SD307", "SD308", "SD701"),
			}},
			{Name: "sleeppoll", Cells: map[Stage]*StageSummary{
				StageLint: {Error: "go build: main\x1b]0;pwned\a.go: syntax error"},
			}},
		},
		Mismatch: 1,
		BusyHost: 1,
	}
	var narrow, wide strings.Builder
	if err := s.WriteText(&narrow); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteTextWidth(&wide, 0); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(narrow.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
	if strings.Contains(narrow.String(), "\x1b") || !strings.Contains(narrow.String(), `\x1b]0;pwned\a`) {
		t.Errorf("the error cell is not escaped:\n%s", narrow.String())
	}
	if !strings.Contains(wide.String(), "busyhandler  ✓") {
		t.Errorf("-wide does not keep a program on one line:\n%s", wide.String())
	}
	if !strings.Contains(narrow.String(), "\nbusyhandler\n    lint    ✓ SD101") {
		t.Errorf("narrow does not stack the program name:\n%s", narrow.String())
	}
}
