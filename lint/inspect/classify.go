package inspect

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"
)

// pollThreshold is SD102's: a sleep shorter than this in a loop is a poll.
const pollThreshold = time.Millisecond

// classifyAt finds the loops around line and classifies the innermost.
func (fe *fileEntry) classifyAt(line int) *Loop {
	stack := fe.chain(line)
	out := &Loop{Line: line, Kind: NotInLoop, Function: funcName(stack)}
	// Loops count only inside the innermost function: a loop around a
	// `go func() { ... }()` does not run the closure's lines.
	first := 0
	for i, n := range stack {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			first = i + 1
		}
	}
	var fnBody *ast.BlockStmt
	if first > 0 {
		switch f := stack[first-1].(type) {
		case *ast.FuncDecl:
			fnBody = f.Body
		case *ast.FuncLit:
			fnBody = f.Body
		}
	}
	var loops []*walker
	for i := first; i < len(stack); i++ {
		label := ""
		if i > 0 {
			if l, ok := stack[i-1].(*ast.LabeledStmt); ok {
				label = l.Label.Name
			}
		}
		switch s := stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loops = append(loops, &walker{fe: fe, loop: s.(ast.Stmt), label: label, fn: fnBody})
		}
	}
	if len(loops) == 0 {
		name := out.Function
		if name == "" {
			name = "its declaration"
		}
		out.Detail = fmt.Sprintf("line %d is in no loop of %s", line, name)
		return out
	}
	for i := len(loops) - 1; i >= 0; i-- {
		w := loops[i]
		kind, detail, spin := w.classify()
		start, end := fe.line(w.loop.Pos()), fe.line(w.loop.End())
		if i == len(loops)-1 {
			out.Kind, out.Detail, out.SpinLine = kind, detail, spin
			out.Start, out.End = start, end
			continue
		}
		out.Outer = append(out.Outer, [2]int{start, end})
		out.OuterKinds = append(out.OuterKinds, kind)
	}
	return out
}

func (fe *fileEntry) line(p token.Pos) int { return fe.fset.Position(p).Line }

// chain returns the nodes of the asked file whose lines include line,
// outermost first, each inside the one before.
func (fe *fileEntry) chain(line int) []ast.Node {
	var stack []ast.Node
	for _, d := range fe.file.Decls {
		if fe.line(d.Pos()) > line || fe.line(d.End()) < line {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if n == nil || fe.line(n.Pos()) > line || fe.line(n.End()) < line {
				return false
			}
			// The line that opens a closure (`go func() {`) runs in the
			// enclosing function, unless the closure fits on it.
			if lit, ok := n.(*ast.FuncLit); ok && fe.line(lit.Body.Lbrace) == line && fe.line(lit.Body.Rbrace) != line {
				return false
			}
			// Two statements on one line: keep the chain, not both.
			for len(stack) > 0 && (n.Pos() < stack[len(stack)-1].Pos() || n.End() > stack[len(stack)-1].End()) {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, n)
			return true
		})
		break
	}
	return stack
}

// op is one operation the walk found, at a line.
type op struct {
	line int
	what string
}

// walker classifies one loop (or, with loop nil, summarises a function
// body for its callers).
type walker struct {
	fe       *fileEntry
	loop     ast.Stmt // *ast.ForStmt or *ast.RangeStmt; nil for a summary
	label    string
	fn       *ast.BlockStmt         // the function around the loop, for local values
	depth    int                    // call depth of a summary
	visiting map[*ast.FuncDecl]bool // functions being summarised (recursion)

	inner    map[string]bool // labels declared inside the loop
	assigned map[any][]ast.Expr
	progress map[any]bool // assigned from values the loop computes itself
	tainted  map[any]bool // assigned from shared state
	condKeys map[any]bool // variables of the for condition (flag exits)
	received map[string]bool

	blocking, timers, yields, sleeps, spinSelects, reads, work []op
	varSleeps                                                  []op // sleeps of a length the source does not fix
	casYields                                                  int  // yields on the path after a failed compare-and-swap
	waitGuard                                                  *op  // a branch that loops again while shared state says wait
	condWait                                                   *op  // the for condition waits on shared state
	exitShared                                                 *op  // a branch leaves when shared state says so
	casExit                                                    *op  // a branch leaves when a compare-and-swap wins
	sendTries                                                  []op
	selfDrain                                                  *op
	exits                                                      int
}

