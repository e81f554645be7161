package goroutinethrottle

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

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

// Analyzer reports rule SD103, goroutine-count-throttle.
var Analyzer = &analysis.Analyzer{
	Name:       "goroutinethrottle",
	Doc:        analysisutil.MustExtractDoc(doc, "goroutinethrottle"),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD103"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	if !analysisutil.Imports(pass.Pkg, "runtime") {
		return res, nil
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	parents := map[*ast.BlockStmt]map[ast.Node]ast.Node{} // per function, built on demand
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || !analysisutil.IsFunc(analysisutil.Callee(pass.TypesInfo, call), "runtime", "NumGoroutine") ||
			analysisutil.IsTestFile(pass, call.Pos()) {
			return true
		}
		body := astutil.EnclosingFunc(stack)
		if body == nil {
			return true // a package-level initializer
		}
		if parents[body] == nil {
			parents[body] = astutil.Parents(body)
		}
		check(pass, res, call, body, parents[body])
		return true
	})
	return res, nil
}

// check reports call when its value, or a local variable holding it,
// controls a loop, a spawn or a wait.
func check(pass *analysis.Pass, res *evidence.Result, call *ast.CallExpr, body *ast.BlockStmt, parents map[ast.Node]ast.Node) {
	uses := []ast.Expr{call}
	if v := assignedVar(pass.TypesInfo, call, parents); v != nil {
		ast.Inspect(body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && pass.TypesInfo.Uses[id] == v {
				uses = append(uses, id)
			}
			return true
		})
	}
	for _, use := range uses {
		what, cond := controls(pass.TypesInfo, use, parents)
		if what == "" {
			continue
		}
		ev := []finding.Evidence{{Label: "condition at line", Value: analysisutil.Line(pass, cond.Pos())}}
		if limit, ok := limitOf(pass.TypesInfo, use, parents); ok {
			ev = append(ev, finding.Evidence{Label: "goroutine limit", Value: limit, Unit: "goroutines"})
		}
		analysisutil.Report(pass, res, rule, call,
			fmt.Sprintf("%s runtime.NumGoroutine, which counts every goroutine in the process; bound concurrency with a semaphore and wait with a sync.WaitGroup", what), ev)
		return
	}
}

// assignedVar returns the local variable that call is the whole value of
// (n := runtime.NumGoroutine()), or nil.
func assignedVar(info *types.Info, call *ast.CallExpr, parents map[ast.Node]ast.Node) *types.Var {
	var lhs ast.Expr
	switch p := parents[call].(type) {
	case *ast.AssignStmt:
		if len(p.Lhs) == 1 && len(p.Rhs) == 1 {
			lhs = p.Lhs[0]
		}
	case *ast.ValueSpec:
		if len(p.Names) == 1 && len(p.Values) == 1 {
			lhs = p.Names[0]
		}
	}
	id, ok := lhs.(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := info.ObjectOf(id).(*types.Var)
	if v == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil // a package variable may be set anywhere
	}
	return v
}

// controls climbs from use through the expression that holds it to the
// statement that consumes it, and says what that statement lets the count
// decide ("" when nothing the rule is about), with the condition.
func controls(info *types.Info, use ast.Expr, parents map[ast.Node]ast.Node) (string, ast.Expr) {
	var child ast.Node = use
	parent := parents[child]
	for {
		if _, ok := parent.(ast.Expr); !ok {
			break
		}
		child, parent = parent, parents[parent]
	}
	cond, _ := child.(ast.Expr)
	var branches []ast.Node
	switch p := parent.(type) {
	case *ast.ForStmt:
		if p.Cond == child {
			return "loop waits on", cond
		}
		return "", nil
	case *ast.IfStmt:
		if p.Cond != child {
			return "", nil
		}
		branches = []ast.Node{p.Body}
		if p.Else != nil {
			branches = append(branches, p.Else)
		}
	case *ast.SwitchStmt:
		if p.Tag != child {
			return "", nil
		}
		branches = []ast.Node{p.Body}
	case *ast.CaseClause:
		branches = []ast.Node{p}
	default:
		return "", nil
	}
	waits := loopWaitsOrSpawns(info, parent, parents)
	for _, b := range branches {
		if what := branchAction(info, b, waits); what != "" {
			return what, cond
		}
	}
	return "", nil
}

// loopWaitsOrSpawns reports whether the loop around stmt starts goroutines
// or sleeps: then a continue or break decided by the count throttles it. A
// monitoring loop that only skips an alert below a count does neither.
func loopWaitsOrSpawns(info *types.Info, stmt ast.Node, parents map[ast.Node]ast.Node) bool {
	var body *ast.BlockStmt
	for n := parents[stmt]; n != nil && body == nil; n = parents[n] {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			body = n.Body
		case *ast.RangeStmt:
			body = n.Body
		}
	}
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			found = true
		case *ast.CallExpr:
			found = found || astutil.ClassifyCall(info, n) == astutil.Sleep
		}
		return !found
	})
	return found
}

// branchAction says whether a branch decided by the count spawns, sleeps,
// or (when loopWaits) continues or breaks the loop.
func branchAction(info *types.Info, b ast.Node, loopWaits bool) string {
	what := ""
	ast.Inspect(b, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			what = "spawning depends on"
		case *ast.CallExpr:
			if astutil.ClassifyCall(info, n) == astutil.Sleep {
				what = "waiting depends on"
			}
		case *ast.BranchStmt:
			if loopWaits && (n.Tok == token.CONTINUE || n.Tok == token.BREAK) {
				what = "a loop waits on"
			}
		}
		return what == ""
	})
	return what
}

// limitOf returns the constant the count is compared with, if any.
func limitOf(info *types.Info, use ast.Expr, parents map[ast.Node]ast.Node) (float64, bool) {
	b, ok := parents[use].(*ast.BinaryExpr)
	if !ok {
		return 0, false
	}
	switch b.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.EQL, token.NEQ:
	default:
		return 0, false
	}
	other := b.Y
	if b.Y == use {
		other = b.X
	}
	tv, ok := info.Types[other]
	if !ok || tv.Value == nil {
		return 0, false
	}
	f, _ := constant.Float64Val(constant.ToFloat(tv.Value))
	return f, true
}
