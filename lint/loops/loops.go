package loops

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	xastutil "golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
	"github.com/schedoctor/schedoctor/lint/spinwait"
	"github.com/schedoctor/schedoctor/lint/timerloop"
)

//go:embed doc.go
var doc string

// Analyzer computes the Verdict of every loop of a package. It reports
// nothing; its result is a *Result.
var Analyzer = &analysis.Analyzer{
	Name: "loops",
	Doc:  analysisutil.MustExtractDoc(doc, "loops"),
	Requires: []*analysis.Analyzer{inspect.Analyzer, blocking.Analyzer,
		busyselect.Analyzer, sleeppoll.Analyzer, spinwait.Analyzer, timerloop.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run:        run,
}

// Kind is what a loop does between iterations.
type Kind string

const (
	NotInLoop     Kind = "not-in-loop"    // no loop (lint/inspect: the line is in none)
	SelectDefault Kind = "select-default" // a select whose default neither blocks nor leaves (SD101)
	YieldSpin     Kind = "yield-spin"     // runtime.Gosched, time.Sleep(0) or a zero timer as the only wait (SD106, SD104)
	AtomicSpin    Kind = "atomic-spin"    // re-reads an atomic or a flag another goroutine moves, with no blocking (SD106)
	SleepPoll     Kind = "sleep-poll"     // polls with a sleep below 1ms (SD102)
	// SleepUnknown sleeps for a length the source does not fix (a flag, a
	// variable): neither proven to block nor a spin. A runtime source
	// decides (diagnose.Profile makes a hot one a sleep poll).
	SleepUnknown Kind = "sleep-unknown"
	TimerPerIter Kind = "timer-per-iter" // makes a timer every iteration (SD104)
	Blocking     Kind = "blocking"       // parks on its idle path: a channel operation, a select without default, a lock, a long sleep
	Compute      Kind = "compute"        // no wait and no spin: the loop does its own work
	// Unknown calls code lint cannot see into on its idle path (an
	// interface's method, a function of another module without facts, a
	// func value): no spin lint can prove, and no proof of work either.
	Unknown  Kind = "unknown"
	RetryCAS Kind = "retry-cas" // retries a compare-and-swap (bounded by contention, not a wait)
)

// Spin reports whether the loop burns CPU waiting for something rather
// than computing or blocking.
func (k Kind) Spin() bool {
	switch k {
	case SelectDefault, YieldSpin, AtomicSpin:
		return true
	}
	return false
}

// Verdict is the judgement of one loop.
type Verdict struct {
	Loop ast.Stmt // *ast.ForStmt or *ast.RangeStmt
	Kind Kind
	// Rule is the lint rule whose diagnostic decided Kind ("SD101"), ""
	// when none did; Message is that diagnostic's message. Rules lists
	// every loop rule reported on the loop, Rule first.
	Rule, Message string
	Rules         []string
	// At is the operation that spins, polls, makes the timer or blocks
	// (the select, the Gosched call, the sleep); token.NoPos when none.
	At token.Pos
	// Detail says in a few words what made the verdict.
	Detail string
}

// Result holds the verdicts of a package's loops.
type Result struct {
	byLoop map[ast.Stmt]*Verdict
	all    []*Verdict // in source order
}

// Of returns the verdict of loop (a *ast.ForStmt or *ast.RangeStmt of the
// package), nil for any other node.
func (r *Result) Of(loop ast.Stmt) *Verdict {
	if r == nil {
		return nil
	}
	return r.byLoop[loop]
}

// All returns every verdict, in source order.
func (r *Result) All() []*Verdict {
	if r == nil {
		return nil
	}
	return r.all
}

// rank orders the rules' verdicts when several fall on one loop.
var rank = map[Kind]int{SelectDefault: 0, YieldSpin: 1, AtomicSpin: 2, SleepPoll: 3, TimerPerIter: 4}

// judge decides verdicts on one package's files.
type judge struct {
	fset   *token.FileSet
	files  []*ast.File
	info   *types.Info
	facts  *blocking.Result // nil outside an analysis pass
	consts *astutil.Consts
}

func run(pass *analysis.Pass) (any, error) {
	j := &judge{fset: pass.Fset, files: pass.Files, info: pass.TypesInfo}
	j.facts, _ = resultOf(pass, blocking.Analyzer).(*blocking.Result)
	j.consts = astutil.NewConsts(pass.TypesInfo, pass.Files, func(f *ast.File) bool {
		return analysisutil.IsTestFile(pass, f.Pos())
	})
	res := &Result{byLoop: map[ast.Stmt]*Verdict{}}

	// The rules' diagnostics, each on the loop it is about.
	byLoop := map[ast.Stmt][]*Verdict{}
	for _, a := range []*analysis.Analyzer{busyselect.Analyzer, spinwait.Analyzer, sleeppoll.Analyzer, timerloop.Analyzer} {
		ev, _ := resultOf(pass, a).(*evidence.Result)
		if ev == nil {
			continue
		}
		for _, rep := range ev.Reports {
			loop, node := j.enclosing(rep.Pos, rep.End)
			if loop == nil {
				continue
			}
			if v := j.fromRule(loop, node, rep, ev.ByPos[rep.Pos]); v != nil {
				byLoop[loop] = append(byLoop[loop], v)
			}
		}
	}

	ins := resultOf(pass, inspect.Analyzer).(*inspector.Inspector)
	ins.WithStack([]ast.Node{(*ast.ForStmt)(nil), (*ast.RangeStmt)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		loop := n.(ast.Stmt)
		v := Best(byLoop[loop]...)
		if v == nil {
			v = j.settle(astutil.LoopAt(j.info, stack, len(stack)-1))
		} else {
			c := *v
			v = &c
			v.Rules = []string{v.Rule}
			for _, o := range byLoop[loop] {
				if !slices.Contains(v.Rules, o.Rule) {
					v.Rules = append(v.Rules, o.Rule)
				}
			}
		}
		res.byLoop[loop] = v
		res.all = append(res.all, v)
		return true
	})
	return res, nil
}

// Best returns the verdict that decides a loop among several rules'
// verdicts on it (SD101 before SD106, SD102 and SD104: a spin costs more
// than a dropped timer); nil when vs is empty.
func Best(vs ...*Verdict) *Verdict {
	order := func(k Kind) int {
		if r, ok := rank[k]; ok {
			return r
		}
		return len(rank)
	}
	var best *Verdict
	for _, v := range vs {
		if v != nil && (best == nil || order(v.Kind) < order(best.Kind)) {
			best = v
		}
	}
	return best
}

// FromDiagnostic is the verdict a rule analyzer's diagnostic, reported on
// these files by another run of the analyzers (a typed load of the
// package, where these files were typed leniently), makes of the loop
// around it; nil when it is in no loop or is not a loop rule's. ev is the
// diagnostic's evidence.
func FromDiagnostic(fset *token.FileSet, files []*ast.File, info *types.Info, rep evidence.Report, ev []finding.Evidence) *Verdict {
	j := &judge{fset: fset, files: files, info: info}
	loop, node := j.enclosing(rep.Pos, rep.End)
	if loop == nil {
		return nil
	}
	return j.fromRule(loop, node, rep, ev)
}

// resultOf is pass.ResultOf[a], or the result of a copy of a (same name)
// when the driver runs copies.
func resultOf(pass *analysis.Pass, a *analysis.Analyzer) any {
	if r, ok := pass.ResultOf[a]; ok {
		return r
	}
	for b, r := range pass.ResultOf {
		if b.Name == a.Name {
			return r
		}
	}
	return nil
}

// enclosing returns the innermost loop, in the innermost function around
// [pos, end), that runs the node there once per iteration (as
// astutil.EnclosingLoop decides), and that node.
func (j *judge) enclosing(pos, end token.Pos) (ast.Stmt, ast.Node) {
	for _, f := range j.files {
		if pos < f.FileStart || pos >= f.FileEnd {
			continue
		}
		path, _ := xastutil.PathEnclosingInterval(f, pos, end)
		if len(path) == 0 {
			return nil, nil
		}
		node := path[0]
		if end == pos {
			// Only a position (a finding read back from a driver): the
			// reported node is the innermost statement or call there.
			for _, n := range path {
				if n.Pos() != pos {
					break
				}
				switch n.(type) {
				case *ast.CallExpr, *ast.SelectStmt, *ast.ForStmt, *ast.RangeStmt:
					node = n
				}
				if node != path[0] {
					break
				}
			}
		}
		if s, ok := node.(ast.Stmt); ok && isLoop(s) {
			return s, node // SD106 reports the loop itself
		}
		for len(path) > 0 && path[0] != node {
			path = path[1:]
		}
		stack := slices.Clone(path)
		slices.Reverse(stack)
		if loop, ok := astutil.EnclosingLoop(j.info, stack); ok {
			return loop.Stmt, node
		}
		return nil, nil
	}
	return nil, nil
}

func isLoop(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
		return true
	}
	return false
}