// ctx is where the walk is.
type ctx struct {
	idle     bool // on the idle path: operations here repeat while nothing happens
	inner    bool // an unlabelled break leaves an inner statement
	afterCAS bool // runs when a compare-and-swap failed
}

// classify walks the loop and decides its kind.
func (w *walker) classify() (Kind, string, int) {
	w.prepare()
	c := ctx{idle: true}
	var body *ast.BlockStmt
	start, end := w.fe.line(w.loop.Pos()), w.fe.line(w.loop.End())
	counted := false
	switch l := w.loop.(type) {
	case *ast.ForStmt:
		body = l.Body
		if l.Cond != nil {
			w.expr(l.Cond, c)
			switch {
			case w.hasCAS(l.Cond) && w.freshCAS(l.Cond):
				w.casExit = &op{w.fe.line(l.Cond.Pos()), types.ExprString(l.Cond)}
			case w.waits(l.Cond) || w.hasCAS(l.Cond):
				w.condWait = &op{w.fe.line(l.Cond.Pos()), types.ExprString(l.Cond)}
			}
			counted = w.isCounted(l)
		}
		if l.Post != nil {
			w.stmt(l.Post, c)
		}
	case *ast.RangeStmt:
		body = l.Body
		if w.isChan(l.X) {
			w.blocking = append(w.blocking, op{w.fe.line(l.X.Pos()), "a range over channel " + types.ExprString(l.X)})
		}
		counted = true
	}
	w.list(body.List, c)

	span := fmt.Sprintf("lines %d–%d", start, end)
	switch {
	case len(w.timers) > 0:
		t := w.timers[0]
		return TimerPerIter, fmt.Sprintf("%s at line %d makes a timer every iteration", t.what, t.line), t.line
	case len(w.blocking) > 0:
		b := w.blocking[0]
		return Blocking, fmt.Sprintf("blocks in %s at line %d", b.what, b.line), b.line
	case len(w.spinSelects) > 0 && w.selfDrain == nil:
		s := w.spinSelects[0]
		return SelectDefault, s.what, s.line
	case len(w.sleeps) > 0 && !counted:
		s := w.sleeps[0]
		return SleepPoll, fmt.Sprintf("%s at line %d is the only wait, below the %v poll threshold", s.what, s.line, pollThreshold), s.line
	case len(w.varSleeps) > 0:
		s := w.varSleeps[0]
		return SleepUnknown, fmt.Sprintf("its only wait is %s at line %d: a zero or tiny value spins, a long one waits", s.what, s.line), s.line
	case w.selfDrain != nil:
		return RetryCAS, fmt.Sprintf("%s; the loop makes room itself, so it retries at most a few times", w.selfDrain.what), w.selfDrain.line
	}
	wait := w.waitOp()
	if len(w.yields) > 0 {
		y := w.yields[0]
		switch {
		case w.casExit != nil && w.waitGuard == nil && w.condWait == nil && w.casYields == len(w.yields):
			return RetryCAS, fmt.Sprintf("retries %s (line %d) until it wins, yielding with %s at line %d only after a failed attempt; it waits for no other goroutine", w.casExit.what, w.casExit.line, y.what, y.line), w.casExit.line
		case wait != nil:
			return YieldSpin, fmt.Sprintf("waits for another goroutine while %s (line %d), and its only wait is %s at line %d, which does not park", wait.what, wait.line, y.what, y.line), y.line
		case len(w.work) == 0 && !counted:
			return YieldSpin, fmt.Sprintf("its only wait is %s at line %d, which does not park, and the loop does nothing else", y.what, y.line), y.line
		}
		return Compute, fmt.Sprintf("yields with %s at line %d between units of work; it waits for nothing", y.what, y.line), 0
	}
	if w.casExit != nil && w.waitGuard == nil && w.condWait == nil {
		return RetryCAS, fmt.Sprintf("retries %s (line %d) until it wins; it waits for no other goroutine", w.casExit.what, w.casExit.line), w.casExit.line
	}
	if wait != nil && len(w.work) == 0 {
		return AtomicSpin, fmt.Sprintf("re-reads %s at line %d with nothing that blocks or yields", wait.what, wait.line), wait.line
	}
	if len(w.reads) == 0 && len(w.work) == 0 && w.exits == 0 && len(body.List) == 0 && !counted {
		if f, ok := w.loop.(*ast.ForStmt); ok && f.Cond == nil {
			return AtomicSpin, fmt.Sprintf("the loop at line %d is empty and never ends: it holds a core", start), start
		}
	}
	if len(w.work) > 0 {
		return Compute, fmt.Sprintf("no wait and no spin operation in %s; it computes (%s at line %d)", span, w.work[0].what, w.work[0].line), 0
	}
	return Compute, fmt.Sprintf("no wait and no spin operation in %s", span), 0
}

