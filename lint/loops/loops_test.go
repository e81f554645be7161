package loops_test

import (
	"go/ast"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/loops"
)

var markRE = regexp.MustCompile(`// loop: ([a-z-]+)(?: (SD\d+))?`)

// TestVerdicts runs the analyzer on a typed package (its dependency's
// facts known) and checks each loop marked "loop: KIND [RULE]".
func TestVerdicts(t *testing.T) {
	res := analysistest.Run(t, analysistest.TestData(), loops.Analyzer, "loops")
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	pass := res[0].Pass
	r := res[0].Result.(*loops.Result)
	n := 0
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			text := strings.TrimSpace(cg.Text())
			if !strings.HasPrefix(text, "loop:") {
				continue
			}
			m := markRE.FindStringSubmatch("// " + text)
			if m == nil {
				t.Errorf("bad mark %q", text)
				continue
			}
			line := pass.Fset.Position(cg.Pos()).Line
			var v *loops.Verdict
			for _, x := range r.All() {
				if pass.Fset.Position(x.Loop.Pos()).Line == line {
					v = x
				}
			}
			if v == nil {
				t.Errorf("line %d: no verdict", line)
				continue
			}
			n++
			if string(v.Kind) != m[1] || v.Rule != m[2] || v.Detail == "" {
				t.Errorf("line %d: %s %q (%s), want %s %q", line, v.Kind, v.Rule, v.Detail, m[1], m[2])
			}
			if _, ok := v.Loop.(ast.Stmt); !ok || r.Of(v.Loop) != v {
				t.Errorf("line %d: Of does not find the verdict", line)
			}
		}
	}
	if n < 13 {
		t.Errorf("only %d marked loops", n)
	}
}

func TestBest(t *testing.T) {
	timer := &loops.Verdict{Kind: loops.TimerPerIter, Rule: "SD104"}
	spin := &loops.Verdict{Kind: loops.SelectDefault, Rule: "SD101"}
	if loops.Best(timer, nil, spin) != spin || loops.Best() != nil {
		t.Error("the spin must win over the timer")
	}
}