// fromRule turns one diagnostic of a rule analyzer into the verdict of
// its loop.
func (j *judge) fromRule(loop ast.Stmt, node ast.Node, rep evidence.Report, ev []finding.Evidence) *Verdict {
	v := &Verdict{Loop: loop, Rule: rep.Rule, Message: rep.Message, At: rep.Pos}
	line := j.line(rep.Pos)
	switch rep.Rule {
	case "SD101":
		v.Kind = SelectDefault
		v.Detail = fmt.Sprintf("select at line %d has a default that neither blocks nor leaves the loop", line)
		if sel, ok := node.(*ast.SelectStmt); ok {
			if cases := caseNames(sel); len(cases) > 0 {
				v.Detail += ", and cases on " + strings.Join(cases, ", ")
			}
		}
	case "SD102":
		v.Kind = SleepPoll
		what := "time.Sleep"
		if d, ok := evidenceValue(ev, "sleep"); ok {
			what = fmt.Sprintf("time.Sleep(%v)", time.Duration(d*float64(time.Microsecond)))
		}
		v.Detail = fmt.Sprintf("%s at line %d is the only wait, below the %v poll threshold", what, line, astutil.PollThreshold)
	case "SD104":
		call, _ := node.(*ast.CallExpr)
		if call != nil && j.zeroTimer(call) {
			v.Kind = YieldSpin
			v.Detail = fmt.Sprintf("its only wait is %s at line %d, which does not park", types.ExprString(call), line)
		} else {
			v.Kind = TimerPerIter
			what := "a timer"
			if call != nil {
				what = types.ExprString(call)
			}
			v.Detail = fmt.Sprintf("%s at line %d makes a timer every iteration", what, line)
		}
	case "SD106":
		if at, ok := evidenceValue(ev, spinwait.RetriedCallLine); ok {
			// A consumer's retry around a non-blocking call: the spin
			// is the path that found nothing, at the call.
			v.Kind = AtomicSpin
			if j.yields(loop) {
				v.Kind = YieldSpin // runtime.Gosched on the idle path does not park
			}
			v.Detail = fmt.Sprintf("retries the call at line %d at once when it finds nothing, with nothing that blocks on that path", int(at))
			if call := j.callAtLine(loop, int(at)); call != nil {
				v.At = call.Pos()
				v.Detail = fmt.Sprintf("retries %s at line %d at once when it finds nothing, with nothing that blocks on that path", types.ExprString(call.Fun)+"()", int(at))
			}
			break
		}
		j.spinDetail(v, loop)
	default:
		return nil
	}
	return v
}

