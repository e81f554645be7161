package lint_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/lint"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// rules maps each analyzer, in Analyzers order, to its rule.
var rules = []string{"SD101", "SD102", "SD103", "SD104", "SD105", "SD106"}

// TestAnalyzers checks the list against the catalog (rule order, an
// implemented rule behind each) and the analyzers' shared contract.
func TestAnalyzers(t *testing.T) {
	if len(lint.Analyzers) != len(rules) {
		t.Fatalf("%d analyzers, want %d", len(lint.Analyzers), len(rules))
	}
	for i, a := range lint.Analyzers {
		r, ok := finding.Lookup(rules[i])
		if !ok {
			t.Errorf("%s: rule %s not in the catalog", a.Name, rules[i])
			continue
		}
		if r.Status != finding.Implemented {
			t.Errorf("%s: catalog status of %s is not Implemented", a.Name, r.ID)
		}
		summary, _, _ := strings.Cut(a.Doc, "\n")
		if summary == "" || strings.HasSuffix(summary, ".") || strings.Contains(a.Doc, "# Analyzer") {
			t.Errorf("%s: Doc does not start with a one-line summary: %q", a.Name, summary)
		}
		if a.ResultType != evidence.ResultType {
			t.Errorf("%s: ResultType %v, want evidence.ResultType", a.Name, a.ResultType)
		}
	}
}

func TestSplitCategory(t *testing.T) {
	for _, tc := range []struct {
		category, rule string
		sev            finding.Severity
		explicit       bool
	}{
		{"SD104", "SD104", finding.Warning, false},
		{"SD104/info", "SD104", finding.Info, true},
		{"SD101/critical", "SD101", finding.Critical, true},
		{"SD104/bogus", "SD104/bogus", finding.Warning, false}, // not a severity: kept whole
		{"custom", "custom", finding.Warning, false},
		{"/info", "/info", finding.Warning, false},
		{"", "", finding.Warning, false},
	} {
		rule, sev, explicit := lint.SplitCategory(tc.category)
		if rule != tc.rule || sev != tc.sev || explicit != tc.explicit {
			t.Errorf("SplitCategory(%q) = %q, %v, %v; want %q, %v, %v", tc.category, rule, sev, explicit, tc.rule, tc.sev, tc.explicit)
		}
	}
}

// versioned rules depend on the module's go line: their lab markers hold
// only in the module the program declares (lab:go), and must be silent in
// the project's own.
var versioned = map[string]bool{"SD105": true}

// TestLab runs every analyzer on the whole lab, in a module at the
// project's go line and in one at go 1.22: each marked line (lab:SD1xx) must
// be reported by its rule, and nothing else may be, the -fixed twins and
// the healthy controls included.
//
// One analysistest run per module loads the lab once: a no-op analyzer
// requires all six, and the test reads their diagnostics from the action
// graph.
func TestLab(t *testing.T) {
	all := &analysis.Analyzer{
		Name:     "lab",
		Doc:      "lab runs every schedoctor analyzer",
		Requires: lint.Analyzers,
		Run:      func(*analysis.Pass) (any, error) { return nil, nil },
	}
	ruleOf := map[*analysis.Analyzer]string{}
	for i, a := range lint.Analyzers {
		ruleOf[a] = rules[i]
	}
	for _, goVersion := range []string{"", "1.22"} {
		t.Run("go"+goVersion, func(t *testing.T) {
			dir := t.TempDir()
			if err := lab.WriteModule(dir, goVersion); err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, p := range lab.Programs {
				markers, err := lab.Markers(p.Name)
				if err != nil {
					t.Fatal(err)
				}
				for _, rule := range rules {
					if versioned[rule] && p.GoVersion != goVersion {
						continue
					}
					for _, m := range markers[rule] {
						want[fmt.Sprintf("%s:%d: %s", m.File, m.Line, rule)] = true
					}
				}
			}
			got := map[string]bool{}
			for _, r := range analysistest.Run(t, dir, all, "./...") {
				for _, dep := range r.Action.Deps {
					rule, ok := ruleOf[dep.Analyzer]
					if !ok {
						continue
					}
					for _, d := range dep.Diagnostics {
						pos := dep.Package.Fset.Position(d.Pos)
						file, err := filepath.Rel(filepath.Join(dir, "internal", "lab"), pos.Filename)
						if err != nil {
							t.Fatal(err)
						}
						if got, _, _ := lint.SplitCategory(d.Category); got != rule {
							t.Errorf("%s: category %q from %s, want %q", pos, d.Category, dep.Analyzer.Name, rule)
						}
						got[fmt.Sprintf("%s:%d: %s", filepath.ToSlash(file), pos.Line, rule)] = true
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if !got[k] {
					t.Errorf("%s: marked line not reported", k)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(got)) {
				if !want[k] {
					t.Errorf("%s: reported, but the line has no marker", k)
				}
			}
			if len(want) == 0 {
				t.Error("the lab has no lab:SD1xx markers")
			}
		})
	}
}
