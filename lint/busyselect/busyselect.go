package busyselect

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Analyzer reports rule SD101, busy-select.
var Analyzer = &analysis.Analyzer{
	Name:       "busyselect",
	Doc:        analysisutil.RuleDoc(rule),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, blocking.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD101"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	facts := pass.ResultOf[blocking.Analyzer].(*blocking.Result)
	analysisutil.Visit(pass, func(n *ast.SelectStmt, stack []ast.Node) { check(pass, res, facts, n, stack) })
	return res, nil
}

func check(pass *analysis.Pass, res *evidence.Result, facts *blocking.Result, sel *ast.SelectStmt, stack []ast.Node) {
	info := pass.TypesInfo
	def := astutil.DefaultClause(sel)
	if def == nil {
		return
	}
	loop, ok := astutil.EnclosingLoop(info, stack)
	if !ok {
		return
	}
	f, ok := loop.Stmt.(*ast.ForStmt)
	if !ok || astutil.IsCounted(info, f) {
		return // range and counted loops end or block on their own
	}
	if astutil.Leaves(info, def, loop, false) || leavesAfter(info, stack, loop) {
		return
	}
	if drainsOwnSend(info, loop) || stopsCondition(info, f, def) || walksList(info, facts, f, loop) || drainsQueued(info, f, sel) {
		return
	}
	// Everything that runs when the default is taken: the loop's
	// condition and post statement, its body but the select's other cases.
	eff := astutil.Effects{Facts: facts.Cheap()}
	skip := func(n ast.Node) bool {
		c, ok := n.(*ast.CommClause)
		return ok && c != def && c.Pos() >= sel.Pos() && c.End() <= sel.End()
	}
	for _, part := range []ast.Node{f.Cond, f.Post, f.Body} {
		if part != nil {
			eff.Scan(info, part, skip)
		}
	}
	if eff.MayBlock || eff.Exits > 0 {
		return
	}

	own := astutil.Effects{Facts: facts.Cheap()} // the default's own, for the message
	own.Scan(info, def, nil)
	reason := "neither blocks nor leaves the loop"
	ev := []finding.Evidence{
		{Label: "loop at line", Value: analysisutil.Line(pass, f.Pos())},
		{Label: "select cases besides default", Value: float64(len(sel.Body.List) - 1)},
		{Label: "statements in the default", Value: float64(len(def.Body))},
	}
	switch {
	case len(own.Sleeps) > 0:
		d := own.Sleeps[0]
		reason = fmt.Sprintf("sleeps only %v, too short to wait", d)
		ev = append(ev, finding.Evidence{Label: "sleep", Value: float64(d) / float64(time.Microsecond), Unit: "µs"})
	case own.Yields > 0:
		reason = "only yields with runtime.Gosched, which does not block"
		ev = append(ev, finding.Evidence{Label: "runtime.Gosched calls in the default", Value: float64(own.Yields)})
	case len(own.NoBlocks) > 0:
		fn := own.NoBlocks[0]
		reason = fmt.Sprintf("only calls %s, which never blocks", blocking.Name(fn))
		ev = append(ev,
			finding.Evidence{Label: blocking.Describe(fn, facts.Of(fn)), Value: 1},
			finding.Evidence{Label: "calls in the default that never block (per-function facts)", Value: float64(len(own.NoBlocks))})
	case len(def.Body) == 0:
		reason = "is empty"
	}
	analysisutil.ReportParts(pass, res, rule, 0, false, sel, analysisutil.Parts{
		What:  "loop spins a core on a select whose default " + reason,
		Notes: []string{"remove the default so the select blocks, or wait on a ticker or ctx.Done"}}, ev)
}

// leavesAfter reports whether a statement that follows the select (or one
// of the statements enclosing it) on the way back to the loop's body
// leaves the loop unconditionally: the select then runs once per pass, as
// in a drain loop ending in break. It also refuses paths it does not
// understand (the select inside another select's case), which keeps the
// analysis silent there.
func leavesAfter(info *types.Info, stack []ast.Node, loop astutil.Loop) bool {
	breakLeaves := true
	path := stack[loop.Index+1:]
	for i, n := range path[:len(path)-1] {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			breakLeaves = false
			continue
		case *ast.IfStmt, *ast.LabeledStmt:
			continue
		default:
			return true
		}
		for k, s := range list {
			if s == path[i+1] {
				if astutil.AlwaysLeaves(info, list[k+1:], loop, breakLeaves) {
					return true
				}
				break
			}
		}
	}
	return false
}

