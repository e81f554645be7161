package lint_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint"
)

//go:generate go run ./internal/variantgen -o testdata/variants

// The variant corpus (testdata/variants, written by internal/variantgen):
// one package per waiting shape, one loop per function, pos* functions
// that the shape's rule must report on their // want line, neg* functions
// (close negatives) that no rule may report. The module's go line is 1.22,
// so that the ticker leaks are leaks.

var variantsDir = filepath.Join("testdata", "variants")

// shapeRule reads the rule of a corpus package from its doc comment
// ("pos* functions are reported by SD101").
var shapeRule = regexp.MustCompile(`pos\* functions are reported by (SD\d+)`)

// wantComment reads a positive's // want `pattern` comment.
var wantComment = regexp.MustCompile("^// want `(.*)`$")

// TestVariants runs every analyzer over the whole corpus: each positive
// is reported exactly once, by its shape's rule, and nothing else is.
func TestVariants(t *testing.T) {
	all := &analysis.Analyzer{
		Name:     "variants",
		Doc:      "variants runs every schedoctor analyzer",
		Requires: lint.Analyzers,
		Run:      func(*analysis.Pass) (any, error) { return nil, nil },
	}
	ruleOf := map[*analysis.Analyzer]string{}
	for i, a := range lint.Analyzers {
		ruleOf[a] = rules[i]
	}
	// The // want comments are checked below, against the shape's rule;
	// the no-op analyzer under test reports nothing, so analysistest's
	// complaints about them are dropped, and every other error kept.
	results := analysistest.Run(wantsIgnored{t}, variantsDir, all, "./...")
	if len(results) < 9 {
		t.Fatalf("%d corpus packages, want 9", len(results))
	}
	positives, negatives := 0, 0
	for _, r := range results {
		pkg := r.Pass.Pkg.Path()
		rule := ""
		var funcs []*ast.FuncDecl
		wants := map[string]*regexp.Regexp{} // file:line -> the message's pattern
		for _, f := range r.Pass.Files {
			if m := shapeRule.FindStringSubmatch(f.Doc.Text()); m != nil {
				rule = m[1]
			}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					if m := wantComment.FindStringSubmatch(c.Text); m != nil {
						p := r.Pass.Fset.Position(c.Pos())
						wants[fmt.Sprintf("%s:%d", p.Filename, p.Line)] = regexp.MustCompile(m[1])
					}
				}
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcs = append(funcs, fd)
				}
			}
		}
		if rule == "" {
			t.Errorf("%s: no rule in the package doc", pkg)
			continue
		}
		enclosing := func(pos token.Pos) string {
			for _, fd := range funcs {
				if fd.Pos() <= pos && pos < fd.End() {
					return fd.Name.Name
				}
			}
			return "(no function)"
		}
		reported := map[string][]string{}
		for _, dep := range r.Action.Deps {
			got, ok := ruleOf[dep.Analyzer]
			if !ok {
				continue
			}
			for _, d := range dep.Diagnostics {
				name := enclosing(d.Pos)
				p := r.Pass.Fset.Position(d.Pos)
				reported[name] = append(reported[name], fmt.Sprintf("%s at %s: %s", got, p, d.Message))
				if got != rule || !strings.HasPrefix(name, "pos") {
					t.Errorf("%s: %s reports %s at %s: %s", pkg, got, name, p, d.Message)
					continue
				}
				want := wants[fmt.Sprintf("%s:%d", p.Filename, p.Line)]
				if want == nil || !want.MatchString(d.Message) {
					t.Errorf("%s.%s: %s reported at %s (%q), not on its want line or not matching it", pkg, name, got, p, d.Message)
				}
			}
		}
		for _, fd := range funcs {
			name := fd.Name.Name
			switch {
			case strings.HasPrefix(name, "pos"):
				positives++
				if n := len(reported[name]); n != 1 {
					t.Errorf("%s.%s: %d findings, want one by %s: %q", pkg, name, n, rule, reported[name])
				}
			case strings.HasPrefix(name, "neg"):
				negatives++
			}
		}
	}
	t.Logf("%d positives, %d negatives", positives, negatives)
}

// TestVariantsGenerated checks that the committed corpus is what the
// generator writes: edit internal/variantgen, then go generate ./lint.
func TestVariantsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "./internal/variantgen", "-o", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./internal/variantgen: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the generator wrote no files (%v)", err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		got, err := os.ReadFile(filepath.Join(variantsDir, rel))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./lint)", rel, err)
			continue
		}
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./lint", rel)
		}
	}
}

// wantsIgnored passes on every error but analysistest's about a // want
// comment that the (no-op) analyzer under test did not match.
type wantsIgnored struct{ t *testing.T }

func (w wantsIgnored) Errorf(format string, args ...any) {
	w.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if strings.Contains(msg, "no diagnostic was reported matching") {
		return
	}
	w.t.Error(msg)
}
