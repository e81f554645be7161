package ruledocs

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/goroutinethrottle"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
	"github.com/schedoctor/schedoctor/lint/spinwait"
	"github.com/schedoctor/schedoctor/lint/tickerleak"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

// The analyzers of code rules, by the rule each reports.
var analyzers = map[string]*analysis.Analyzer{
	"SD101": busyselect.Analyzer,
	"SD102": sleeppoll.Analyzer,
	"SD103": goroutinethrottle.Analyzer,
	"SD104": timerloop.Analyzer,
	"SD105": tickerleak.Analyzer,
	"SD106": spinwait.Analyzer,
}

// TestLintDocsPointAtCatalog fails when a lint analyzer's package doc
// repeats what the catalog says of its rule (the explanation, the
// detection's specifics, a line of the wrong or right example) instead of
// pointing at the rule's page, and when Analyzer.Doc is not the catalog's.
func TestLintDocsPointAtCatalog(t *testing.T) {
	for id, a := range analyzers {
		r := finding.MustLookup(id)
		if !strings.HasPrefix(a.Doc, r.Title+"\n\n") || !strings.Contains(a.Doc, r.Explanation) || !strings.Contains(a.Doc, r.URL()) {
			t.Errorf("%s: %s.Doc is not the catalog's title, explanation and page", id, a.Name)
		}
		name := filepath.Join("..", "..", "lint", a.Name, "doc.go")
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if problems := repeats(string(src), r); len(problems) > 0 {
			t.Errorf("%s repeats the catalog's %s: %s", name, id, strings.Join(problems, "; "))
		}
		if !strings.Contains(string(src), "docs/rules/"+id+".md") {
			t.Errorf("%s does not point at docs/rules/%s.md", name, id)
		}
	}
}

// repeats lists what of rule r a doc.go's package comment says again: a
// sentence of the explanation, detection or details (six words or more),
// or a line of an example (ten characters or more).
func repeats(docGo string, r finding.Rule) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", docGo, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		return []string{"no package comment"}
	}
	text := f.Doc.Text()
	flat := strings.Join(strings.Fields(text), " ")
	var out []string
	for _, prose := range []string{r.Explanation, r.Detection, r.Details} {
		for _, s := range sentences(prose) {
			if len(strings.Fields(s)) >= 6 && strings.Contains(flat, s) {
				out = append(out, "sentence "+quote(s))
			}
		}
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, ex := range []string{r.Wrong, r.Right} {
		for _, l := range strings.Split(ex, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 10 && lines[l] {
				out = append(out, "example line "+quote(l))
			}
		}
	}
	if strings.Contains(text, "WRONG") || strings.Contains(text, "RIGHT") {
		out = append(out, "WRONG/RIGHT examples")
	}
	return out
}

var sentenceEnd = regexp.MustCompile(`[.;:]\s+`)

// sentences cuts prose into sentences and clauses, whitespace folded.
func sentences(s string) []string {
	var out []string
	for _, p := range sentenceEnd.Split(strings.Join(strings.Fields(s), " "), -1) {
		if p = strings.TrimSpace(strings.TrimSuffix(p, ".")); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func quote(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return `"` + s + `"`
}

// The test above must fail on the analyzers' docs as they were before the
// catalog became their one source: a package comment with the rule's
// explanation and its examples.
func TestRepeatsCatchesCopies(t *testing.T) {
	r := finding.MustLookup("SD106")
	old := "// Package spinwait does things.\n//\n// " + strings.ReplaceAll(r.Explanation, "\n", " ") +
		"\n//\n//\t// WRONG\n//\t" + strings.ReplaceAll(r.Wrong, "\n", "\n//\t") + "\npackage spinwait\n"
	got := repeats(old, r)
	if len(got) < 2 {
		t.Errorf("repeats found %q in a doc that copies the explanation and the example", got)
	}
	if got := repeats("// Package spinwait reports spins: see docs/rules/SD106.md.\npackage spinwait\n", r); len(got) > 0 {
		t.Errorf("repeats found %q in a doc that only points at the page", got)
	}
}
