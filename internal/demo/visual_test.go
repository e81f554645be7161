package demo

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/report/htmlreport"
	"github.com/schedoctor/schedoctor/viz"
)

// TestVisualsFitTheReport: a full demo's pictures — every lab program's
// profile and trace, and the service's check — are all found by the HTML
// renderer, in the table's order, within its bound on picture sets (a lab
// grown past it would lose its last programs' pictures silently); and the
// JSON leaves them out.
func TestVisualsFitTheReport(t *testing.T) {
	sum := &Summary{Stages: Stages}
	var want []string
	add := func(name string, stages ...Stage) {
		row := ProgramSummary{Name: name, Cells: map[Stage]*StageSummary{}}
		for _, st := range stages {
			title := name + ": " + string(st)
			row.Cells[st] = &StageSummary{Visual: &viz.Set{Title: title, Causes: []viz.CauseCPU{{Cause: "user", Cores: 1, Share: 100}}}}
			want = append(want, title)
		}
		sum.Programs = append(sum.Programs, row)
	}
	for _, p := range lab.Programs {
		if !p.Sweep {
			add(p.Name, StageProfile, StageTrace) // map order: profile < trace
		}
	}
	add(ServiceName, StageCheck)
	sets := htmlreport.Collect(sum)
	var got []string
	for _, s := range sets {
		got = append(got, s.Title)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the HTML report finds %d picture sets, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), `"title"`) || strings.Contains(string(js), `"causes"`) {
		t.Errorf("the demo's JSON carries the pictures: %s", js)
	}
	t.Logf("%d picture sets for a full demo", len(sets))
}
