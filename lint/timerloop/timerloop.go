package timerloop

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Analyzer reports rule SD104, timer-per-iteration.
var Analyzer = &analysis.Analyzer{
	Name:       "timerloop",
	Doc:        analysisutil.RuleDoc(rule),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD104"

// What a timer made and dropped per iteration costs when the runtime
// collects it (time.After(1s), time.NewTimer(1s).C or time.Tick(1s) in a
// select that another ready case wins, go test -bench with -benchmem, Go
// 1.26.8 linux/amd64, module go line 1.23): 3 allocations and 248 B per
// iteration, about 150 ns more than a Reset of one timer, which allocates
// nothing. Under a go line below 1.23 the same loop makes the same 3
// allocations (310-391 B per iteration measured, the timer heap growing)
// and keeps every dropped timer on the timer heap until it fires: that,
// not the allocation, is the cost reported then.
const (
	timerAllocs = 3
	timerBytes  = 248
)

// collectedFrom is the first go line under which a timer's channel is
// synchronous: the timer sits in a P's heap only while a goroutine is
// blocked on its channel (runtime.(*timer).needsAdd), and an unreferenced
// timer or ticker is garbage like any value. Before it (GODEBUG
// asynctimerchan=1, the default of older go lines) a dropped timer stays
// in the heap until it fires, and a ticker of time.Tick forever.
const collectedFrom = "go1.23"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	if !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	c := &checker{pass: pass, res: res, helpers: timerHelpers(pass), parents: map[ast.Stmt]map[ast.Node]ast.Node{}}
	c.goVersion = analysisutil.ModuleGoVersion(pass)
	c.collected = c.goVersion != "" && version.Compare(c.goVersion, collectedFrom) >= 0
	analysisutil.Visit(pass, func(n *ast.CallExpr, stack []ast.Node) { c.check(n, stack) })
	return res, nil
}

type checker struct {
	pass      *analysis.Pass
	res       *evidence.Result
	helpers   map[*types.Func]*helper
	parents   map[ast.Stmt]map[ast.Node]ast.Node // per loop, built on demand
	goVersion string                             // the module's go line, "go1.24"; "" unknown
	collected bool                               // goVersion >= collectedFrom
}

// dropped reports a timer made per iteration and dropped (made is what
// makes it: "time.After", "randomTimeout", "time.Tick"). Its severity and
// the end of its message follow the module's go line: from go 1.23 the
// runtime collects a dropped timer or ticker, so the cost is an
// allocation per iteration (info); before, each dropped timer stays on
// the timer heap until it fires and each ticker of time.Tick forever
// (warning), and an unknown go line is taken to be old.
func (c *checker) dropped(call *ast.CallExpr, ticker bool, what, fix string, d time.Duration, known bool, ev []finding.Evidence) {
	ev = append(ev, finding.Evidence{Label: "allocations per iteration", Value: timerAllocs})
	lang := strings.TrimPrefix(c.goVersion, "go")
	if c.goVersion != "" {
		minor := 0
		fmt.Sscanf(strings.TrimPrefix(lang, "1."), "%d", &minor)
		ev = append(ev, finding.Evidence{Label: "module go line, minor version", Value: float64(minor)})
	}
	until := "until it fires"
	if known {
		until = fmt.Sprintf("until it fires (%v)", d)
	}
	var cost string
	sev := finding.Warning
	switch {
	case c.collected:
		sev = finding.Info
		ev = append(ev, finding.Evidence{Label: "bytes per iteration", Value: timerBytes, Unit: "B"})
		cost = fmt.Sprintf("%d allocations (%d B) per iteration, collected under the module's go %s line", timerAllocs, timerBytes, lang)
	case ticker && c.goVersion != "":
		cost = fmt.Sprintf("under the module's go %s line each ticker runs forever and is never collected", lang)
	case ticker:
		cost = "each ticker runs forever unless the main module's go line is 1.23 or later"
	case c.goVersion != "":
		cost = fmt.Sprintf("under the module's go %s line each one stays on the timer heap %s", lang, until)
	default:
		cost = fmt.Sprintf("each one stays on the timer heap %s unless the main module's go line is 1.23 or later", until)
	}
	analysisutil.ReportParts(c.pass, c.res, rule, sev, true, call, analysisutil.Parts{What: what, Because: cost, Notes: []string{fix}}, ev)
}

