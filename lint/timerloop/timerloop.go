package timerloop

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

//go:embed doc.go
var doc string

// Analyzer reports rule SD104, timer-per-iteration.
var Analyzer = &analysis.Analyzer{
	Name:       "timerloop",
	Doc:        analysisutil.MustExtractDoc(doc, "timerloop"),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD104"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	if !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	analysisutil.Visit(pass, func(n *ast.CallExpr, stack []ast.Node) { check(pass, res, n, stack) })
	return res, nil
}

func check(pass *analysis.Pass, res *evidence.Result, call *ast.CallExpr, stack []ast.Node) {
	info := pass.TypesInfo
	fn := analysisutil.Callee(info, call)
	if !analysisutil.IsFunc(fn, "time", "After", "NewTimer", "Tick", "Sleep") || len(call.Args) != 1 {
		return
	}
	loop, ok := astutil.EnclosingLoop(info, stack)
	if !ok {
		return
	}
	d, isConst := astutil.ConstDuration(info, call.Args[0])
	ev := []finding.Evidence{{Label: "loop at line", Value: analysisutil.Line(pass, loop.Stmt.Pos())}}
	if isConst {
		ev = append(ev, finding.Evidence{Label: "duration", Value: float64(d) / float64(time.Millisecond), Unit: "ms"})
	}
	name := fn.Name()
	switch {
	case isConst && d <= 0 && (name == "Sleep" || name == "After"):
		if inDefault(stack[loop.Index:]) {
			return // SD101 reports the select
		}
		if name == "After" {
			analysisutil.Report(pass, res, rule, call,
				"time.After(0) is not a yield: the expired timer fires inside select without parking; block on what you wait for", ev)
			return
		}
		analysisutil.Report(pass, res, rule, call,
			"time.Sleep(0) returns at once and does not yield; block on what you wait for, or call runtime.Gosched", ev,
			goschedFix(pass, call, stack)...)
	case name == "Tick":
		analysisutil.Report(pass, res, rule, call,
			"time.Tick in a loop starts a new ticker every iteration that is never stopped; make one time.Ticker before the loop", ev)
	case !invariant(info, call.Args[0], loop):
		return // a duration computed per iteration: backoff, jitter
	case name == "After":
		if sel := selectReceiving(stack, call); sel != nil && mayContinue(info, sel, loop, call) {
			analysisutil.Report(pass, res, rule, call,
				"time.After in a loop makes a new timer every iteration, dropped when another case wins; make one time.Timer before the loop and Reset it", ev)
		}
	case name == "NewTimer":
		if sel := timerSelect(info, call, stack, loop); sel != nil {
			analysisutil.Report(pass, res, rule, call,
				"time.NewTimer in a loop makes a new timer every iteration; make one before the loop and Reset it", ev)
		}
	}
}

