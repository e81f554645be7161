package spinwait

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// retry is a consumer's retry loop around a non-blocking call: the loop
// takes from a queue (or polls a source) with a call that never waits
// for work, and when the call reports nothing it goes round again at
// once. The path that found an item does real work, so the loop is no
// plain flag spin; the path that found nothing is the spin.
type retry struct {
	call *ast.CallExpr // the non-blocking call whose "nothing" is retried
	fn   *types.Func
	test ast.Expr // the test of its result that sends the loop round again
}

// retrySpin recognises a retry around a non-blocking call. The loop (no
// init, no post: not counted, not a walk) runs, in its body, optional
// stop checks (an if that always leaves, a select with a default whose
// cases leave), then a call of a function that either never blocks and
// polls shared state (lint/blocking: NeverBlocks with Polls) or whose only
// wait is a mutex it takes and releases itself (Locks), and tests what the
// call returned for "nothing" (v == nil, err != nil, !ok, a false result,
// a switch case on those). The branch that found nothing is the idle path:
// it must go round again at once (continue, or fall off the end of the
// body), doing nothing but stop checks that leave, runtime.Gosched or
// counting; anything else there (a sleep, a channel operation, a blocking
// select, a call, a return or break) makes it no spin of this kind. The
// loop's condition, if any, must not block (for !stop.Load()).
//
// A lone boolean result of a function that runs a compare-and-swap is
// whether a race was won (a lost CAS: contention, not a wait), so it is
// not taken for "nothing". A function without facts (another package in
// a lenient read, an interface method, a func value) is not followed.
func (s *spin) retrySpin(f *ast.ForStmt) (retry, bool) {
	if f.Init != nil || f.Post != nil || len(f.Body.List) == 0 {
		return retry{}, false
	}
	s.counters = counters(s.info, f.Body)
	if f.Cond != nil && (!s.quiet(f.Cond) || s.counts(f.Cond)) {
		return retry{}, false
	}
	body := f.Body.List
	for i, st := range body {
		if r, idle, rest, ok := s.retryAt(st, body[i+1:]); ok {
			if !s.goesRound(idle, rest) {
				return retry{}, false
			}
			return r, true
		}
		if !s.idleStmt(st) {
			return retry{}, false
		}
	}
	return retry{}, false
}

// retryAt reads st (with the statements after it, rest) as the call and
// its test. It returns the idle path: the statements of the branch taken
// on "nothing", and the statements that follow that branch in the body
// (the rest after the test; when the branch ends in continue they never
// run).
func (s *spin) retryAt(st ast.Stmt, rest []ast.Stmt) (r retry, idle, after []ast.Stmt, ok bool) {
	switch st := st.(type) {
	case *ast.AssignStmt:
		call, vars, ok := s.pollCall(st)
		if !ok || len(rest) == 0 {
			return retry{}, nil, nil, false
		}
		r = retry{call: call, fn: analysisutil.Callee(s.info, call)}
		idle, found := s.idleBranch(rest[0], call, vars)
		if !found {
			return retry{}, nil, nil, false
		}
		r.test = testOf(rest[0])
		return r, idle, rest[1:], true
	case *ast.IfStmt:
		var call *ast.CallExpr
		var vars []*types.Var
		if st.Init != nil {
			as, isAssign := st.Init.(*ast.AssignStmt)
			if !isAssign {
				return retry{}, nil, nil, false
			}
			if call, vars, ok = s.pollCall(as); !ok {
				return retry{}, nil, nil, false
			}
		} else if call = s.directCall(st.Cond); call == nil {
			return retry{}, nil, nil, false
		}
		idle, found := s.idleBranch(&ast.IfStmt{Cond: st.Cond, Body: st.Body, Else: st.Else}, call, vars)
		if !found {
			return retry{}, nil, nil, false
		}
		return retry{call: call, fn: analysisutil.Callee(s.info, call), test: st.Cond}, idle, rest, true
	case *ast.SwitchStmt:
		as, isAssign := st.Init.(*ast.AssignStmt)
		if !isAssign {
			return retry{}, nil, nil, false
		}
		call, vars, ok := s.pollCall(as)
		if !ok {
			return retry{}, nil, nil, false
		}
		sw := *st
		sw.Init = nil
		idle, found := s.idleBranch(&sw, call, vars)
		if !found {
			return retry{}, nil, nil, false
		}
		return retry{call: call, fn: analysisutil.Callee(s.info, call), test: testOf(&sw)}, idle, rest, true
	}
	return retry{}, nil, nil, false
}