// waitOp is what the loop waits on (a condition on shared state), if any.
func (w *walker) waitOp() *op {
	for _, o := range []*op{w.waitGuard, w.condWait, w.exitShared} {
		if o != nil {
			return o
		}
	}
	return nil
}

// prepare records the labels, assignments and taints of the loop.
func (w *walker) prepare() {
	w.inner = map[string]bool{}
	w.assigned = map[any][]ast.Expr{}
	w.progress = map[any]bool{}
	w.tainted = map[any]bool{}
	w.condKeys = map[any]bool{}
	w.received = map[string]bool{}
	var root ast.Node = w.loop
	if f, ok := w.loop.(*ast.ForStmt); ok && f.Init != nil {
		// i := 0 in the init is a loop-carried variable like any other.
		w.assignments(f.Init)
		if f.Cond != nil {
			ast.Inspect(f.Cond, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					w.condKeys[w.key(id)] = true
				}
				return true
			})
		}
	} else if ok && f.Cond != nil {
		ast.Inspect(f.Cond, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				w.condKeys[w.key(id)] = true
			}
			return true
		})
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			w.inner[n.Label.Name] = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				w.received[types.ExprString(n.X)] = true
			}
		case *ast.CommClause:
			if a, ok := n.Comm.(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
				if u, ok := a.Rhs[0].(*ast.UnaryExpr); ok && u.Op == token.ARROW {
					w.received[types.ExprString(u.X)] = true
				}
			}
		}
		w.assignments(n)
		return true
	})
	// Taint to a fixed point: a variable assigned from shared state (or
	// from a variable so assigned) carries shared state.
	for changed := true; changed; {
		changed = false
		for k, rhs := range w.assigned {
			if w.tainted[k] {
				continue
			}
			for _, e := range rhs {
				if e != nil && w.readsShared(e) {
					w.tainted[k], changed = true, true
					break
				}
			}
		}
	}
	for k, rhs := range w.assigned {
		if w.tainted[k] {
			continue
		}
		for _, e := range rhs {
			_ = e
			w.progress[k] = true
		}
	}
}

// assignments records what n assigns. An expression nil stands for a
// value the loop computes itself (i++, a range variable).
func (w *walker) assignments(n ast.Node) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		for i, l := range n.Lhs {
			k := w.lhsKey(l)
			if k == nil {
				continue
			}
			var rhs ast.Expr
			switch {
			case len(n.Rhs) == len(n.Lhs):
				rhs = n.Rhs[i]
			case len(n.Rhs) == 1:
				rhs = n.Rhs[0]
			}
			if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
				// x += y: the loop moves x itself, whatever y is.
				w.assigned[k] = append(w.assigned[k], nil)
				continue
			}
			if n.Tok == token.ASSIGN && rhs != nil && len(n.Rhs) == len(n.Lhs) && w.selfStep(k, rhs) {
				// x = x[n:], p = p.next, n = n - k: the loop moves its own
				// value a step, whatever the step is computed from (a
				// pooled buffer's copy, an atomic): progress, as x -= y.
				w.assigned[k] = append(w.assigned[k], nil)
				continue
			}
			w.assigned[k] = append(w.assigned[k], rhs)
		}
	case *ast.IncDecStmt:
		if k := w.lhsKey(n.X); k != nil {
			w.assigned[k] = append(w.assigned[k], nil)
		}
	case *ast.RangeStmt:
		for _, e := range []ast.Expr{n.Key, n.Value} {
			if k := w.lhsKey(e); k != nil {
				w.assigned[k] = append(w.assigned[k], nil)
			}
		}
	case *ast.ValueSpec:
		for i, id := range n.Names {
			var rhs ast.Expr
			if i < len(n.Values) {
				rhs = n.Values[i]
			}
			w.assigned[w.key(id)] = append(w.assigned[w.key(id)], rhs)
		}
	}
}