// invariant reports whether the duration e is the same on every iteration
// of loop: it calls nothing (conversions aside) and reads no variable
// declared or assigned in the loop.
func invariant(info *types.Info, e ast.Expr, loop astutil.Loop) bool {
	assigned := map[types.Object]bool{}
	ast.Inspect(loop.Stmt, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, l := range lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok {
				assigned[info.ObjectOf(id)] = true
			}
		}
		return true
	})
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv, isConv := info.Types[n.Fun]; !isConv || !tv.IsType() {
				ok = false
			}
		case *ast.Ident:
			if v, isVar := info.Uses[n].(*types.Var); isVar &&
				(assigned[v] || loop.Stmt.Pos() <= v.Pos() && v.Pos() < loop.Stmt.End()) {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// inDefault reports whether the path holds a select's default clause.
func inDefault(path []ast.Node) bool {
	return slices.ContainsFunc(path, func(n ast.Node) bool {
		c, ok := n.(*ast.CommClause)
		return ok && c.Comm == nil
	})
}

// selectReceiving returns the select of which a case receives from the
// channel call returns (case <-time.After(d), case v := <-time.After(d)).
func selectReceiving(stack []ast.Node, call *ast.CallExpr) *ast.SelectStmt {
	// stack: ... SelectStmt BlockStmt CommClause (ExprStmt|AssignStmt) UnaryExpr CallExpr
	n := len(stack)
	if n < 6 {
		return nil
	}
	recv, ok := stack[n-2].(*ast.UnaryExpr)
	if !ok || recv.Op != token.ARROW {
		return nil
	}
	clause, ok := stack[n-4].(*ast.CommClause)
	if !ok || clause.Comm != stack[n-3] {
		return nil
	}
	sel, _ := stack[n-6].(*ast.SelectStmt)
	return sel
}

// mayContinue reports whether a case of sel other than the one receiving
// from timer can let the loop run another iteration, dropping the timer.
func mayContinue(info *types.Info, sel *ast.SelectStmt, loop astutil.Loop, timer ast.Node) bool {
	for _, c := range sel.Body.List {
		c := c.(*ast.CommClause)
		if c.Comm != nil && c.Comm.Pos() <= timer.Pos() && timer.End() <= c.Comm.End() {
			continue
		}
		if !astutil.AlwaysLeaves(info, c.Body, loop, false) {
			return true
		}
	}
	return false
}

// timerSelect returns the select in the loop's body that receives from the
// C of the timer that call makes (t := time.NewTimer(d); ... case <-t.C:),
// when another of its cases may let the loop go on.
func timerSelect(info *types.Info, call *ast.CallExpr, stack []ast.Node, loop astutil.Loop) *ast.SelectStmt {
	as, ok := stack[len(stack)-2].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil
	}
	timer := info.ObjectOf(id)
	if timer == nil {
		return nil
	}
	var found *ast.SelectStmt
	ast.Inspect(loop.Body(), func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectStmt)
		if !ok || found != nil {
			return found == nil
		}
		for _, c := range sel.Body.List {
			c := c.(*ast.CommClause)
			if c.Comm != nil && receivesFromC(info, c.Comm, timer) && mayContinue(info, sel, loop, c.Comm) {
				found = sel
			}
		}
		return found == nil
	})
	return found
}

// receivesFromC reports whether a select case's statement receives from
// timer.C.
func receivesFromC(info *types.Info, comm ast.Stmt, timer types.Object) bool {
	var x ast.Expr
	switch s := comm.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			x = s.Rhs[0]
		}
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	sel, ok := ast.Unparen(u.X).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	return ok && info.Uses[id] == timer
}

// goschedFix offers to replace time.Sleep(0) with runtime.Gosched() when
// that edit alone compiles: the file imports runtime under a name that
// reaches the call unshadowed, and uses its time import elsewhere (else the
// import would be left unused).
func goschedFix(pass *analysis.Pass, call *ast.CallExpr, stack []ast.Node) []analysis.SuggestedFix {
	file, ok := stack[0].(*ast.File)
	if !ok {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	timeID, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	timePkg := pass.TypesInfo.Uses[timeID]
	uses := 0
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && pass.TypesInfo.Uses[id] == timePkg {
			uses++
		}
		return true
	})
	if uses < 2 {
		return nil
	}
	for _, imp := range file.Imports {
		if imp.Path.Value != `"runtime"` {
			continue
		}
		name := "runtime"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "_" || name == "." {
			return nil
		}
		scope := pass.TypesInfo.Scopes[file]
		if scope == nil {
			return nil
		}
		_, obj := scope.Innermost(call.Pos()).LookupParent(name, call.Pos())
		pkgName, ok := obj.(*types.PkgName)
		if !ok || pkgName.Imported().Path() != "runtime" {
			return nil
		}
		return []analysis.SuggestedFix{{
			Message: "Replace time.Sleep(0) with runtime.Gosched()",
			TextEdits: []analysis.TextEdit{{
				Pos:     call.Pos(),
				End:     call.End(),
				NewText: []byte(name + ".Gosched()"),
			}},
		}}
	}
	return nil
}
