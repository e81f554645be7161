package corpus

import (
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// TestCheck holds the comparison itself to account: each kind of mismatch
// is reported, and a matching layer gives none.
func TestCheck(t *testing.T) {
	spin := finding.Finding{Rule: "SD204", Severity: finding.Warning, Message: "0.9 cores spin",
		Locations: []finding.Location{{File: "/x/ring.go", Line: 10, Function: "github.com/x/q.(*Ring).Put"}}}
	addCPU := finding.Finding{Rule: "SD302", Severity: finding.Warning, Message: "add CPU"}
	infoOnly := finding.Finding{Rule: "SD209", Severity: finding.Info, Message: "small"}
	inRuntime := finding.Finding{Rule: "SD201", Severity: finding.Info, Message: "x",
		Locations: []finding.Location{{File: "/go/src/runtime/proc.go", Line: 391, Function: "runtime.Gosched"}}}
	lc := func(js string) *layerCheck {
		t.Helper()
		exp := &expectation{Program: "p", Upstream: "o/r@0123456", Kind: "spin", Workload: "w", Machine: "m", Expert: "e",
			Layers: map[string]*layerCheck{}}
		l := parseLayer(t, js)
		exp.Layers["profile"] = l
		if err := exp.validate(); err != nil {
			t.Fatal(err)
		}
		return l
	}
	tests := []struct {
		name  string
		check string
		fs    []finding.Finding
		want  []string // substrings, one per problem
	}{
		{"match", `{"want":[{"rule":"SD204","min_severity":"warning","at_function_contains":"Ring"}],"forbid_at_or_above":"warning"}`,
			[]finding.Finding{spin, infoOnly}, nil},
		{"missing", `{"want":[{"rule":"SD204","min_severity":"warning"}]}`, []finding.Finding{infoOnly}, []string{"missing SD204"}},
		{"too weak", `{"want":[{"rule":"SD204","min_severity":"critical"}]}`, []finding.Finding{spin}, []string{"missing SD204"}},
		{"wrong function", `{"want":[{"rule":"SD204","at_function_contains":"Disruptor"}]}`, []finding.Finding{spin}, []string{"missing SD204"}},
		{"forbidden severity", `{"want":[{"rule":"SD204"}],"forbid_at_or_above":"warning"}`, []finding.Finding{spin, addCPU},
			[]string{"unexpected SD302"}},
		{"forbidden rule", `{"forbid_rules":["SD209"]}`, []finding.Finding{infoOnly}, []string{"forbidden rule SD209"}},
		{"runtime frame", `{"forbid_at_or_above":"critical"}`, []finding.Finding{inRuntime}, []string{"not a user frame"}},
		{"healthy clean", `{"forbid_at_or_above":"warning"}`, []finding.Finding{infoOnly}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(lc(tt.check), tt.fs)
			if len(got) != len(tt.want) {
				t.Fatalf("problems %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestValidate rejects expectations that could not fail or name nothing real.
func TestValidate(t *testing.T) {
	for _, js := range []string{
		`{}`,
		`{"want":[{"rule":"SD999"}]}`,
		`{"forbid_at_or_above":"loud"}`,
		`{"forbid_rules":["XX1"]}`,
		`{"want":[{"rule":"SD204","min_severity":"huge"}]}`,
	} {
		exp := &expectation{Program: "p", Upstream: "o/r@0123456", Kind: "spin", Workload: "w", Machine: "m", Expert: "e",
			Layers: map[string]*layerCheck{"profile": parseLayer(t, js)}}
		if err := exp.validate(); err == nil {
			t.Errorf("%s: accepted", js)
		}
	}
	healthy := &expectation{Program: "p", Upstream: "o/r@0123456", Kind: "healthy", Workload: "w", Machine: "m", Expert: "e",
		Layers: map[string]*layerCheck{"trace": parseLayer(t, `{"forbid_at_or_above":"critical"}`)}}
	if err := healthy.validate(); err == nil {
		t.Error("healthy program that tolerates warnings accepted")
	}
	badCPU := &expectation{Program: "p", Upstream: "o/r@0123456", Kind: "spin", Workload: "w", Machine: "m", Expert: "e",
		TraceProcessCPU: "0.7", Layers: map[string]*layerCheck{"trace": parseLayer(t, `{"forbid_at_or_above":"warning"}`)}}
	if err := badCPU.validate(); err == nil {
		t.Error("trace_process_cpu without a unit accepted")
	}
	exp := &expectation{Program: "p", Upstream: "not-a-repo", Kind: "spin", Workload: "w", Machine: "m", Expert: "e",
		Layers: map[string]*layerCheck{"profile": parseLayer(t, `{"forbid_at_or_above":"warning"}`)}}
	if err := exp.validate(); err == nil {
		t.Error("upstream without a commit accepted")
	}
}