// spinDetail fills in the kind and detail of a loop spinwait reported:
// a yield spin when it calls runtime.Gosched, an atomic spin otherwise.
func (j *judge) spinDetail(v *Verdict, loop ast.Stmt) {
	f, _ := loop.(*ast.ForStmt)
	var gosched *ast.CallExpr
	var guard ast.Expr // the condition of the innermost if around it
	if f != nil {
		var stack []ast.Node
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if gosched != nil {
				return false
			}
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok && astutil.ClassifyCall(j.info, call) == astutil.Yield {
				gosched = call
				for i := len(stack) - 1; i >= 0; i-- {
					if is, ok := stack[i].(*ast.IfStmt); ok {
						guard = is.Cond
						break
					}
				}
				return false
			}
			stack = append(stack, n)
			return true
		})
	}
	if guard == nil && f != nil {
		guard = f.Cond
	}
	if guard == nil && f != nil {
		// The condition of the first branch that leaves: what the loop
		// waits to see (if disposed == 1 { return }).
		for _, st := range f.Body.List {
			if is, ok := st.(*ast.IfStmt); ok && astutil.AlwaysLeaves(j.info, is.Body.List, astutil.Loop{Stmt: loop}, true) {
				guard = is.Cond
				break
			}
		}
	}
	switch {
	case gosched != nil:
		v.Kind, v.At = YieldSpin, gosched.Pos()
		y := fmt.Sprintf("%s at line %d", types.ExprString(gosched), j.line(gosched.Pos()))
		if guard != nil {
			v.Detail = fmt.Sprintf("waits for another goroutine while %s (line %d), and its only wait is %s, which does not park",
				types.ExprString(guard), j.line(guard.Pos()), y)
		} else {
			v.Detail = fmt.Sprintf("its only wait is %s, which does not park", y)
		}
	case f != nil && len(f.Body.List) == 0 && f.Cond == nil:
		v.Kind = AtomicSpin
		v.Detail = fmt.Sprintf("the loop at line %d is empty and never ends: it holds a core", j.line(f.Pos()))
	case f != nil && f.Cond != nil:
		v.Kind, v.At = AtomicSpin, f.Cond.Pos()
		v.Detail = fmt.Sprintf("re-reads %s at line %d with nothing that blocks or yields", types.ExprString(f.Cond), j.line(f.Cond.Pos()))
	default:
		v.Kind = AtomicSpin
		v.Detail = fmt.Sprintf("re-reads shared state in lines %d–%d with nothing that blocks or yields", j.line(loop.Pos()), j.line(loop.End()))
	}
}

