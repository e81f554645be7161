package tickerleak

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/types"
	"go/version"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

//go:embed doc.go
var doc string

// Analyzer reports rule SD105, ticker-leak.
var Analyzer = &analysis.Analyzer{
	Name:       "tickerleak",
	Doc:        analysisutil.MustExtractDoc(doc, "tickerleak"),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD105"

// collected is the first go line under which the runtime collects
// unreferenced tickers.
const collected = "go1.23"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	goVersion := moduleGoVersion(pass)
	if goVersion == "" || version.Compare(goVersion, collected) >= 0 || !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	minor := 0
	fmt.Sscanf(strings.TrimPrefix(goVersion, "go1."), "%d", &minor)
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		fn := analysisutil.Callee(pass.TypesInfo, call)
		if !push || !analysisutil.IsFunc(fn, "time", "NewTicker", "Tick") || len(call.Args) != 1 || analysisutil.IsTestFile(pass, call.Pos()) {
			return true
		}
		ev := []finding.Evidence{{Label: "module go line, minor version", Value: float64(minor)}}
		if d, ok := astutil.ConstDuration(pass.TypesInfo, call.Args[0]); ok {
			ev = append(ev, finding.Evidence{Label: "period", Value: float64(d) / float64(time.Millisecond), Unit: "ms"})
		}
		lang := strings.TrimPrefix(goVersion, "go")
		switch {
		case fn.Name() == "NewTicker" && neverStopped(pass.TypesInfo, call, stack):
			analysisutil.Report(pass, res, rule, call,
				fmt.Sprintf("ticker is never stopped, and under the module's go %s line never collected; defer its Stop or move the module to go 1.23", lang), ev)
		case fn.Name() == "Tick" && tickLeaks(pass, stack):
			analysisutil.Report(pass, res, rule, call,
				fmt.Sprintf("time.Tick's ticker cannot be stopped, and under the module's go %s line is never collected after this function returns; use time.NewTicker with defer Stop, or move the module to go 1.23", lang), ev)
		}
		return true
	})
	return res, nil
}

// moduleGoVersion returns the package module's go line as "go1.N[.M]", or
// "" when unknown. Drivers spell it "1.22" (checker) or "go1.22.0"
// (unitchecker).
func moduleGoVersion(pass *analysis.Pass) string {
	if pass.Module == nil || pass.Module.GoVersion == "" {
		return ""
	}
	v := pass.Module.GoVersion
	if !strings.HasPrefix(v, "go") {
		v = "go" + v
	}
	if !version.IsValid(v) {
		return ""
	}
	return v
}

// neverStopped reports whether the ticker that call makes is dropped
// without Stop: only its C is kept, or it is assigned to a local variable
// whose every use reads C or calls Reset. Any other use (Stop, return,
// argument, assignment, a struct field) lets it escape or be stopped; a
// function that never returns keeps it for the life of the program.
func neverStopped(info *types.Info, call *ast.CallExpr, stack []ast.Node) bool {
	var id *ast.Ident
	switch p := stack[len(stack)-2].(type) {
	case *ast.SelectorExpr:
		return p.Sel.Name == "C"
	case *ast.AssignStmt:
		if len(p.Lhs) == 1 && len(p.Rhs) == 1 {
			id, _ = p.Lhs[0].(*ast.Ident)
		}
	case *ast.ValueSpec:
		if len(p.Names) == 1 && len(p.Values) == 1 {
			id = p.Names[0]
		}
	}
	if id == nil {
		return false
	}
	v, _ := info.ObjectOf(id).(*types.Var)
	body := astutil.EnclosingFunc(stack)
	if v == nil || body == nil || v.Parent() == v.Pkg().Scope() || endless(info, body) {
		return false // an endless function needs its ticker for life
	}
	parents := astutil.Parents(body)
	stopped := false
	ast.Inspect(body, func(n ast.Node) bool {
		use, ok := n.(*ast.Ident)
		if !ok || use == id || info.Uses[use] != v {
			return !stopped
		}
		sel, ok := parents[use].(*ast.SelectorExpr)
		if !ok || sel.X != use || (sel.Sel.Name != "C" && sel.Sel.Name != "Reset") {
			stopped = true // Stop, or it escapes
		}
		return !stopped
	})
	return !stopped
}

// tickLeaks reports whether a time.Tick in the function at the top of
// stack can outlive it: not in main or init, not in a function that ends
// in a loop it never leaves.
func tickLeaks(pass *analysis.Pass, stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			if f.Recv == nil && (f.Name.Name == "init" || f.Name.Name == "main" && pass.Pkg.Name() == "main") {
				return false
			}
			return !endless(pass.TypesInfo, f.Body)
		case *ast.FuncLit:
			return !endless(pass.TypesInfo, f.Body)
		}
	}
	return false // a package-level initializer runs once
}

// endless reports whether a function body never returns: it holds no
// return statement and ends in a for loop without condition, or a range
// over a channel (a ticker's never closes), that nothing leaves.
func endless(info *types.Info, body *ast.BlockStmt) bool {
	if body == nil || len(body.List) == 0 {
		return false
	}
	returns := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			returns = true
		}
		return !returns
	})
	if returns {
		return false
	}
	last := body.List[len(body.List)-1]
	loop := astutil.Loop{Stmt: last}
	if l, ok := last.(*ast.LabeledStmt); ok {
		loop.Stmt = l.Stmt
		loop.Label, _ = info.Defs[l.Label].(*types.Label)
	}
	switch s := loop.Stmt.(type) {
	case *ast.ForStmt:
		if s.Cond != nil {
			return false
		}
	case *ast.RangeStmt:
		t := info.TypeOf(s.X)
		if t == nil {
			return false
		}
		if _, ok := t.Underlying().(*types.Chan); !ok {
			return false // a slice, a map or a number runs out
		}
	default:
		return false
	}
	return !astutil.Leaves(info, loop.Body(), loop, true)
}