// selfStep reports whether rhs computes the place k from its own value:
// a reslice of it (x[n:], x[:n]), a field of it (p.next), or arithmetic
// on it (n - k, n >> 1). Assigning such a value moves the place the way
// x -= y does; whatever the step reads, the loop does not re-read the
// place from elsewhere. Another assignment of the place from shared state
// (p = *head.Load()) still taints it.
func (w *walker) selfStep(k any, rhs ast.Expr) bool {
	switch e := ast.Unparen(rhs).(type) {
	case *ast.SliceExpr:
		return w.lhsKey(e.X) == k
	case *ast.SelectorExpr:
		return w.fieldOf(e) && w.lhsKey(e.X) == k
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM, token.SHL, token.SHR,
			token.AND, token.OR, token.XOR, token.AND_NOT:
			return w.lhsKey(e.X) == k || w.lhsKey(e.Y) == k
		}
	}
	return false
}

// key identifies a variable: its object when typed, else its name.
func (w *walker) key(id *ast.Ident) any {
	if o := w.fe.info.Defs[id]; o != nil {
		return o
	}
	if o := w.fe.info.Uses[id]; o != nil {
		return o
	}
	return "name:" + id.Name
}

// lhsKey identifies an assigned place: a variable, or a field path
// ("r.head").
func (w *walker) lhsKey(e ast.Expr) any {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if e.Name == "_" {
			return nil
		}
		return w.key(e)
	case *ast.SelectorExpr:
		return "sel:" + types.ExprString(e)
	case *ast.StarExpr:
		return w.lhsKey(e.X)
	}
	return nil
}

// inLoop reports whether p lies inside the loop.
func (w *walker) inLoop(p token.Pos) bool {
	return w.loop != nil && p >= w.loop.Pos() && p < w.loop.End()
}

// readsShared reports whether evaluating e reads state another goroutine
// may change: an atomic, a variable or field the loop does not compute
// itself, a helper's or an unknown function's result.
func (w *walker) readsShared(e ast.Expr) bool {
	shared := false
	ast.Inspect(e, func(n ast.Node) bool {
		if shared {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch k, _ := w.callKind(n); k {
			case callRead, callCAS, callWork, callHelper:
				shared = true
			}
			return !shared
		case *ast.SelectorExpr:
			if w.isPackage(n.X) {
				return false // pkg.Name: a package-level value, checked by Uses below
			}
			k := "sel:" + types.ExprString(n)
			if w.tainted[k] {
				shared = true
			} else if _, ok := w.assigned[k]; !ok && w.fieldOf(n) {
				if root := rootIdent(n); root != nil && (!w.declaredInLoop(root) || w.tainted[w.key(root)]) {
					shared = true
				}
			}
			return !shared
		case *ast.Ident:
			if w.tainted[w.key(n)] {
				shared = true
				return false
			}
			if w.isVar(n) && !w.declaredInLoop(n) {
				if _, ok := w.assigned[w.key(n)]; !ok {
					shared = true
				}
			}
		}
		return true
	})
	return shared
}

// progressed reports whether e reads a variable the loop itself moves
// towards its end (a counter, a value it computes): then the loop is
// working its way out, not waiting.
func (w *walker) progressed(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectorExpr:
			if w.progress["sel:"+types.ExprString(n)] {
				found = true
			}
		case *ast.Ident:
			if w.progress[w.key(n)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// waits reports whether cond waits on shared state the loop does not move.
func (w *walker) waits(cond ast.Expr) bool {
	return w.readsShared(cond) && !w.progressed(cond)
}

// isCounted reports a for loop whose condition the loop moves itself.
func (w *walker) isCounted(f *ast.ForStmt) bool {
	return f.Cond != nil && w.progressed(f.Cond) && !w.readsSharedCall(f.Cond)
}

// readsSharedCall reports a call that reads shared state in e.
func (w *walker) readsSharedCall(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			switch k, _ := w.callKind(c); k {
			case callRead, callCAS, callHelper:
				found = true
			}
		}
		return !found
	})
	return found
}

func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// declaredInLoop reports whether id's variable is declared inside the loop.
func (w *walker) declaredInLoop(id *ast.Ident) bool {
	if o := w.fe.info.Uses[id]; o != nil {
		return w.inLoop(o.Pos())
	}
	if o := w.fe.info.Defs[id]; o != nil {
		return w.inLoop(o.Pos())
	}
	// Untyped: declared in the loop if the loop defines that name.
	found := false
	if w.loop != nil {
		ast.Inspect(w.loop, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
				for _, l := range a.Lhs {
					if l, ok := l.(*ast.Ident); ok && l.Name == id.Name {
						found = true
					}
				}
			}
			return !found
		})
	}
	return found
}