// yields reports whether loop calls runtime.Gosched (not in a closure).
func (j *judge) yields(loop ast.Stmt) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok || found {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok && astutil.ClassifyCall(j.info, c) == astutil.Yield {
			found = true
		}
		return !found
	})
	return found
}

// callAtLine returns the first call of loop's body on line (not in a
// closure), or nil.
func (j *judge) callAtLine(loop ast.Stmt, line int) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(loop, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok && j.line(c.Pos()) == line {
			found = c
		}
		return true
	})
	return found
}

// funcName is how a detail names fn: "crypto/sha256.Sum256" for a
// function, "Mutex.Lock" for a method.
func funcName(fn *types.Func) string {
	if sig, _ := fn.Type().(*types.Signature); sig != nil && sig.Recv() != nil || fn.Pkg() == nil {
		return blocking.Name(fn)
	}
	return fn.Pkg().Path() + "." + fn.Name()
}

// dynamic reports a method of an interface (or of a type parameter's
// constraint): what the call runs depends on the value.
func dynamic(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	return sig != nil && sig.Recv() != nil && types.IsInterface(sig.Recv().Type())
}

// zeroTimer reports time.Sleep(0) or time.After(0) (any constant <= 0).
func (j *judge) zeroTimer(call *ast.CallExpr) bool {
	fn := analysisutil.Callee(j.info, call)
	if !analysisutil.IsFunc(fn, "time", "Sleep", "After") || len(call.Args) != 1 {
		return false
	}
	d, ok := astutil.ConstDuration(j.info, call.Args[0])
	return ok && d <= 0
}

func evidenceValue(ev []finding.Evidence, label string) (float64, bool) {
	for _, e := range ev {
		if e.Label == label {
			return e.Value, true
		}
	}
	return 0, false
}

// caseNames lists the channels a select's cases use ("done",
// "ctx.Done()", "send on out").
func caseNames(sel *ast.SelectStmt) []string {
	var out []string
	for _, c := range sel.Body.List {
		cc := c.(*ast.CommClause)
		switch s := cc.Comm.(type) {
		case *ast.SendStmt:
			out = append(out, "send on "+types.ExprString(s.Chan))
		case *ast.ExprStmt:
			if u, ok := ast.Unparen(s.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				out = append(out, types.ExprString(u.X))
			}
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 {
				if u, ok := ast.Unparen(s.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
					out = append(out, types.ExprString(u.X))
				}
			}
		}
	}
	return out
}

func (j *judge) line(p token.Pos) int { return j.fset.Position(p).Line }

// op is an operation met on a loop's idle path.
type op struct {
	pos  token.Pos
	what string
}

// idle collects what a loop no rule reported does on its idle path.
type idle struct {
	j                     *judge
	loop                  astutil.Loop
	block, varSleep, cas  *op
	unknown, work, sleeps *op
}