// helper is a function of the package that returns a new timer's channel
// on every call (func randomTimeout(d) <-chan time.Time { return
// time.After(d + jitter()) }): a call of it in a loop makes a timer per
// iteration just as time.After does.
type helper struct {
	inner *ast.CallExpr // the time.After or time.NewTimer call
	ctor  string        // "After" or "NewTimer"
}

// timerHelpers finds the package's functions whose every return returns
// time.After(...), time.NewTimer(...).C or nil, one at least a timer's
// channel.
func timerHelpers(pass *analysis.Pass) map[*types.Func]*helper {
	helpers := map[*types.Func]*helper{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.Results == nil || fd.Type.Results.NumFields() != 1 {
				continue
			}
			fn, _ := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			var h *helper
			all := true
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.ReturnStmt:
					if len(n.Results) != 1 {
						all = false
						break
					}
					if isNil(pass.TypesInfo, n.Results[0]) {
						break // no timer, and a nil channel never fires
					}
					inner, ctor := timerChanExpr(pass.TypesInfo, n.Results[0])
					if inner == nil {
						all = false
					} else if h == nil {
						h = &helper{inner: inner, ctor: ctor}
					}
				}
				return all
			})
			if all && h != nil {
				helpers[fn] = h
			}
		}
	}
	return helpers
}

// isNil reports whether e is the predeclared nil.
func isNil(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := info.Uses[id].(*types.Nil)
	return isNil
}

// timerChanExpr reports whether e is time.After(d) or time.NewTimer(d).C,
// an expression that makes a new timer and yields its channel, and
// returns the call of time and the constructor's name.
func timerChanExpr(info *types.Info, e ast.Expr) (*ast.CallExpr, string) {
	e = ast.Unparen(e)
	if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == "C" {
		if call, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok && analysisutil.IsFunc(analysisutil.Callee(info, call), "time", "NewTimer") {
			return call, "NewTimer"
		}
		return nil, ""
	}
	if call, ok := e.(*ast.CallExpr); ok && analysisutil.IsFunc(analysisutil.Callee(info, call), "time", "After") {
		return call, "After"
	}
	return nil, ""
}

func (c *checker) check(call *ast.CallExpr, stack []ast.Node) {
	info := c.pass.TypesInfo
	fn := analysisutil.Callee(info, call)
	if h := c.helpers[fn]; h != nil {
		c.checkHelper(call, fn, h, stack)
		return
	}
	if !analysisutil.IsFunc(fn, "time", "After", "NewTimer", "Tick", "Sleep") || len(call.Args) != 1 {
		return
	}
	name := fn.Name()
	d, isConst := astutil.ConstDuration(info, call.Args[0])
	if isConst && d <= 0 && (name == "Sleep" || name == "After") {
		c.checkZero(call, name, stack)
		return
	}
	loop, ok := astutil.EnclosingLoop(info, stack)
	if !ok {
		return
	}
	ev := []finding.Evidence{{Label: "loop at line", Value: analysisutil.Line(c.pass, loop.Stmt.Pos())}}
	if isConst {
		ev = append(ev, finding.Evidence{Label: "duration", Value: float64(d) / float64(time.Millisecond), Unit: "ms"})
	}
	if name == "Tick" {
		c.dropped(call, true, "time.Tick in a loop starts a new ticker every iteration, which cannot be stopped",
			"make one time.Ticker before the loop and defer its Stop", d, isConst, ev)
		return
	}
	if name == "Sleep" || !invariant(info, call.Args[0], loop) || !hot(info, stack) {
		return // a duration computed per iteration (backoff, jitter), or a loop bounded by a count or a collection
	}
	// The timer's channel: the call itself (time.After) or its C field
	// (time.NewTimer(d).C), received at once or through a variable.
	var chanExpr ast.Expr = call
	parent := stack[len(stack)-2]
	if name == "NewTimer" {
		sel, ok := parent.(*ast.SelectorExpr)
		switch {
		case ok && sel.Sel.Name == "C":
			chanExpr, parent = sel, stack[len(stack)-3]
		default:
			// t := time.NewTimer(d), then case <-t.C.
			if sel := c.receivedVia(call, parent, loop, true); sel != nil {
				ev = append(ev, finding.Evidence{Label: "select at line", Value: analysisutil.Line(c.pass, sel.Pos())})
				c.dropped(call, false, "time.NewTimer in a loop makes a new timer every iteration, dropped when another case wins",
					"make one before the loop and Reset it", d, isConst, ev)
			} else if sel := c.rearmed(call, parent, stack, loop, true); sel != nil {
				ev = append(ev, finding.Evidence{Label: "select at line", Value: analysisutil.Line(c.pass, sel.Pos())})
				c.dropped(call, false, "time.NewTimer in a loop, assigned in a branch, makes a new timer each time the branch runs and drops the pending one",
					"make one before the loop and Reset it", d, isConst, ev)
			}
			return
		}
	}
	what := "time.After"
	if name == "NewTimer" {
		what = "time.NewTimer"
	}
	if sel := c.receivedAt(chanExpr, parent, stack, loop); sel != nil {
		ev = append(ev, finding.Evidence{Label: "select at line", Value: analysisutil.Line(c.pass, sel.Pos())})
		c.dropped(call, false, what+" in a loop makes a new timer every iteration, dropped when another case wins",
			"make one time.Timer before the loop and Reset it", d, isConst, ev)
	} else if sel := c.rearmed(chanExpr, parent, stack, loop, false); sel != nil {
		ev = append(ev, finding.Evidence{Label: "select at line", Value: analysisutil.Line(c.pass, sel.Pos())})
		c.dropped(call, false, what+" in a loop, assigned in a branch, makes a new timer each time the branch runs and drops the pending one",
			"make one time.Timer before the loop and Reset it", d, isConst, ev)
	}
}