// isVar reports whether id names a variable (not a constant, type,
// function, package, nil, true or false).
func (w *walker) isVar(id *ast.Ident) bool {
	o := w.fe.info.Uses[id]
	if o == nil {
		o = w.fe.info.Defs[id]
	}
	if o != nil {
		_, ok := o.(*types.Var)
		return ok
	}
	switch id.Name {
	case "nil", "true", "false", "iota", "_":
		return false
	}
	return !w.fe.isImportName(id.Name)
}

// fieldOf reports whether sel reads a field (not a method value or a
// package member).
func (w *walker) fieldOf(sel *ast.SelectorExpr) bool {
	if s, ok := w.fe.info.Selections[sel]; ok {
		return s.Kind() == types.FieldVal
	}
	return !w.isPackage(sel.X)
}

func (w *walker) isPackage(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	if o := w.fe.info.Uses[id]; o != nil {
		_, ok := o.(*types.PkgName)
		return ok
	}
	return w.fe.isImportName(id.Name)
}

// isChan reports whether e has a channel type.
func (w *walker) isChan(e ast.Expr) bool {
	if t := w.fe.info.TypeOf(e); t != nil {
		_, ok := t.Underlying().(*types.Chan)
		return ok
	}
	return false
}

// hasCAS reports a compare-and-swap call in e.
func (w *walker) hasCAS(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if k, _ := w.callKind(c); k == callCAS {
				found = true
			}
		}
		return !found
	})
	return found
}

// list walks a statement list; a branch that leaves when a CAS wins puts
// the statements after it on the CAS-failed path.
func (w *walker) list(stmts []ast.Stmt, c ctx) {
	for _, s := range stmts {
		w.stmt(s, c)
		if is, ok := s.(*ast.IfStmt); ok && w.hasCAS(is.Cond) && w.leaves(is.Body.List, c.inner) {
			c.afterCAS = true
		}
	}
}

func (w *walker) record(list *[]op, c ctx, p token.Pos, what string) {
	if !c.idle {
		return
	}
	*list = append(*list, op{w.fe.line(p), what})
}

// stmt walks one statement.
func (w *walker) stmt(s ast.Stmt, c ctx) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		w.list(s.List, c)
	case *ast.LabeledStmt:
		w.stmt(s.Stmt, c)
	case *ast.ExprStmt:
		w.expr(s.X, c)
	case *ast.SendStmt:
		w.expr(s.Value, c)
		w.record(&w.blocking, c, s.Pos(), "a send on "+types.ExprString(s.Chan))
	case *ast.AssignStmt:
		for _, e := range s.Rhs {
			w.expr(e, c)
		}
		for _, e := range s.Lhs {
			if ix, ok := e.(*ast.IndexExpr); ok {
				w.expr(ix.Index, c)
			}
		}
	case *ast.IncDecStmt:
	case *ast.DeclStmt:
		ast.Inspect(s, func(n ast.Node) bool {
			if v, ok := n.(*ast.ValueSpec); ok {
				for _, e := range v.Values {
					w.expr(e, c)
				}
				return false
			}
			return true
		})
	case *ast.GoStmt:
		for _, a := range s.Call.Args {
			w.expr(a, c)
		}
		w.record(&w.work, c, s.Pos(), "starts a goroutine")
	case *ast.DeferStmt, *ast.BranchStmt, *ast.EmptyStmt:
	case *ast.ReturnStmt:
		// The loop ends here: what it evaluates runs once.
	case *ast.IfStmt:
		w.ifStmt(s, c)
	case *ast.ForStmt:
		ic := c
		ic.inner = true
		w.record(&w.work, c, s.Pos(), "a nested loop")
		if s.Init != nil {
			w.stmt(s.Init, ic)
		}
		if s.Cond != nil {
			w.expr(s.Cond, ic)
		}
		if s.Post != nil {
			w.stmt(s.Post, ic)
		}
		w.list(s.Body.List, ic)
	case *ast.RangeStmt:
		ic := c
		ic.inner = true
		w.expr(s.X, c)
		if w.isChan(s.X) {
			w.record(&w.blocking, c, s.X.Pos(), "a range over channel "+types.ExprString(s.X))
		}
		w.record(&w.work, c, s.Pos(), "a nested loop")
		w.list(s.Body.List, ic)
	case *ast.SwitchStmt:
		w.switchBody(s.Init, s.Tag, s.Body, c)
	case *ast.TypeSwitchStmt:
		w.switchBody(s.Init, nil, s.Body, c)
	case *ast.SelectStmt:
		w.selectStmt(s, c)
	}
}