// settle describes a loop that no rule reported: not a spin, and this
// says what it is instead.
func (j *judge) settle(lp astutil.Loop) *Verdict {
	loop := lp.Stmt
	w := &idle{j: j, loop: lp}
	switch l := loop.(type) {
	case *ast.ForStmt:
		if l.Cond != nil {
			w.scan(l.Cond)
		}
		if l.Post != nil {
			w.scan(l.Post)
		}
		w.list(l.Body.List)
	case *ast.RangeStmt:
		if t := j.info.TypeOf(l.X); t != nil {
			if _, ok := t.Underlying().(*types.Chan); ok {
				w.note(&w.block, l.X.Pos(), "a range over channel "+types.ExprString(l.X))
			}
		}
		w.list(l.Body.List)
	}
	v := &Verdict{Loop: loop}
	span := fmt.Sprintf("lines %d–%d", j.line(loop.Pos()), j.line(loop.End()))
	at := func(o *op) string { return fmt.Sprintf("%s at line %d", o.what, j.line(o.pos)) }
	switch {
	case w.block != nil:
		v.Kind, v.At = Blocking, w.block.pos
		v.Detail = fmt.Sprintf("blocks in %s at line %d", w.block.what, j.line(w.block.pos))
	case w.varSleep != nil:
		v.Kind, v.At = SleepUnknown, w.varSleep.pos
		v.Detail = fmt.Sprintf("its only wait is %s: a zero or tiny value spins, a long one waits", at(w.varSleep))
	case w.cas != nil:
		v.Kind, v.At = RetryCAS, w.cas.pos
		v.Detail = fmt.Sprintf("retries %s until it wins; lint reports no spin here (a contention retry, or a lock of its own)", at(w.cas))
	case w.unknown != nil:
		v.Kind, v.At = Unknown, w.unknown.pos
		v.Detail = fmt.Sprintf("no wait and no spin lint can prove in %s; it calls %s, which lint cannot see into", span, at(w.unknown))
	case w.work != nil:
		v.Kind = Compute
		v.Detail = fmt.Sprintf("no wait and no spin operation in %s; it computes (%s)", span, at(w.work))
	case w.sleeps != nil:
		v.Kind = Compute
		v.Detail = fmt.Sprintf("%s paces a loop that ends on its own; no wait for another goroutine", at(w.sleeps))
	default:
		v.Kind = Compute
		v.Detail = fmt.Sprintf("no wait and no spin operation in %s", span)
	}
	return v
}

func (w *idle) note(slot **op, pos token.Pos, what string) {
	if *slot == nil {
		*slot = &op{pos, what}
	}
}

// list walks statements of the idle path.
func (w *idle) list(stmts []ast.Stmt) {
	for _, s := range stmts {
		w.stmt(s)
	}
}

func (w *idle) stmt(s ast.Stmt) {
	info := w.j.info
	switch s := s.(type) {
	case *ast.IfStmt:
		if s.Init != nil {
			w.stmt(s.Init)
		}
		w.scan(s.Cond)
		if !astutil.AlwaysLeaves(info, s.Body.List, w.loop, true) {
			w.list(s.Body.List) // a branch that leaves runs once, at the end
		}
		if s.Else != nil {
			w.stmt(s.Else)
		}
	case *ast.BlockStmt:
		w.list(s.List)
	case *ast.LabeledStmt:
		w.stmt(s.Stmt)
	case *ast.SelectStmt:
		def := astutil.DefaultClause(s)
		if def == nil {
			if len(s.Body.List) == 0 {
				w.note(&w.block, s.Pos(), "select {} (forever)")
				return
			}
			w.note(&w.block, s.Pos(), "a select on "+strings.Join(caseNames(s), ", "))
			return
		}
		// Cases are tried, not waited on; their channel expressions are
		// evaluated (a getter such as r.Context().Done() does not wait),
		// their bodies run only when something happened.
		for _, c := range s.Body.List {
			switch comm := c.(*ast.CommClause).Comm.(type) {
			case *ast.SendStmt:
				w.scan(comm.Chan)
				w.scan(comm.Value)
			case *ast.ExprStmt:
				w.scanTried(comm.X)
			case *ast.AssignStmt:
				if len(comm.Rhs) == 1 {
					w.scanTried(comm.Rhs[0])
				}
			}
		}
		w.list(def.Body)
	case *ast.SwitchStmt:
		if s.Init != nil {
			w.stmt(s.Init)
		}
		if s.Tag != nil {
			w.scan(s.Tag)
		}
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			for _, e := range cc.List {
				w.scan(e)
			}
			if !astutil.AlwaysLeaves(info, cc.Body, w.loop, false) {
				w.list(cc.Body)
			}
		}
	case *ast.TypeSwitchStmt:
		if s.Init != nil {
			w.stmt(s.Init)
		}
		w.scan(s.Assign)
		for _, c := range s.Body.List {
			cc := c.(*ast.CaseClause)
			if !astutil.AlwaysLeaves(info, cc.Body, w.loop, false) {
				w.list(cc.Body)
			}
		}
	case *ast.ForStmt:
		w.note(&w.work, s.Pos(), "a nested loop")
		for _, n := range []ast.Node{s.Init, s.Cond, s.Post} {
			if n != nil {
				w.scan(n)
			}
		}
		w.list(s.Body.List)
	case *ast.RangeStmt:
		w.note(&w.work, s.Pos(), "a nested loop")
		if t := info.TypeOf(s.X); t != nil {
			if _, ok := t.Underlying().(*types.Chan); ok {
				w.note(&w.block, s.X.Pos(), "a range over channel "+types.ExprString(s.X))
			}
		}
		w.scan(s.X)
		w.list(s.Body.List)
	case *ast.GoStmt:
		for _, a := range s.Call.Args {
			w.scan(a)
		}
		w.note(&w.work, s.Pos(), "starts a goroutine")
	case *ast.DeferStmt, *ast.ReturnStmt, *ast.BranchStmt, *ast.EmptyStmt:
		// runs once, or moves control only
	case *ast.SendStmt:
		w.scan(s.Value)
		w.note(&w.block, s.Pos(), "a send on "+types.ExprString(s.Chan))
	default:
		w.scan(s)
	}
}