// rearmed handles a timer channel (or, viaC, a timer) assigned to a local
// variable in a branch of the loop — a select case's body, an if — rather
// than by a statement of its body (receivedVia), and received from that
// variable in a select of the loop on a later pass (idle = time.After(d)
// on every message, case <-idle: flush). Each run of the branch makes a
// new timer and drops the one still pending. It is silent when the
// assignment cannot drop a pending timer: it is in the case that receives
// from the variable (that timer fired), or under an if whose condition
// reads the variable (if idle == nil { idle = time.After(d) } arms one
// timer at a time); when the loop stops the timer it replaces (a Stop on
// the variable); and, as for the other forms, when the select's other
// cases all leave the loop.
func (c *checker) rearmed(x ast.Expr, parent ast.Node, stack []ast.Node, loop astutil.Loop, viaC bool) *ast.SelectStmt {
	info := c.pass.TypesInfo
	as, ok := parent.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != x ||
		slices.Contains(loop.Body().List, ast.Stmt(as)) {
		return nil
	}
	v := analysisutil.Target(info, as.Lhs[0])
	if v == nil || !analysisutil.Local(v) {
		return nil
	}
	refersV := func(n ast.Node) bool {
		return astutil.Uses(info, n, func(o types.Object) bool { return o == v })
	}
	for _, n := range stack[loop.Index+1:] {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return nil // in a closure, or an inner loop: not followed here
		case *ast.IfStmt:
			if refersV(n.Cond) || n.Init != nil && refersV(n.Init) {
				return nil // armed only when none is pending
			}
		case *ast.CommClause:
			if n.Comm != nil && receivesFrom(info, n.Comm, v, viaC) {
				return nil // the timer it replaces has fired
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && refersV(n.Tag) {
				return nil
			}
		}
	}
	stopped := false
	ast.Inspect(loop.Body(), func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Stop" && refersV(sel.X) {
				stopped = true
			}
		}
		return !stopped
	})
	if stopped {
		return nil
	}
	return c.selectReceivingIn(loop, v, viaC)
}

// checkHelper reports a call of a timer helper of the package in a loop,
// like a time.After there.
func (c *checker) checkHelper(call *ast.CallExpr, fn *types.Func, h *helper, stack []ast.Node) {
	info := c.pass.TypesInfo
	loop, ok := astutil.EnclosingLoop(info, stack)
	if !ok || !hot(info, stack) {
		return
	}
	for _, a := range call.Args {
		if !invariant(info, a, loop) {
			return
		}
	}
	sel := c.receivedAt(call, stack[len(stack)-2], stack, loop)
	if sel == nil {
		return
	}
	ev := []finding.Evidence{
		{Label: "loop at line", Value: analysisutil.Line(c.pass, loop.Stmt.Pos())},
		{Label: "select at line", Value: analysisutil.Line(c.pass, sel.Pos())},
		{Label: "timer made at line", Value: analysisutil.Line(c.pass, h.inner.Pos())},
	}
	var d time.Duration
	known := false
	if len(h.inner.Args) == 1 {
		if d, known = astutil.ConstDuration(info, h.inner.Args[0]); known {
			ev = append(ev, finding.Evidence{Label: "duration", Value: float64(d) / float64(time.Millisecond), Unit: "ms"})
		}
	}
	// The helper's timer, at "line 14" in this file or "util.go:34" in
	// another of the package.
	at := c.pass.Fset.Position(h.inner.Pos())
	where := fmt.Sprintf("line %d", at.Line)
	if at.Filename != c.pass.Fset.Position(call.Pos()).Filename {
		where = fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
	}
	c.dropped(call, false,
		fmt.Sprintf("%s makes a new timer (time.%s at %s) every iteration, dropped when another case wins",
			fn.Name(), h.ctor, where),
		"make one time.Timer before the loop and Reset it", d, known, ev)
}