func (w *walker) switchBody(init ast.Stmt, tag ast.Expr, body *ast.BlockStmt, c ctx) {
	if init != nil {
		w.stmt(init, c)
	}
	if tag != nil {
		w.expr(tag, c)
	}
	ic := c
	ic.inner = true
	for _, cl := range body.List {
		cc, ok := cl.(*ast.CaseClause)
		if !ok {
			continue
		}
		for _, e := range cc.List {
			w.expr(e, c)
		}
		if w.leaves(cc.Body, true) {
			w.exits++
			continue
		}
		w.list(cc.Body, ic)
	}
}

func (w *walker) ifStmt(s *ast.IfStmt, c ctx) {
	if s.Init != nil {
		w.stmt(s.Init, c)
	}
	w.expr(s.Cond, c)
	// A CAS that expects a value read this iteration retries; one that
	// expects a fixed value (CompareAndSwap(0, 1)) waits for another
	// goroutine to put that value back: a spin lock, not a retry.
	cas := w.hasCAS(s.Cond) && w.freshCAS(s.Cond)
	line := w.fe.line(s.Cond.Pos())
	if w.leaves(s.Body.List, c.inner) {
		w.exits++
		if c.idle && w.loop != nil {
			switch {
			case cas && w.casExit == nil:
				w.casExit = &op{line, types.ExprString(s.Cond)}
			case !cas && w.exitShared == nil && (w.waits(s.Cond) || w.hasCAS(s.Cond)):
				w.exitShared = &op{line, types.ExprString(s.Cond)}
			}
		}
		if s.Else != nil {
			ec := c
			ec.afterCAS = c.afterCAS || cas
			w.stmt(s.Else, ec)
		}
		return
	}
	bc := c
	bc.afterCAS = c.afterCAS || cas
	before := len(w.yields) + len(w.sleeps)
	w.list(s.Body.List, bc)
	waitsHere := len(w.yields)+len(w.sleeps) > before || w.endsInContinue(s.Body.List)
	if c.idle && w.loop != nil && !cas && waitsHere && w.waitGuard == nil && (w.waits(s.Cond) || w.hasCAS(s.Cond)) {
		w.waitGuard = &op{line, types.ExprString(s.Cond)}
	}
	if s.Else != nil {
		w.stmt(s.Else, c)
	}
}

// endsInContinue reports a branch that starts the loop's next iteration.
func (w *walker) endsInContinue(list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	b, ok := list[len(list)-1].(*ast.BranchStmt)
	return ok && b.Tok == token.CONTINUE && (b.Label == nil || b.Label.Name == w.label)
}

// selectStmt walks a select: with a default it polls; without, it blocks.
func (w *walker) selectStmt(s *ast.SelectStmt, c ctx) {
	var def *ast.CommClause
	var cases []string
	ic := c
	ic.inner = true
	for _, cl := range s.Body.List {
		cc := cl.(*ast.CommClause)
		if cc.Comm == nil {
			def = cc
			continue
		}
		ch, send := commChan(cc.Comm)
		if ch != nil {
			if send {
				cases = append(cases, "send on "+types.ExprString(ch))
			} else {
				cases = append(cases, types.ExprString(ch))
			}
		}
	}
	line := w.fe.line(s.Pos())
	if def != nil {
		// A poll: the cases' bodies run only when something happened.
		for _, cl := range s.Body.List {
			cc := cl.(*ast.CommClause)
			if cc == def {
				continue
			}
			ch, send := commChan(cc.Comm)
			if ch != nil {
				w.timerExpr(ch, c, true)
				if send && w.received[types.ExprString(ch)] && w.selfDrain == nil {
					w.selfDrain = &op{line, fmt.Sprintf("select at line %d tries to send on %s and the loop receives from it when full", line, types.ExprString(ch))}
				}
			}
			if w.leaves(cc.Body, true) {
				w.exits++
			}
		}
		if w.leaves(def.Body, true) {
			w.exits++ // try once, then leave: no spin
			return
		}
		before := len(w.blocking) + len(w.sleeps) + len(w.yields) + len(w.timers)
		w.list(def.Body, ic)
		if len(w.blocking)+len(w.sleeps)+len(w.yields)+len(w.timers) > before {
			return // the default waits: it is the loop's wait
		}
		what := fmt.Sprintf("select at line %d has a default that neither blocks nor leaves the loop", line)
		if len(cases) > 0 {
			what += ", and cases on " + strings.Join(cases, ", ")
		}
		w.record(&w.spinSelects, c, s.Pos(), what)
		return
	}
	if len(s.Body.List) == 0 {
		w.record(&w.blocking, c, s.Pos(), "select {} (forever)")
		return
	}
	terminal := true
	for _, cl := range s.Body.List {
		if !w.leaves(cl.(*ast.CommClause).Body, true) {
			terminal = false
		}
	}
	immediate := false
	for _, cl := range s.Body.List {
		ch, _ := commChan(cl.(*ast.CommClause).Comm)
		if ch != nil && w.timerExpr(ch, c, !terminal) {
			immediate = true
		}
	}
	if !immediate {
		w.record(&w.blocking, c, s.Pos(), "a select on "+strings.Join(cases, ", "))
	}
	if terminal {
		w.exits++
		return
	}
	for _, cl := range s.Body.List {
		cc := cl.(*ast.CommClause)
		if w.leaves(cc.Body, true) {
			w.exits++
			continue
		}
		w.list(cc.Body, ic)
	}
}