// testOf is the expression a retry's test reads, for the evidence.
func testOf(st ast.Stmt) ast.Expr {
	switch st := st.(type) {
	case *ast.IfStmt:
		return st.Cond
	case *ast.SwitchStmt:
		if st.Tag != nil {
			return st.Tag
		}
		for _, c := range st.Body.List {
			if cc := c.(*ast.CaseClause); len(cc.List) > 0 {
				return cc.List[0]
			}
		}
	}
	return nil
}

// pollCall reads v, err := q.Dequeue() (or = ): one call, assigned to
// plain variables, of a function that polls without waiting for work.
func (s *spin) pollCall(as *ast.AssignStmt) (*ast.CallExpr, []*types.Var, bool) {
	if len(as.Rhs) != 1 || as.Tok != token.DEFINE && as.Tok != token.ASSIGN {
		return nil, nil, false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || !s.polling(call) {
		return nil, nil, false
	}
	vars := make([]*types.Var, len(as.Lhs))
	for i, l := range as.Lhs {
		id, ok := ast.Unparen(l).(*ast.Ident)
		if !ok {
			return nil, nil, false // a field, an element: the loop stores what it took
		}
		if id.Name == "_" {
			continue
		}
		v, ok := s.info.ObjectOf(id).(*types.Var)
		if !ok || v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
			return nil, nil, false
		}
		vars[i] = v
	}
	return call, vars, true
}

// polling reports a call of a function that takes from shared state
// without waiting for it to have something: it never blocks and polls
// (an atomic, a non-blocking channel operation), or its only wait is a
// mutex it takes and releases itself. The atomics and TryLock themselves
// are the flag spins' business (and a CAS's failure is a lost race).
func (s *spin) polling(call *ast.CallExpr) bool {
	fn := analysisutil.Callee(s.info, call)
	if fn == nil || astutil.IsAtomicLike(fn) || blocking.IsCAS(fn) || isTryLock(s.info, call) {
		return false
	}
	f := s.facts.Of(fn)
	if !(f.Kind == blocking.NeverBlocks && f.Polls || f.Locks) {
		return false
	}
	for _, a := range call.Args {
		if !s.quiet(a) {
			return false
		}
	}
	return true
}

// directCall returns the polling call a condition tests directly (!q.TryPop(&v),
// q.Pop() == nil), or nil.
func (s *spin) directCall(cond ast.Expr) *ast.CallExpr {
	e := ast.Unparen(cond)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		e = ast.Unparen(u.X)
	}
	if b, ok := e.(*ast.BinaryExpr); ok && (b.Op == token.EQL || b.Op == token.NEQ) {
		if isNil(s.info, b.Y) {
			e = ast.Unparen(b.X)
		} else if isNil(s.info, b.X) {
			e = ast.Unparen(b.Y)
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || !s.polling(call) {
		return nil
	}
	return call
}

// idleBranch finds, in st (the if or switch that tests the call's result),
// the statements run when the call found nothing. A missing else is an
// empty idle branch: the loop goes on after the if.
func (s *spin) idleBranch(st ast.Stmt, call *ast.CallExpr, vars []*types.Var) ([]ast.Stmt, bool) {
	switch st := st.(type) {
	case *ast.IfStmt:
		nothing, ok := s.nothingTest(st.Cond, call, vars)
		if !ok {
			return nil, false
		}
		if nothing {
			return st.Body.List, true
		}
		switch e := st.Else.(type) {
		case nil:
			return nil, true
		case *ast.BlockStmt:
			return e.List, true
		}
		return nil, false
	case *ast.SwitchStmt:
		var idle []ast.Stmt
		found := false
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				if st.Tag != nil {
					// switch v { case nil: }: the tag is the result.
					e = &ast.BinaryExpr{X: st.Tag, Op: token.EQL, Y: e}
				}
				if nothing, ok := s.nothingTest(e, call, vars); ok && nothing && !found {
					idle, found = cc.Body, true
				}
			}
		}
		if !found || hasBreak(idle) {
			return nil, false
		}
		return idle, true
	}
	return nil, false
}

// hasBreak reports an unlabelled break at the top of a switch clause's
// statements: it ends the switch, not the loop, and the loop's path then
// goes on after the switch, which this rule does not follow.
func hasBreak(list []ast.Stmt) bool {
	for _, st := range list {
		if b, ok := st.(*ast.BranchStmt); ok && b.Tok == token.BREAK && b.Label == nil {
			return true
		}
	}
	return false
}