// drainsOwnSend reports the bounded "replace the pending value" loop: a
// select of the loop has a case that sends on a channel and leaves the
// loop, and the loop also receives from that same channel without
// waiting, to make room (in the default, or in a second select after
// the first). Each failed send frees a slot, so the loop runs at most a
// few times, and none of its selects spins.
func drainsOwnSend(info *types.Info, loop astutil.Loop) bool {
	sent := map[string]bool{}
	ast.Inspect(loop.Body(), func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectStmt:
			if astutil.DefaultClause(n) == nil {
				return true
			}
			for _, c := range n.Body.List {
				c := c.(*ast.CommClause)
				if s, ok := c.Comm.(*ast.SendStmt); ok && astutil.AlwaysLeaves(info, c.Body, loop, false) {
					sent[types.ExprString(s.Chan)] = true
				}
			}
		}
		return true
	})
	if len(sent) == 0 {
		return false
	}
	found := false
	ast.Inspect(loop.Body(), func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && sent[types.ExprString(n.X)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// walksList reports the loop that pops one item per round and leaves
// when none is left: a statement of its body assigns x (or x, ok) from a
// call of a never-blocking helper that writes through a pointer (a
// queue's get, which removes what it returns), and a later if leaves the
// loop on x == nil or !ok. Every round that reaches the select has
// consumed an item, so the loop walks a finite list; a default there
// means "skip this one". A helper that only reads (peek) does not
// consume, and a loop that leaves when the pop succeeds (a worker
// polling for work) goes round on the empty result: both stay reported.
func walksList(info *types.Info, facts *blocking.Result, f *ast.ForStmt, loop astutil.Loop) bool {
	popped := map[types.Object]bool{}
	for _, st := range f.Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if len(st.Rhs) != 1 {
				continue
			}
			call, ok := ast.Unparen(st.Rhs[0]).(*ast.CallExpr)
			if !ok {
				continue
			}
			fn := analysisutil.Callee(info, call)
			if fn == nil {
				continue
			}
			if fact := facts.Of(fn); fact.Kind != blocking.NeverBlocks || !fact.Mutates {
				continue
			}
			for _, l := range st.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					if obj := info.ObjectOf(id); obj != nil {
						popped[obj] = true
					}
				}
			}
		case *ast.IfStmt:
			if st.Init == nil && astutil.AlwaysLeaves(info, st.Body.List, loop, true) && exhausted(info, st.Cond, popped) {
				return true
			}
		}
	}
	return false
}

// exhausted reports a test that the popped value is absent: x == nil,
// nil == x, or !ok, with x or ok among popped.
func exhausted(info *types.Info, cond ast.Expr, popped map[types.Object]bool) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && popped[info.ObjectOf(id)]
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		return c.Op == token.NOT && is(c.X)
	case *ast.BinaryExpr:
		if c.Op != token.EQL {
			return false
		}
		isNil := func(e ast.Expr) bool { tv, ok := info.Types[e]; return ok && tv.IsNil() }
		return is(c.X) && isNil(c.Y) || isNil(c.X) && is(c.Y)
	}
	return false
}

// stopsCondition reports whether the default changes a variable that the
// loop's condition reads (for done := false; !done; { ... default: done
// = true }): the default then ends the loop, or counts toward its end.
func stopsCondition(info *types.Info, f *ast.ForStmt, def *ast.CommClause) bool {
	if f.Cond == nil {
		return false
	}
	written := map[types.Object]bool{}
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if obj := info.ObjectOf(id); obj != nil {
				written[obj] = true
			}
		}
	}
	ast.Inspect(def, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				mark(l)
			}
		case *ast.IncDecStmt:
			mark(n.X)
		}
		return true
	})
	return len(written) > 0 && astutil.Uses(info, f.Cond, func(obj types.Object) bool { return written[obj] })
}

// drainsQueued reports the batch drain: the loop runs only while a
// channel holds values (for len(ch) > 0 && ... { select { case v := <-ch:
// ...; default: } }), and a case of the select receives from that
// channel. Each round takes a queued value; the default runs only when
// another receiver took it first, and the loop then ends or takes the
// next one: bounded by what is queued, not a wait for a sender.
func drainsQueued(info *types.Info, f *ast.ForStmt, sel *ast.SelectStmt) bool {
	queued := map[string]bool{}
	var conj func(e ast.Expr)
	conj = func(e ast.Expr) {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok {
			return
		}
		if b.Op == token.LAND {
			conj(b.X)
			conj(b.Y)
			return
		}
		x, y, op := b.X, b.Y, b.Op
		if op == token.LSS { // 0 < len(ch)
			x, y, op = y, x, token.GTR
		}
		if op != token.GTR && op != token.NEQ {
			return
		}
		if tv, ok := info.Types[y]; !ok || tv.Value == nil || tv.Value.ExactString() != "0" {
			return
		}
		call, ok := ast.Unparen(x).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); !ok || id.Name != "len" || info.Uses[id] != types.Universe.Lookup("len") {
			return
		}
		if t := info.TypeOf(call.Args[0]); t != nil {
			if _, ok := t.Underlying().(*types.Chan); ok {
				queued[types.ExprString(call.Args[0])] = true
			}
		}
	}
	if f.Cond == nil {
		return false
	}
	conj(f.Cond)
	if len(queued) == 0 {
		return false
	}
	for op := range astutil.TriedOps(sel) {
		if u, ok := op.(*ast.UnaryExpr); ok && u.Op == token.ARROW && queued[types.ExprString(u.X)] {
			return true
		}
	}
	return false
}