// commChan is the channel of a select case and whether it sends.
func commChan(s ast.Stmt) (ast.Expr, bool) {
	switch s := s.(type) {
	case *ast.SendStmt:
		return s.Chan, true
	case *ast.ExprStmt:
		if u, ok := ast.Unparen(s.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			return u.X, false
		}
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			if u, ok := ast.Unparen(s.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				return u.X, false
			}
		}
	}
	return nil, false
}

// timerExpr records a timer made by a channel expression of a select or a
// receive (time.After(d), time.NewTimer(d).C, time.Tick(d)): a timer per
// iteration when perIter, a yield when it fires at once. It reports
// whether the channel is ready at once. Other channel expressions are
// walked as expressions.
func (w *walker) timerExpr(ch ast.Expr, c ctx, perIter bool) bool {
	call := timerCall(ch)
	if call == nil {
		w.expr(ch, c)
		return false
	}
	for _, a := range call.Args {
		w.expr(a, c)
	}
	name := w.fe.callName(call)
	if len(call.Args) == 1 {
		if d, ok := w.duration(call.Args[0]); ok && d <= 0 && name != "time.Tick" {
			w.record(&w.yields, c, call.Pos(), fmt.Sprintf("%s(%s)", name, argString(call)))
			return true
		}
	}
	if perIter {
		w.record(&w.timers, c, call.Pos(), fmt.Sprintf("%s(%s)", name, argString(call)))
	}
	return false
}

// timerCall is the time.After/NewTimer/Tick call that makes ch, if any.
func timerCall(ch ast.Expr) *ast.CallExpr {
	ch = ast.Unparen(ch)
	if sel, ok := ch.(*ast.SelectorExpr); ok && sel.Sel.Name == "C" {
		ch = ast.Unparen(sel.X) // time.NewTimer(d).C
	}
	call, ok := ch.(*ast.CallExpr)
	if !ok {
		return nil
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		switch sel.Sel.Name {
		case "After", "NewTimer", "Tick", "NewTicker":
			if id, ok := sel.X.(*ast.Ident); ok && id.Name != "" {
				return call
			}
		}
	}
	return nil
}

func argString(call *ast.CallExpr) string {
	var parts []string
	for _, a := range call.Args {
		parts = append(parts, types.ExprString(a))
	}
	return strings.Join(parts, ", ")
}

// expr walks an expression evaluated on the path c.
func (w *walker) expr(e ast.Expr, c ctx) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not here
		case *ast.UnaryExpr:
			if n.Op != token.ARROW {
				return true
			}
			if call := timerCall(n.X); call != nil && w.fe.isTimePkgCall(call) {
				w.timerExpr(n.X, c, true)
				return false
			}
			w.record(&w.blocking, c, n.Pos(), "a receive from "+types.ExprString(n.X))
		case *ast.CallExpr:
			w.call(n, c)
		}
		return true
	})
}

