package ruledocs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// noNumbers are the implemented rules whose detection compares with no
// number the code holds (a shape of code, a version, a setting against the
// target the user gives). Every other implemented rule must have
// thresholds, and these must have none, so the list stays true.
var noNumbers = map[string]string{
	"SD103": "a value's use, not its size",
	"SD104": "a timer's lifetime in a loop; zero durations",
	"SD106": "a loop's shape",
	"SD402": "GOMAXPROCS against the CPUs",
	"SD403": "the default's switches against the quota",
	"SD405": "an ancestor's limit against the leaf's default",
	"SD408": "a Go version",
	"SD601": "limits against the target (-conns)",
	"SD603": "the port range against the target",
	"SD605": "a setting's presence",
	"SD606": "a limit against the target",
	"SD607": "memory against the target",
}

func TestEveryRuleWithNumbersHasThresholds(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		_, exempt := noNumbers[r.ID]
		switch {
		case r.Status != finding.Implemented:
		case exempt && len(r.Thresholds) > 0:
			t.Errorf("%s has thresholds: remove it from noNumbers", r.ID)
		case !exempt && len(r.Thresholds) == 0:
			t.Errorf("%s has no thresholds: its source's RuleThresholds must list the numbers its detection compares with", r.ID)
		}
		for _, th := range r.Thresholds {
			if th.Name == "" || th.Meaning == "" {
				t.Errorf("%s: threshold %+v lacks a name or a meaning", r.ID, th)
			}
		}
	}
}

// TestThresholdsAreConstants fails when a source's RuleThresholds writes a
// number instead of naming the constant or default its code compares
// with: a copy would let the docs drift from the code again.
func TestThresholdsAreConstants(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "*", "rulethresholds.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("..", "..", "lint", "*", "rulethresholds.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) != len(sources) {
		t.Errorf("%d rulethresholds.go files for %d sources: each source's RuleThresholds lives in one", len(files), len(sources))
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
				t.Errorf("%s: the number %s is written in a threshold; name the constant the code compares with", name, lit.Value)
			}
			return true
		})
	}
}

// statedIn matches a threshold's value where prose would state it: with
// its unit ("20%", "1ms", "0.05 cores"), or, for a count, in the forms
// the old Detection texts used ("≥ 10", "20+", "at least 5", "100 or more").
func statedIn(th finding.Threshold) *regexp.Regexp {
	num, _, _ := strings.Cut(th.Shown(), " ")
	num = strings.TrimRight(num, "%×")
	n := strings.ReplaceAll(regexp.QuoteMeta(num), ",", ",?")
	pre := `(?:^|[^\d.,])`
	unit := map[string]string{
		"%":     `\s?%`,
		"ms":    `\s?ms\b`,
		"µs":    `\s?µs`,
		"s":     `\s?s\b`,
		"min":   `\s?(?:min|minutes?)\b`,
		"cores": `\s?(?:cores?|P)\b`,
		"P":     `\s?(?:P|cores?)\b`,
		"×":     `\s?(?:×|times\b)`,
		"/s":    `\s?(?:/s\b|a second|per second)`,
	}
	if u, ok := unit[th.Unit]; ok {
		return regexp.MustCompile(pre + n + u)
	}
	return regexp.MustCompile(`(?:≥\s?` + n + `\b|` + pre + n + `\+|at least ` + n + `\b|` + pre + n + ` or more\b)`)
}

// TestThresholdsNotCopiedIntoProse fails when a rule's Detection or
// Details states one of its thresholds: the table quotes the code, prose
// would be a second copy.
func TestThresholdsNotCopiedIntoProse(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		for _, th := range r.Thresholds {
			re := statedIn(th)
			for field, text := range map[string]string{"Detection": r.Detection, "Details": r.Details} {
				if m := re.FindString(text); m != "" {
					t.Errorf("%s: %s states the threshold %q (%s) as %q; refer to the thresholds table", r.ID, field, th.Shown(), th.Name, strings.TrimSpace(m))
				}
			}
		}
	}
}

func TestStatedIn(t *testing.T) {
	for _, tt := range []struct {
		th   finding.Threshold
		text string
		want bool
	}{
		{finding.Threshold{Value: 20, Unit: "%"}, "at ≥ 20% of the CPU", true},
		{finding.Threshold{Value: 20, Unit: "%"}, "at 120% of the CPU", false},
		{finding.Threshold{Value: 0.05, Unit: "cores"}, "warning from 0.05 cores", true},
		{finding.Threshold{Value: 0.05, Unit: "P"}, "warning from 0.05 cores", true},
		{finding.Threshold{Value: 1, Unit: "ms"}, "sleeps less than 1ms", true},
		{finding.Threshold{Value: 1, Unit: "ms"}, "sleeps less than 11ms", false},
		{finding.Threshold{Value: 100000, Unit: "/s"}, "at least 100,000 a second", true},
		{finding.Threshold{Value: 10}, "with ≥ 10 samples", true},
		{finding.Threshold{Value: 10}, "20+ waits", false},
		{finding.Threshold{Value: 20}, "20+ waits", true},
		{finding.Threshold{Value: 8}, "needs 8 ticks", false},
		{finding.Threshold{Value: 1.25, Unit: "×"}, "busy Ps ≥ 1.25 × CPUs", true},
	} {
		if got := statedIn(tt.th).MatchString(tt.text); got != tt.want {
			t.Errorf("statedIn(%s) on %q = %v, want %v", tt.th.Shown(), tt.text, got, tt.want)
		}
	}
}