// nothingTest reads cond as a test of the call's result: it returns
// whether cond holds when the call found nothing (v == nil, err != nil,
// !ok, !q.TryPop(): true; v != nil, err == nil, ok: false). ok is false
// when cond is no such test.
func (s *spin) nothingTest(cond ast.Expr, call *ast.CallExpr, vars []*types.Var) (nothing, ok bool) {
	e := ast.Unparen(cond)
	neg := false
	for {
		u, isNot := e.(*ast.UnaryExpr)
		if !isNot || u.Op != token.NOT {
			break
		}
		neg, e = !neg, ast.Unparen(u.X)
	}
	sig, _ := s.fnSig(call)
	if sig == nil {
		return false, false
	}
	res := sig.Results()
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op != token.EQL && e.Op != token.NEQ {
			return false, false
		}
		x, y := e.X, e.Y
		if isNil(s.info, x) {
			x, y = y, x
		}
		eq := e.Op == token.EQL
		if isFalse(s.info, y) || isTrue(s.info, y) {
			// ok == false, ok != true
			i := s.resultIndex(x, call, vars)
			if i < 0 || !isBool(res.At(i).Type()) || !s.boolIsFound(call, res) {
				return false, false
			}
			return (eq == isFalse(s.info, y)) != neg, true
		}
		if !isNil(s.info, y) {
			return false, false
		}
		i := s.resultIndex(x, call, vars)
		if i < 0 {
			return false, false
		}
		if isError(res.At(i).Type()) {
			// err != nil: nothing (or a failure); err == nil: found.
			return !eq != neg, true
		}
		// v == nil: nothing.
		return eq != neg, true
	default:
		i := s.resultIndex(e, call, vars)
		if i < 0 || !isBool(res.At(i).Type()) || !s.boolIsFound(call, res) {
			return false, false
		}
		return neg, true // !ok: nothing
	}
}

// boolIsFound reports whether a call's boolean result can be read as
// "found something": it comes with a value (v, ok := q.Pop()), or the
// function runs no compare-and-swap (a lone bool of a function that
// swaps says whether its CAS won a race).
func (s *spin) boolIsFound(call *ast.CallExpr, res *types.Tuple) bool {
	if res.Len() > 1 {
		return true
	}
	return !s.facts.Of(analysisutil.Callee(s.info, call)).Swaps
}

// resultIndex returns which result of call e is: the call itself (a lone
// result), or a variable it was assigned to; -1 otherwise.
func (s *spin) resultIndex(e ast.Expr, call *ast.CallExpr, vars []*types.Var) int {
	e = ast.Unparen(e)
	if e == call {
		if sig, _ := s.fnSig(call); sig != nil && sig.Results().Len() == 1 {
			return 0
		}
		return -1
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return -1
	}
	obj := s.info.Uses[id]
	for i, v := range vars {
		if v != nil && obj == v {
			if sig, _ := s.fnSig(call); sig != nil && sig.Results().Len() == len(vars) {
				return i
			}
		}
	}
	return -1
}

func (s *spin) fnSig(call *ast.CallExpr) (*types.Signature, bool) {
	sig, ok := s.info.TypeOf(call.Fun).(*types.Signature)
	return sig, ok
}

// goesRound reports whether the idle path, the idle branch and then (if
// it does not continue) the statements after it, goes round the loop
// again at once: only stop checks that leave, yields and counters, ended
// by a continue of this loop or the end of the body.
func (s *spin) goesRound(idle, after []ast.Stmt) bool {
	for _, list := range [][]ast.Stmt{idle, after} {
		for _, st := range list {
			if b, ok := st.(*ast.BranchStmt); ok && b.Tok == token.CONTINUE {
				return s.continuesLoop(b)
			}
			if !s.idleStmt(st) {
				return false
			}
		}
	}
	return true
}

// continuesLoop reports whether a continue starts this loop's next
// iteration (unlabelled, or labelled with this loop's label).
func (s *spin) continuesLoop(b *ast.BranchStmt) bool {
	if b.Label == nil {
		return true
	}
	l, _ := s.info.Uses[b.Label].(*types.Label)
	return l != nil && l == s.loop.Label
}

