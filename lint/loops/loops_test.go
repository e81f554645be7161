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

// TestRetryDetail checks the verdict of a consumer's retry around a
// non-blocking call: it names the call and points at its line.
func TestRetryDetail(t *testing.T) {
	res := analysistest.Run(t, analysistest.TestData(), loops.Analyzer, "loops")
	pass := res[0].Pass
	for _, v := range res[0].Result.(*loops.Result).All() {
		fd := enclosingFunc(pass.Files, v.Loop)
		if fd != "consume" {
			continue
		}
		if !strings.Contains(v.Detail, "retries q.Dequeue() at line") {
			t.Errorf("detail %q does not name the retried call", v.Detail)
		}
		if got, want := pass.Fset.Position(v.At).Line, pass.Fset.Position(v.Loop.Pos()).Line+1; got != want {
			t.Errorf("verdict at line %d, want the call's line %d", got, want)
		}
		return
	}
	t.Error("no verdict for consume's loop")
}

func enclosingFunc(files []*ast.File, n ast.Node) string {
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= n.Pos() && n.End() <= fd.End() {
				return fd.Name.Name
			}
		}
	}
	return ""
}

func TestBest(t *testing.T) {
	timer := &loops.Verdict{Kind: loops.TimerPerIter, Rule: "SD104"}
	spin := &loops.Verdict{Kind: loops.SelectDefault, Rule: "SD101"}
	if loops.Best(timer, nil, spin) != spin || loops.Best() != nil {
		t.Error("the spin must win over the timer")
	}
}