// checkZero reports time.Sleep(0) and <-time.After(0) used as a yield, in
// a loop or not (a yield helper is called from one). A time.After(0)
// assigned to a variable is not received here: heartbeat =
// time.After(0) deliberately makes a blocking select's next round fire at
// once, and is silent. A zero sleep in a select's default inside a for
// loop is left to busyselect (SD101), which reports the spinning select.
func (c *checker) checkZero(call *ast.CallExpr, name string, stack []ast.Node) {
	parent := stack[len(stack)-2]
	if name == "After" {
		if u, ok := parent.(*ast.UnaryExpr); !ok || u.Op != token.ARROW {
			return
		}
	}
	ev := []finding.Evidence{{Label: "duration", Value: 0, Unit: "ms"}}
	if d, ok := astutil.ConstDuration(c.pass.TypesInfo, call.Args[0]); ok {
		ev[0].Value = float64(d) / float64(time.Millisecond)
	}
	if loop, ok := astutil.EnclosingLoop(c.pass.TypesInfo, stack); ok {
		if f, isFor := loop.Stmt.(*ast.ForStmt); isFor && !astutil.IsCounted(c.pass.TypesInfo, f) && inDefault(stack[loop.Index:]) {
			return // SD101 reports the select
		}
		ev = append(ev, finding.Evidence{Label: "loop at line", Value: analysisutil.Line(c.pass, loop.Stmt.Pos())})
	}
	if name == "After" {
		analysisutil.Report(c.pass, c.res, rule, call,
			"time.After(0) is not a yield: the expired timer fires inside select without parking; block on what you wait for", ev)
		return
	}
	analysisutil.Report(c.pass, c.res, rule, call,
		"time.Sleep(0) returns at once and does not yield; block on what you wait for, or call runtime.Gosched", ev,
		goschedFix(c.pass, call, stack)...)
}

// hot reports whether a loop of the function around the last node of
// stack is unbounded — for {}, for cond {} that is not a counted loop, a
// range over a channel or a function — and so runs per message, per
// request or per event. A timer made per iteration of a loop bounded by a
// collection or a count (ranging over a config's entries at reload,
// retrying five times) makes at most that many timers per call, and is
// not reported: how often the function runs is not known here.
func hot(info *types.Info, stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch s := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.ForStmt:
			if stack[i+1] != s.Init && !counts(info, s) {
				return true
			}
		case *ast.RangeStmt:
			if stack[i+1] != s.Body {
				continue
			}
			t := info.TypeOf(s.X)
			if t == nil {
				continue
			}
			switch t.Underlying().(type) {
			case *types.Chan, *types.Signature:
				return true
			}
		}
	}
	return false
}

// counts reports whether a for loop counts its way to the end: a counted
// loop (for i := 0; i < n; i++), or one whose condition compares a
// variable that its body steps with ++, --, += or -= (for received := 0;
// received < sent; { ... received++ }), as a wait for a known number of
// replies does.
func counts(info *types.Info, f *ast.ForStmt) bool {
	if astutil.IsCounted(info, f) {
		return true
	}
	cond, ok := ast.Unparen(f.Cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch cond.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
	default:
		return false
	}
	stepped := map[types.Object]bool{}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IncDecStmt:
			if obj := analysisutil.Target(info, n.X); obj != nil {
				stepped[obj] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				for _, l := range n.Lhs {
					if obj := analysisutil.Target(info, l); obj != nil {
						stepped[obj] = true
					}
				}
			}
		}
		return true
	})
	for _, side := range []ast.Expr{cond.X, cond.Y} {
		if obj := analysisutil.Target(info, side); obj != nil && stepped[obj] {
			return true
		}
	}
	return false
}