// idleStmt reports a statement that may run on the idle path without
// making it wait or work: an if whose condition does not block and whose
// body always leaves (if stop.Load() { return }), a select with a default
// whose other cases always leave and whose default only yields or
// counts (case <-stop: return; default:), runtime.Gosched, a counter.
func (s *spin) idleStmt(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.EmptyStmt:
		return true
	case *ast.IncDecStmt:
		id, ok := ast.Unparen(st.X).(*ast.Ident)
		return ok && analysisutil.Local(s.info.Uses[id])
	case *ast.ExprStmt:
		call, ok := ast.Unparen(st.X).(*ast.CallExpr)
		return ok && astutil.ClassifyCall(s.info, call) == astutil.Yield
	case *ast.IfStmt:
		return st.Init == nil && st.Else == nil && s.quiet(st.Cond) && !s.counts(st.Cond) &&
			astutil.AlwaysLeaves(s.info, st.Body.List, s.loop, true)
	case *ast.SelectStmt:
		if astutil.DefaultClause(st) == nil {
			return false // blocks
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CommClause)
			if cc.Comm == nil {
				for _, x := range cc.Body {
					if !s.idleStmt(x) {
						return false
					}
				}
				continue
			}
			if !s.quietComm(cc.Comm) || !astutil.AlwaysLeaves(s.info, cc.Body, s.loop, false) {
				return false
			}
		}
		return true
	}
	return false
}

// quietComm reports a select case's receive whose channel expression does
// not block to evaluate (case <-stop, case <-ctx.Done()).
func (s *spin) quietComm(st ast.Stmt) bool {
	var e ast.Expr
	switch st := st.(type) {
	case *ast.ExprStmt:
		e = st.X
	case *ast.AssignStmt:
		if len(st.Rhs) != 1 {
			return false
		}
		e = st.Rhs[0]
	default:
		return false // a send: the loop hands something on
	}
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	return ok && u.Op == token.ARROW && s.quiet(u.X)
}

// quiet reports whether evaluating e neither blocks nor sleeps nor runs
// a closure: every call in it reads, yields or never blocks by its facts.
func (s *spin) quiet(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.CallExpr:
			switch astutil.ClassifyCallFacts(s.info, n, s.facts) {
			case astutil.Read, astutil.Yield, astutil.NoBlock:
			default:
				ok = false
			}
		}
		return ok
	})
	return ok
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

func isFalse(info *types.Info, e ast.Expr) bool { return boolConst(info, e, false) }
func isTrue(info *types.Info, e ast.Expr) bool  { return boolConst(info, e, true) }

func boolConst(info *types.Info, e ast.Expr, want bool) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value) == want
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

func isError(t types.Type) bool {
	return types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface)) && types.IsInterface(t)
}

// reportRetry reports a retry around a non-blocking call at the loop,
// naming the call: the spin is this loop's, whatever the callee does.
func reportRetry(pass *analysis.Pass, res *evidence.Result, f *ast.ForStmt, r retry, facts *blocking.Result) {
	call := types.ExprString(r.call.Fun) + "()"
	analysisutil.Report(pass, res, rule, f,
		fmt.Sprintf("loop retries %s at once when it finds nothing, holding a core while there is none; block until there is work (a channel, sync.Cond, the queue's blocking call)", call),
		[]finding.Evidence{
			{Label: RetriedCallLine, Value: analysisutil.Line(pass, r.call.Pos())},
			{Label: blocking.Describe(r.fn, facts.Of(r.fn)), Value: 1},
			{Label: "blocking operations on the path that finds nothing", Value: 0},
			{Label: "statements in the loop body", Value: float64(len(f.Body.List))},
		})
}

// RetriedCallLine labels the evidence of a retry spin that gives the line
// of the call it retries; lint/loops reads it to place the verdict.
const RetriedCallLine = "retried call at line"

// counters returns the variables a loop body steps (n++, n += k): an exit
// that reads one bounds the attempts (tries > 3: return), which is not a
// spin of unbounded length.
func counters(info *types.Info, body *ast.BlockStmt) map[types.Object]bool {
	out := map[types.Object]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		var x ast.Expr
		switch n := n.(type) {
		case *ast.IncDecStmt:
			x = n.X
		case *ast.AssignStmt:
			if n.Tok != token.ASSIGN && n.Tok != token.DEFINE && len(n.Lhs) == 1 {
				x = n.Lhs[0]
			}
		}
		if id, ok := ast.Unparen(x).(*ast.Ident); ok && x != nil {
			if obj := info.ObjectOf(id); obj != nil {
				out[obj] = true
			}
		}
		return true
	})
	return out
}

// counts reports whether e reads a variable the loop steps.
func (s *spin) counts(e ast.Expr) bool {
	return astutil.Uses(s.info, e, func(o types.Object) bool { return s.counters[o] })
}