// call records what a call does on the path c.
func (w *walker) call(call *ast.CallExpr, c ctx) {
	k, what := w.callKind(call)
	switch k {
	case callBlock:
		w.record(&w.blocking, c, call.Pos(), what)
	case callYield:
		w.record(&w.yields, c, call.Pos(), what)
		if c.idle && c.afterCAS {
			w.casYields++
		}
	case callSleep:
		w.record(&w.sleeps, c, call.Pos(), what)
	case callSleepVar:
		w.record(&w.varSleeps, c, call.Pos(), what)
	case callTimer:
		if d, ok := w.duration(firstArg(call)); ok && d <= 0 && !strings.HasSuffix(what, "Tick") {
			w.record(&w.yields, c, call.Pos(), fmt.Sprintf("%s(%s)", w.fe.callName(call), argString(call)))
		} else {
			w.record(&w.timers, c, call.Pos(), fmt.Sprintf("%s(%s)", w.fe.callName(call), argString(call)))
		}
	case callRead, callCAS:
		w.record(&w.reads, c, call.Pos(), what)
	case callWork:
		w.record(&w.work, c, call.Pos(), what)
	case callHelper:
		// A helper of the package that only reads (or polls without
		// blocking): like an atomic load.
		w.record(&w.reads, c, call.Pos(), what)
	}
}

func firstArg(call *ast.CallExpr) ast.Expr {
	if len(call.Args) == 0 {
		return nil
	}
	return call.Args[0]
}

// leaves reports whether running list ends the loop: a return, a break
// or goto out of it, a continue of an outer loop, a panic or exit, or
// setting a variable the loop's condition reads.
func (w *walker) leaves(list []ast.Stmt, inner bool) bool {
	if len(list) == 0 || w.loop == nil {
		return false
	}
	for _, s := range list {
		if w.leavesStmt(s, inner) {
			return true
		}
	}
	return false
}

func (w *walker) leavesStmt(s ast.Stmt, inner bool) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		switch s.Tok {
		case token.BREAK:
			if s.Label == nil {
				return !inner && w.loop != nil
			}
			return s.Label.Name == w.label || !w.inner[s.Label.Name]
		case token.CONTINUE:
			return s.Label != nil && s.Label.Name != w.label && !w.inner[s.Label.Name]
		case token.GOTO:
			return !w.inner[s.Label.Name]
		}
	case *ast.BlockStmt:
		return w.leaves(s.List, inner)
	case *ast.LabeledStmt:
		return w.leavesStmt(s.Stmt, inner)
	case *ast.IfStmt:
		return s.Else != nil && w.leaves(s.Body.List, inner) && w.leavesStmt(s.Else, inner)
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			switch w.fe.callName(call) {
			case "panic", "os.Exit", "runtime.Goexit", "log.Fatal", "log.Fatalf", "log.Fatalln", "log.Panic", "log.Panicf", "log.Panicln":
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Fatal") {
				return true // t.Fatal, b.Fatalf, logger.Fatal
			}
		}
	case *ast.AssignStmt:
		// for !done { ... done = true }: a flag the condition reads.
		if len(w.condKeys) > 0 && len(s.Lhs) == len(s.Rhs) {
			for i, l := range s.Lhs {
				id, ok := l.(*ast.Ident)
				v, isBool := s.Rhs[i].(*ast.Ident)
				if ok && isBool && (v.Name == "true" || v.Name == "false") && w.condKeys[w.key(id)] {
					return true
				}
			}
		}
	}
	return false
}

// freshCAS reports whether the compare-and-swap calls in e expect a value
// read in this iteration (a load, or a variable the loop assigns from
// shared state), as a retry loop does.
func (w *walker) freshCAS(e ast.Expr) bool {
	fresh := true
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if k, _ := w.callKind(call); k != callCAS {
			return true
		}
		// Methods take (old, new); sync/atomic functions (addr, old, new).
		i := 0
		if len(call.Args) == 3 {
			i = 1
		}
		if i >= len(call.Args) || !w.readThisIteration(call.Args[i]) {
			fresh = false
		}
		return false
	})
	return fresh
}

// readThisIteration reports whether e holds a value the loop read from
// shared state in this iteration.
func (w *walker) readThisIteration(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if k, _ := w.callKind(n); k == callRead {
				found = true
			}
		case *ast.SelectorExpr:
			if w.tainted["sel:"+types.ExprString(n)] {
				found = true
			}
		case *ast.Ident:
			if w.tainted[w.key(n)] {
				found = true
			}
		}
		return !found
	})
	return found
}
