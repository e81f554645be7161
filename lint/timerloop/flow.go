package timerloop

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

// This file answers the one control-flow question of the rule: after a
// select case runs, can the loop start another iteration (and so make the
// next timer while this one is dropped)? Every doubt is answered "no",
// which keeps the analyzer silent.

// surelyLeaves reports whether running list always leaves loop: it holds a
// statement that leaves (return, a break or continue out of the loop, a
// goto, a call that never returns) or an if/else, switch or select every
// branch of which leaves — the terminating-statement analysis of the Go
// spec, widened from "leaves the function" to "leaves the loop".
// breakLeaves says whether an unlabelled break at the top of list leaves
// the loop (false inside a select or switch clause).
func surelyLeaves(info *types.Info, list []ast.Stmt, loop astutil.Loop, breakLeaves bool) bool {
	for _, s := range list {
		if astutil.Continues(info, s, loop) {
			return false // reaches the next iteration before leaving
		}
		if stmtLeaves(info, s, loop, breakLeaves) {
			return true
		}
	}
	return false
}

func stmtLeaves(info *types.Info, s ast.Stmt, loop astutil.Loop, breakLeaves bool) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt, *ast.BranchStmt, *ast.ExprStmt:
		return astutil.Leaves(info, s, loop, breakLeaves)
	case *ast.BlockStmt:
		return surelyLeaves(info, s.List, loop, breakLeaves)
	case *ast.LabeledStmt:
		return stmtLeaves(info, s.Stmt, loop, breakLeaves)
	case *ast.IfStmt:
		return s.Else != nil && surelyLeaves(info, s.Body.List, loop, breakLeaves) &&
			stmtLeaves(info, s.Else, loop, breakLeaves)
	case *ast.SwitchStmt:
		return clausesLeave(info, s.Body, loop)
	case *ast.TypeSwitchStmt:
		return clausesLeave(info, s.Body, loop)
	case *ast.SelectStmt:
		for _, c := range s.Body.List {
			if !surelyLeaves(info, c.(*ast.CommClause).Body, loop, false) {
				return false
			}
		}
		return true
	}
	return false
}

// clausesLeave reports whether a switch has a default and every clause
// leaves the loop (a fallthrough counts as not leaving: rare, and silence
// is the safe answer).
func clausesLeave(info *types.Info, body *ast.BlockStmt, loop astutil.Loop) bool {
	hasDefault := false
	for _, c := range body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			hasDefault = true
		}
		if !surelyLeaves(info, cc.Body, loop, false) {
			return false
		}
	}
	return hasDefault
}

// tailLeaves reports whether, once the select sel has run, the statements
// that follow it on the way back to loop's body surely leave the loop: the
// select then runs at most once per entry into the loop, unless a case
// continues it. parents maps the loop's nodes to their parents. A path it
// does not understand (sel inside an inner loop, a closure) answers false.
func tailLeaves(info *types.Info, sel ast.Stmt, loop astutil.Loop, parents map[ast.Node]ast.Node) bool {
	breakLeaves := true
	// Whether an unlabelled break is the loop's depends on the switches
	// and selects between sel and the loop, so collect the path first.
	var path []ast.Node
	for n := ast.Node(sel); n != nil && n != loop.Stmt; n = parents[n] {
		path = append(path, n)
	}
	for i := len(path) - 1; i >= 1; i-- {
		var list []ast.Stmt
		switch n := path[i].(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			breakLeaves = false
			continue
		case *ast.IfStmt, *ast.LabeledStmt:
			continue
		default:
			return false
		}
		for k, s := range list {
			if s == path[i-1] {
				if surelyLeaves(info, list[k+1:], loop, breakLeaves) {
					return true
				}
				break
			}
		}
	}
	return false
}

// mayContinue reports whether a case of sel other than the one holding
// timer can let the loop run another iteration, dropping the timer: its
// body continues the loop, or it neither leaves nor is followed by
// statements that leave.
func mayContinue(info *types.Info, sel *ast.SelectStmt, loop astutil.Loop, timer ast.Node, parents map[ast.Node]ast.Node) bool {
	tail := -1 // computed on demand: 0 no, 1 yes
	for _, c := range sel.Body.List {
		c := c.(*ast.CommClause)
		if c.Comm != nil && c.Comm.Pos() <= timer.Pos() && timer.End() <= c.Comm.End() {
			continue
		}
		if endsLoop(info, c.Comm, loop) {
			continue // the context is done: the loop ends at its next check
		}
		if astutil.Continues(info, &ast.BlockStmt{List: c.Body}, loop) {
			return true
		}
		if surelyLeaves(info, c.Body, loop, false) {
			continue
		}
		if tail < 0 {
			tail = 0
			if tailLeaves(info, sel, loop, parents) {
				tail = 1
			}
		}
		if tail == 0 {
			return true
		}
	}
	return false
}

// endsLoop reports whether a select case receives from ctx.Done() (a
// context.Context's) where loop ends once that context is done: its
// condition requires ctx.Err() == nil (for ctx.Err() == nil { ... }), or
// its body starts with if ctx.Err() != nil { leave }. When the case runs,
// the loop ends before it makes another timer, so the timer of that round
// is dropped once, at the end, not per iteration.
func endsLoop(info *types.Info, comm ast.Stmt, loop astutil.Loop) bool {
	ch := astutil.Received(comm)
	if ch == nil {
		return false
	}
	ctx := contextCall(info, ch, "Done")
	if ctx == "" {
		return false
	}
	if f, ok := loop.Stmt.(*ast.ForStmt); ok && f.Cond != nil && requiresNoErr(info, f.Cond, ctx) {
		return true
	}
	body := loop.Body().List
	if len(body) == 0 {
		return false
	}
	ifs, ok := body[0].(*ast.IfStmt)
	if !ok || ifs.Init != nil || !surelyLeaves(info, ifs.Body.List, loop, true) {
		return false
	}
	b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	return ok && b.Op == token.NEQ && isNil(info, b.Y) && contextCall(info, b.X, "Err") == ctx
}

// requiresNoErr reports whether cond holds only while ctx.Err() == nil:
// it is that comparison, or a && of which one operand is.
func requiresNoErr(info *types.Info, cond ast.Expr, ctx string) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.LAND:
		return requiresNoErr(info, b.X, ctx) || requiresNoErr(info, b.Y, ctx)
	case token.EQL:
		return isNil(info, b.Y) && contextCall(info, b.X, "Err") == ctx
	}
	return false
}

// contextCall returns the spelling of ctx when e is ctx.<method>() for a
// method of context.Context (Done, Err), and "" otherwise. The context
// must be a plain variable or a field chain (ctx, s.ctx): a call such as
// r.Context() may return another context each time.
func contextCall(info *types.Info, e ast.Expr, method string) string {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return ""
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != method {
		return ""
	}
	fn, _ := info.Uses[sel.Sel].(*types.Func)
	if fn == nil || !implementsContext(info.TypeOf(sel.X)) {
		return ""
	}
	for x := ast.Unparen(sel.X); ; {
		switch y := x.(type) {
		case *ast.Ident:
			return types.ExprString(sel.X)
		case *ast.SelectorExpr:
			x = ast.Unparen(y.X)
			continue
		}
		return ""
	}
}

// implementsContext reports whether t is or implements context.Context.
func implementsContext(t types.Type) bool {
	if t == nil {
		return false
	}
	for _, m := range []string{"Done", "Err", "Deadline", "Value"} {
		obj, _, _ := types.LookupFieldOrMethod(t, true, nil, m)
		if _, ok := obj.(*types.Func); !ok {
			return false
		}
	}
	return true
}