// scanTried scans a select case's receive without the receive itself,
// which is only tried.
func (w *idle) scanTried(e ast.Expr) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		w.scan(u.X)
		return
	}
	w.scan(e)
}

// scan notes what evaluating n does: channel receives, calls.
func (w *idle) scan(n ast.Node) {
	if n == nil {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // runs when called, not here
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				w.note(&w.block, n.Pos(), "a receive from "+types.ExprString(n.X))
			}
		case *ast.CallExpr:
			w.call(n)
		}
		return true
	})
}

// call notes what a call does, by lint/blocking's facts and astutil.
func (w *idle) call(call *ast.CallExpr) {
	info := w.j.info
	name := types.ExprString(call.Fun)
	switch astutil.ClassifyCall(info, call) {
	case astutil.Read, astutil.Write, astutil.Yield, astutil.Exit:
		fn := analysisutil.Callee(info, call)
		if blocking.IsCAS(fn) {
			w.note(&w.cas, call.Pos(), name)
		}
		return
	case astutil.Sleep:
		if len(call.Args) != 1 {
			return
		}
		d, _, ok := w.j.consts.Duration(info, call.Args[0])
		switch {
		case !ok:
			w.note(&w.varSleep, call.Pos(), fmt.Sprintf("time.Sleep(%s), a sleep of non-constant duration", types.ExprString(call.Args[0])))
		case d >= astutil.PollThreshold:
			w.note(&w.block, call.Pos(), fmt.Sprintf("time.Sleep(%v)", d))
		default:
			w.note(&w.sleeps, call.Pos(), fmt.Sprintf("time.Sleep(%v)", d))
		}
		return
	}
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return
	}
	fn := analysisutil.Callee(info, call)
	if fn == nil || w.j.facts == nil {
		w.note(&w.unknown, call.Pos(), name) // a func value, or untyped
		return
	}
	if blocking.IsCAS(fn) {
		w.note(&w.cas, call.Pos(), name)
	}
	f := w.j.facts.Of(fn)
	switch {
	case f.Kind == blocking.Blocks:
		w.note(&w.block, call.Pos(), funcName(fn))
	case f.Kind == blocking.NeverBlocks:
		if f.Swaps {
			w.note(&w.cas, call.Pos(), funcName(fn))
		}
		w.note(&w.work, call.Pos(), funcName(fn))
	case fn.Pkg() != nil && finding.StdPackage(fn.Pkg().Path()) && !dynamic(fn):
		// A function of the standard library that lint/blocking's table
		// does not list as blocking (sha256.Sum256, json.Marshal): the
		// loop's own work.
		w.note(&w.work, call.Pos(), funcName(fn))
	default:
		w.note(&w.unknown, call.Pos(), funcName(fn))
	}
}