// receivedAt returns the select in loop that receives from the timer
// channel ch (whose parent node is parent): directly in a case (case
// <-time.After(d):), or through a variable assigned ch by a statement of
// the loop's body (timeout := time.After(d); select { ... case
// <-timeout: }), when another case of that select may let the loop go on.
func (c *checker) receivedAt(ch ast.Expr, parent ast.Node, stack []ast.Node, loop astutil.Loop) *ast.SelectStmt {
	if u, ok := parent.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		sel := selectReceiving(stack, u, ch)
		if sel != nil && mayContinue(c.pass.TypesInfo, sel, loop, u, c.parentsOf(loop)) {
			return sel
		}
		return nil
	}
	return c.receivedVia(ch, parent, loop, false)
}

// receivedVia handles a timer (viaC: t := time.NewTimer(d), received as
// t.C) or a timer channel (c := time.After(d)) kept in a local variable
// by an assignment that runs on every iteration (a statement of the
// loop's own body), and received in a select of the loop.
func (c *checker) receivedVia(x ast.Expr, parent ast.Node, loop astutil.Loop, viaC bool) *ast.SelectStmt {
	info := c.pass.TypesInfo
	as, ok := parent.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != x || !slices.Contains(loop.Body().List, ast.Stmt(as)) {
		return nil
	}
	v := analysisutil.Target(info, as.Lhs[0])
	if v == nil || !analysisutil.Local(v) {
		return nil
	}
	return c.selectReceivingIn(loop, v, viaC)
}

func (c *checker) parentsOf(loop astutil.Loop) map[ast.Node]ast.Node {
	p := c.parents[loop.Stmt]
	if p == nil {
		p = astutil.Parents(loop.Stmt)
		c.parents[loop.Stmt] = p
	}
	return p
}

// invariant reports whether the duration e is the same on every iteration
// of loop: it reads no variable declared or assigned in the loop, and calls
// nothing but conversions and getters of a configuration read for one of
// its fields (r.config().CommitTimeout): a call that returns the duration
// itself is a backoff or a jitter, computed per iteration.
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
	getters := map[*ast.CallExpr]bool{}
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if s, isField := info.Selections[n]; isField && s.Kind() == types.FieldVal {
				if call, isCall := ast.Unparen(n.X).(*ast.CallExpr); isCall {
					getters[call] = true
				}
			}
		case *ast.CallExpr:
			if tv, isConv := info.Types[n.Fun]; (!isConv || !tv.IsType()) && !getters[n] {
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

// selectReceiving returns the select of which a case receives with recv
// (case <-ch, case v := <-ch, case v, ok := <-ch), recv's operand being
// ch, the last node of stack or its parent.
func selectReceiving(stack []ast.Node, recv *ast.UnaryExpr, ch ast.Expr) *ast.SelectStmt {
	i := slices.Index(stack, ast.Node(recv))
	if i < 4 || ast.Unparen(recv.X) != ch {
		return nil
	}
	// stack: ... SelectStmt BlockStmt CommClause (ExprStmt|AssignStmt) UnaryExpr
	clause, ok := stack[i-2].(*ast.CommClause)
	if !ok || clause.Comm != stack[i-1] {
		return nil
	}
	sel, _ := stack[i-4].(*ast.SelectStmt)
	return sel
}

// receivesFrom reports whether a select case's statement receives from
// the variable v (viaC: from v.C).
func receivesFrom(info *types.Info, comm ast.Stmt, v types.Object, viaC bool) bool {
	ch := astutil.Received(comm)
	if ch == nil {
		return false
	}
	operand := ch
	if viaC {
		sel, ok := operand.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "C" {
			return false
		}
		operand = ast.Unparen(sel.X)
	}
	id, ok := operand.(*ast.Ident)
	return ok && info.Uses[id] == v
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

// selectReceivingIn returns the first select of the loop's body (outside
// inner loops and closures) with a case that receives from the timer v
// (its channel, or its C field when viaC) and may go round the loop
// afterwards; nil when none does.
func (c *checker) selectReceivingIn(loop astutil.Loop, v types.Object, viaC bool) *ast.SelectStmt {
	info := c.pass.TypesInfo
	var found *ast.SelectStmt
	ast.Inspect(loop.Body(), func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			// A select in an inner loop goes round that loop, which
			// keeps the timer until it fires (a batch window).
			return false
		}
		if found != nil {
			return false
		}
		sel, ok := n.(*ast.SelectStmt)
		if !ok {
			return true
		}
		for _, cl := range sel.Body.List {
			cl := cl.(*ast.CommClause)
			if cl.Comm != nil && receivesFrom(info, cl.Comm, v, viaC) && mayContinue(info, sel, loop, cl.Comm, c.parentsOf(loop)) {
				found = sel
			}
		}
		return found == nil
	})
	return found
}
