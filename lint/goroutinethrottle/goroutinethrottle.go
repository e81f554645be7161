package goroutinethrottle

import (
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

// Analyzer reports rule SD103, goroutine-count-throttle.
var Analyzer = &analysis.Analyzer{
	Name:       "goroutinethrottle",
	Doc:        analysisutil.RuleDoc(rule),
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
	var files []ast.Node
	for _, f := range pass.Files {
		if !analysisutil.IsTestFile(pass, f.Pos()) {
			files = append(files, f)
		}
	}
	var values *analysisutil.Values // built on the first call met
	parents := map[*ast.File]map[ast.Node]ast.Node{}
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		if !push || !analysisutil.IsFunc(analysisutil.Callee(pass.TypesInfo, call), "runtime", "NumGoroutine") ||
			analysisutil.IsTestFile(pass, call.Pos()) {
			return true
		}
		if astutil.EnclosingFunc(stack) == nil {
			return true // a package-level initializer
		}
		if values == nil {
			values = analysisutil.NewValues(pass.TypesInfo, files...)
		}
		file := stack[0].(*ast.File)
		if parents[file] == nil {
			parents[file] = astutil.Parents(file)
		}
		check(pass, res, values, call, stack, parents)
		return true
	})
	return res, nil
}

// check reports call when its value, or a variable or field holding it or
// a value computed from it (n := runtime.NumGoroutine(); busy := n >
// limit; s.active = n), controls a loop, a spawn or a wait.
func check(pass *analysis.Pass, res *evidence.Result, values *analysisutil.Values, call *ast.CallExpr, stack []ast.Node, parents map[*ast.File]map[ast.Node]ast.Node) {
	info := pass.TypesInfo
	derived := values.Derived(func(e ast.Expr) bool { return e == call })
	fields := derivedFields(info, values, call, derived)
	body := astutil.EnclosingFunc(stack)
	type use struct {
		expr    ast.Expr
		parents map[ast.Node]ast.Node
	}
	uses := []use{{call, parents[stack[0].(*ast.File)]}}
	for _, f := range pass.Files {
		if analysisutil.IsTestFile(pass, f.Pos()) {
			continue
		}
		// Locals are used only in their function; fields anywhere.
		var root ast.Node = f
		if len(fields) == 0 {
			if f != stack[0] {
				continue
			}
			root = body
		}
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if derived[info.Uses[n]] {
					uses = append(uses, use{n, parentsOf(parents, f)})
				}
			case *ast.SelectorExpr:
				if s, ok := info.Selections[n]; ok && fields[s.Obj()] {
					uses = append(uses, use{n, parentsOf(parents, f)})
				}
			}
			return true
		})
	}
	for _, u := range uses {
		what, cond := controls(info, u.expr, u.parents)
		if what == "" {
			continue
		}
		ev := []finding.Evidence{{Label: "condition at line", Value: analysisutil.Line(pass, cond.Pos())}}
		for _, l := range uses {
			if limit, ok := limitOf(info, l.expr, l.parents); ok {
				ev = append(ev, finding.Evidence{Label: "goroutine limit", Value: limit, Unit: "goroutines"})
				break
			}
		}
		via := ""
		if u.expr != ast.Expr(call) {
			via = fmt.Sprintf(" (through %s)", types.ExprString(u.expr))
		}
		analysisutil.Report(pass, res, rule, call,
			fmt.Sprintf("%s runtime.NumGoroutine%s, which counts every goroutine in the process; bound concurrency with a semaphore and wait with a sync.WaitGroup", what, via), ev)
		return
	}
}

func parentsOf(parents map[*ast.File]map[ast.Node]ast.Node, f *ast.File) map[ast.Node]ast.Node {
	if parents[f] == nil {
		parents[f] = astutil.Parents(f)
	}
	return parents[f]
}

// derivedFields returns the unexported struct fields whose every
// assignment in the package holds the count (s.active =
// runtime.NumGoroutine(), or a local derived from it): their reads
// anywhere in the package are reads of the count. An exported field may be
// set by another package, and is left out.
func derivedFields(info *types.Info, values *analysisutil.Values, call *ast.CallExpr, derived map[types.Object]bool) map[types.Object]bool {
	holds := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if n == ast.Node(call) {
				found = true
			}
			if id, ok := n.(*ast.Ident); ok && derived[info.Uses[id]] {
				found = true
			}
			return !found
		})
		return found
	}
	fields := map[types.Object]bool{}
	for obj, vals := range values.All() {
		if v, ok := obj.(*types.Var); !ok || !v.IsField() || v.Exported() {
			continue
		}
		all := len(vals) > 0
		for _, e := range vals {
			if e == nil || !holds(e) {
				all = false
				break
			}
		}
		if all {
			fields[obj] = true
		}
	}
	return fields
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
		// In a tagless switch (reject / wait / spawn) a case's condition
		// decides every clause after it too, the default included: the
		// later ones run only when it is false.
		if block, ok := parents[p].(*ast.BlockStmt); ok {
			if sw, ok := parents[block].(*ast.SwitchStmt); ok && sw.Tag == nil {
				after := false
				for _, c := range block.List {
					if after || c.(*ast.CaseClause).List == nil {
						branches = append(branches, c)
					}
					after = after || c == p
				}
			}
		}
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
