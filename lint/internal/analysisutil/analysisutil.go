// Package analysisutil holds what every schedoctor analyzer needs from
// go/analysis and nothing of the AST's shape: the Analyzer.Doc, from the
// rule catalog (RuleDoc) or the package's doc.go (MustExtractDoc), the
// identity of called functions (by types, never by name, so a user
// function called Sleep or a package aliased time is told apart), and the reporting of a diagnostic together with
// the evidence the lint driver shows with it.
package analysisutil

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// RuleDoc is the Analyzer.Doc of the analyzer that reports rule id, taken
// from the catalog, which is the one text of a rule: the title is the
// summary line that `go vet -vettool=... help` lists, then why it costs,
// what is looked for and the rule's page. The analyzer's doc.go says only
// what the package does, so the two cannot drift. It panics on an ID
// missing from the catalog, which the analyzer's first test catches.
func RuleDoc(id string) string {
	r := finding.MustLookup(id)
	return r.Title + "\n\n" + r.Explanation + "\n\n" + r.Detection + "\n\nThe rule's documentation: " + r.URL()
}

// MustExtractDoc returns the section of doc.go's package comment that
// follows the heading "# Analyzer NAME" and the "NAME:" of its summary
// line, which is the form Analyzer.Doc expects: the first line is the
// summary, the rest the description. It panics when the section is
// missing, which a test of the analyzer catches at once.
func MustExtractDoc(content, name string) string {
	doc, err := ExtractDoc(content, name)
	if err != nil {
		panic(err)
	}
	return doc
}

// ExtractDoc is MustExtractDoc returning an error.
func ExtractDoc(content, name string) (string, error) {
	if content == "" {
		return "", fmt.Errorf("empty doc.go")
	}
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", content, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return "", fmt.Errorf("parsing doc.go: %w", err)
	}
	if f.Doc == nil {
		return "", fmt.Errorf("doc.go has no package comment")
	}
	for section := range strings.SplitSeq(f.Doc.Text(), "\n# ") {
		body, ok := strings.CutPrefix(section, "Analyzer "+name)
		if !ok || body == "" || body[0] != '\n' {
			continue
		}
		body = strings.TrimSpace(body)
		rest, ok := strings.CutPrefix(body, name+":")
		if !ok {
			return "", fmt.Errorf("heading 'Analyzer %s' is not followed by a '%s: summary' line", name, name)
		}
		return strings.TrimSpace(rest), nil
	}
	return "", fmt.Errorf("doc.go has no 'Analyzer %s' heading", name)
}

// Imports reports whether pkg imports path directly: an analyzer leaves
// early when the package cannot contain what it looks for.
func Imports(pkg *types.Package, path string) bool {
	return slices.ContainsFunc(pkg.Imports(), func(p *types.Package) bool { return p.Path() == path })
}

// Callee returns the function or method a call statically refers to, or
// nil (a call of a func value, a conversion, a builtin).
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// IsFunc reports whether fn is the package-level function pkgPath.name
// for one of names.
func IsFunc(fn *types.Func, pkgPath string, names ...string) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgPath {
		return false
	}
	if sig, ok := fn.Type().(*types.Signature); !ok || sig.Recv() != nil {
		return false
	}
	return slices.Contains(names, fn.Name())
}

// IsMethod reports whether fn is a method of the named type pkgPath.typ
// (or of a pointer to it) called one of names. For an interface method,
// typ is the interface's name.
func IsMethod(fn *types.Func, pkgPath, typ string, names ...string) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkgPath || !slices.Contains(names, fn.Name()) {
		return false
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Name() == typ
}

// IsTestFile reports whether the file holding pos is a _test.go file.
// Every schedoctor analyzer skips them: tests spin, poll, leak tickers and
// make timers in loops on purpose, to exercise the scheduler and the
// runtime, and findings there would be noise.
func IsTestFile(pass *analysis.Pass, pos token.Pos) bool {
	return strings.HasSuffix(pass.Fset.File(pos).Name(), "_test.go")
}

// Visit calls fn, with the enclosing nodes, for every node of type N (such
// as *ast.CallExpr) outside _test.go files. The analyzer must require
// inspect.Analyzer.
func Visit[N ast.Node](pass *analysis.Pass, fn func(n N, stack []ast.Node)) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var filter N // a typed nil: the inspector filters by its type
	ins.WithStack([]ast.Node{filter}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if push && !IsTestFile(pass, n.Pos()) {
			fn(n.(N), stack)
		}
		return true
	})
}

// Line is the line of pos, as an Evidence value.
func Line(pass *analysis.Pass, pos token.Pos) float64 {
	return float64(pass.Fset.Position(pos).Line)
}

// Report records one diagnostic of rule at node's position, with its
// evidence in res (keyed by that same position, as the lint driver reads
// it) and any suggested fixes.
func Report(pass *analysis.Pass, res *evidence.Result, rule string, node ast.Node, msg string, ev []finding.Evidence, fixes ...analysis.SuggestedFix) {
	pos := node.Pos()
	res.Add(pos, ev...)
	sev := finding.Warning
	if r, ok := finding.Lookup(rule); ok {
		sev = r.Severity
	}
	res.Reported(evidence.Report{Pos: pos, End: node.End(), Rule: rule, Severity: sev, Message: msg})
	pass.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            node.End(),
		Category:       rule,
		Message:        msg,
		SuggestedFixes: fixes,
	})
}
