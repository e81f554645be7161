package spinwait

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Analyzer reports rule SD106, spin-wait.
var Analyzer = &analysis.Analyzer{
	Name:       "spinwait",
	Doc:        analysisutil.RuleDoc(rule),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, blocking.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD106"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	facts := pass.ResultOf[blocking.Analyzer].(*blocking.Result)
	analysisutil.Visit(pass, func(n *ast.ForStmt, stack []ast.Node) { check(pass, res, facts, n, stack) })
	return res, nil
}

func check(pass *analysis.Pass, res *evidence.Result, facts *blocking.Result, f *ast.ForStmt, stack []ast.Node) {
	info := pass.TypesInfo
	if isEmptyForever(info, f) {
		reportEmpty(pass, res, f)
		return
	}
	if astutil.IsCounted(info, f) {
		return
	}
	if cond, yields, ok := clockSpin(info, f); ok && !busyDelay(info, cond, stack) {
		reportClock(pass, res, f, cond, yields)
		return
	}
	loop := astutil.LoopAt(info, stack, len(stack)-1)
	s := spin{info: info, facts: facts, loop: loop, incs: map[types.Object]int{}, alias: map[types.Object]ast.Expr{}, bounds: map[types.Object]bool{}}
	s.awaiting = awaitedStates(info, f)
	if f.Cond != nil {
		s.waits(f.Cond)
		s.bound(f.Cond)
	}
	if f.Post != nil {
		s.stmt(f.Post)
	}
	s.stmt(f.Body)
	if f.Cond != nil {
		// The condition may read variables the body assigns: follow
		// them now that the body is walked. One re-read from shared
		// state makes the loop wait on it (v := s.state.Load(); for v
		// != 2 { v = s.state.Load() }); one computed from a counter the
		// body steps makes that counter a bound (for j := 0; mem == nil;
		// j++ { mem = defs[preds[j]] }, for used[name] { k++; name =
		// fmt.Sprint(base, k) }).
		if !s.shared && s.readsShared(f.Cond, 0) {
			s.shared = true
		}
		astutil.Uses(info, f.Cond, func(o types.Object) bool {
			if v, ok := o.(*types.Var); ok {
				if rhs, ok := s.alias[v]; ok {
					s.boundFrom(rhs, 1)
				}
			}
			return false
		})
	}
	if !s.flagSpin(f) {
		// Not a wait on a flag as a whole; the path that found nothing
		// in a consumer's loop may still be one.
		if r, ok := s.retrySpin(f); ok {
			reportRetry(pass, res, f, r, facts)
		}
		return
	}
	// The cost is as long as the wait, which the code does not show: a
	// wait for another goroutine's operation of a few instructions (a
	// slot's owner between its CAS and its store) costs nothing until
	// that goroutine is descheduled mid-operation, a wait for an idle
	// consumer costs a core. The message says what holds in both and
	// leaves the cost to the runtime layers, which measure it.
	what := "with nothing that blocks"
	if f.Cond != nil {
		what = "while " + types.ExprString(f.Cond)
	}
	p := analysisutil.Parts{What: "loop spins " + what + ", holding a core for as long as it waits",
		Notes: []string{"unless the wait is always a few instructions, block on a channel, sync.Cond or WaitGroup instead"}}
	if s.yields > 0 {
		p.What, p.Because = "loop spins "+what, "runtime.Gosched does not park, so it keeps a P for as long as it waits"
	}
	ev := []finding.Evidence{
		{Label: "runtime.Gosched calls per iteration", Value: float64(s.yields)},
		{Label: "blocking operations in the loop", Value: 0},
		{Label: "statements in the loop body", Value: float64(len(f.Body.List))},
	}
	if s.guardedWrites > 0 {
		ev = append(ev, finding.Evidence{Label: "atomic writes only behind a wait condition", Value: float64(s.guardedWrites)})
	}
	if s.helper != nil {
		ev = append(ev, finding.Evidence{Label: blocking.Describe(s.helper, facts.Of(s.helper)), Value: 1})
	}
	analysisutil.ReportParts(pass, res, rule, 0, false, f, p, ev)
}

// flagSpin reports whether the walked loop, as a whole, waits on shared
// state or yields, with nothing that blocks, works or advances.
func (s *spin) flagSpin(f *ast.ForStmt) bool {
	if s.bad || s.progress || (!s.shared && s.yields == 0) {
		return false
	}
	// A counter that decides when the loop ends is a bound, not a tally
	// (one that only paces the yields, spins%100 == 0, is a tally).
	for obj := range s.incs {
		if s.bounds[obj] {
			return false
		}
	}
	return !s.swapsEveryRound(f)
}

// swapsEveryRound reports whether every path that goes round the loop
// again (falls off the body's end or continues) has run a
// compare-and-swap, in the loop's own code or in a never-blocking helper
// whose fact says it swaps (rdcssRoot, gcas); every other path leaves.
// Each round then follows a CAS that lost to another goroutine's: a
// retry loop bounded by contention, not a wait for another goroutine to
// move. Statements it does not follow (switch, select, nested loops,
// goto) make it answer false, which keeps the rule's finding.
func (s *spin) swapsEveryRound(f *ast.ForStmt) bool {
	if f.Cond != nil && s.swaps(f.Cond) {
		return true
	}
	w := casPaths{s: s, ok: true, stale: map[ast.Node]bool{}}
	end := w.list(f.Body.List, false)
	return w.ok && end
}

// casPaths follows the paths of a loop body, noting whether a CAS ran.
type casPaths struct {
	s  *spin
	ok bool // every continue seen so far came after a CAS
	// stale holds the bodies (a *ast.BlockStmt or *ast.CaseClause) that
	// re-read a position another goroutine's CAS moved on (staleRetry):
	// the round they start is a retry bounded by contention, as after a
	// failed CAS.
	stale map[ast.Node]bool
	// breaks collects, for each switch being walked, whether a CAS had
	// run on the paths that leave it with an unlabelled break.
	breaks [][]bool
}

// list returns whether every path that reaches the end of l has run a
// CAS (true when none does), given done for the paths entering it.
func (w *casPaths) list(l []ast.Stmt, done bool) bool {
	for _, st := range l {
		done = w.stmt(st, done)
	}
	return done
}

func (w *casPaths) stmt(st ast.Stmt, done bool) bool {
	switch st := st.(type) {
	case *ast.BlockStmt:
		if w.stale[st] {
			return true
		}
		return w.list(st.List, done)
	case *ast.IfStmt:
		if st.Init != nil {
			done = w.stmt(st.Init, done)
		}
		if chain := ifChain(st); chain != nil {
			w.markStale(chain)
		}
		if neverTrue(w.s.info, st.Cond) {
			if st.Else == nil {
				return done
			}
			return w.stmt(st.Else, done)
		}
		done = done || w.s.swaps(st.Cond)
		staleThen, staleElse := w.s.snapshotCheck(st.Cond)
		then := w.stmt(st.Body, done || staleThen)
		other := done || staleElse
		if st.Else != nil {
			other = w.stmt(st.Else, done || staleElse)
		}
		return then && other
	case *ast.SwitchStmt:
		return w.switchStmt(st, done)
	case *ast.BranchStmt:
		switch {
		case st.Tok == token.CONTINUE:
			w.ok = w.ok && done
		case st.Tok == token.BREAK && st.Label == nil && len(w.breaks) > 0:
			// Leaves the switch being walked: the path goes on after it.
			w.breaks[len(w.breaks)-1] = append(w.breaks[len(w.breaks)-1], done)
		case st.Tok == token.BREAK:
			// Outside switch (and select, refused below), a break
			// leaves this loop or an outer one; so does a labelled one
			// (a label on the switch itself is refused by switchStmt).
		default:
			w.ok = false
		}
		return true // nothing after it on this path runs
	case *ast.ReturnStmt:
		return true
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok && astutil.ClassifyCall(w.s.info, call) == astutil.Exit {
			return true // panic: leaves
		}
		return done || w.s.swaps(st)
	case *ast.AssignStmt, *ast.IncDecStmt, *ast.DeclStmt, *ast.EmptyStmt:
		return done || w.s.swaps(st)
	}
	w.ok = false
	return false
}

// switchStmt follows a tagless switch: every live clause is a path (a
// clause whose every case can never be true is dead and skipped), and
// without a default, so is going past it. A stale-position clause
// (staleRetry) counts as having swapped.
func (w *casPaths) switchStmt(st *ast.SwitchStmt, done bool) bool {
	if st.Tag != nil {
		w.ok = false
		return false
	}
	if st.Init != nil {
		done = w.stmt(st.Init, done)
	}
	live := liveClauses(w.s.info, st)
	w.markStale(live)
	all, hasDefault := true, false
	w.breaks = append(w.breaks, nil)
	for _, b := range live {
		if b.cond == nil {
			hasDefault = true
		}
		if w.stale[b.node] {
			continue
		}
		d := done || b.cond != nil && w.s.swaps(b.cond)
		all = w.list(b.body, d) && all
	}
	for _, d := range w.breaks[len(w.breaks)-1] {
		all = all && d
	}
	w.breaks = w.breaks[:len(w.breaks)-1]
	return all && (hasDefault || done)
}

// branch is one arm of an if/else-if chain or of a tagless switch: its
// condition (nil for else and default), its statements, and the node
// that holds them.
type branch struct {
	cond ast.Expr
	body []ast.Stmt
	node ast.Node
}

// ifChain returns the arms of the if/else-if/else chain that starts at
// st, or nil when an else-if has an init statement.
func ifChain(st *ast.IfStmt) []branch {
	var out []branch
	for {
		out = append(out, branch{cond: st.Cond, body: st.Body.List, node: st.Body})
		switch e := st.Else.(type) {
		case nil:
			return out
		case *ast.BlockStmt:
			return append(out, branch{body: e.List, node: e})
		case *ast.IfStmt:
			if e.Init != nil {
				return nil
			}
			st = e
		default:
			return nil
		}
	}
}

// liveClauses returns the clauses of a tagless switch that can run, one
// branch per case expression list joined as one condition (nil for
// default); a clause whose every expression can never be true is dead.
func liveClauses(info *types.Info, st *ast.SwitchStmt) []branch {
	var out []branch
	for _, c := range st.Body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			out = append(out, branch{body: cc.Body, node: cc})
			continue
		}
		var live []ast.Expr
		for _, e := range cc.List {
			if !neverTrue(info, e) {
				live = append(live, e)
			}
		}
		if len(live) == 0 {
			continue
		}
		cond := live[0]
		for _, e := range live[1:] {
			cond = &ast.BinaryExpr{X: cond, Op: token.LOR, Y: e}
		}
		out = append(out, branch{cond: cond, body: cc.Body, node: cc})
	}
	return out
}

// neverTrue reports a condition that cannot hold: the constant false, or
// an unsigned value compared below zero (x < 0, 0 > x), which is false
// for every value (staticcheck's SA4003). Code under it never runs.
func neverTrue(info *types.Info, e ast.Expr) bool {
	if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		return !constant.BoolVal(tv.Value)
	}
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	x, zero := b.X, b.Y
	switch b.Op {
	case token.LSS:
	case token.GTR:
		x, zero = b.Y, b.X
	default:
		return false
	}
	return isZero(info, zero) && isUnsigned(info.TypeOf(x))
}

func allNeverTrue(info *types.Info, list []ast.Expr) bool {
	for _, e := range list {
		if !neverTrue(info, e) {
			return false
		}
	}
	return true
}

func isZero(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Int && constant.Sign(tv.Value) == 0
}

func isUnsigned(t types.Type) bool {
	b, ok := t.(*types.Basic)
	if t != nil {
		b, ok = t.Underlying().(*types.Basic)
	}
	return ok && b.Info()&types.IsUnsigned != 0
}

// markStale finds, among the arms of one comparison, the re-read of a
// position that another goroutine moved on, and marks its body stale.
// It is the three-way test of a slot's sequence in Dmitry Vyukov's
// bounded queue (dif := seq - pos): the arm dif == 0 claims the slot with
// a CAS on the position; the arm dif < 0 (or dif > 0) finds the slot not
// ready and leaves the loop (full, empty: return false); and the one
// other arm, the opposite sign, only re-reads the word the CAS swaps
// (pos = tail.Load()): it runs when another goroutine's CAS claimed this
// position first, so going round is a contention retry, like a failed
// CAS. When the not-ready arm is dead (an unsigned dif < 0) or does not
// leave, the re-read arm is where the loop waits for the ring to move,
// and nothing is marked.
func (w *casPaths) markStale(arms []branch) {
	info := w.s.info
	var zero, ready, reread *branch
	var d types.Object
	for i := range arms {
		b := &arms[i]
		v, op, ok := signTest(info, b.cond)
		switch {
		case ok && op == token.EQL && zero == nil && (d == nil || d == v):
			zero, d = b, v
		case ok && (op == token.LSS || op == token.GTR) && ready == nil && (d == nil || d == v) &&
			!neverTrue(info, b.cond) && astutil.AlwaysLeaves(info, b.body, w.s.loop, true):
			ready, d = b, v
		case reread == nil:
			if ok && d != nil && d != v {
				return
			}
			reread = b
		default:
			return // more arms than the three
		}
	}
	if zero == nil || ready == nil || reread == nil {
		return
	}
	target := casTarget(info, append([]ast.Node{zero.cond}, stmtNodes(zero.body)...))
	if target == "" || len(reread.body) == 0 {
		return
	}
	for _, st := range reread.body {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN {
			return
		}
		for _, r := range as.Rhs {
			call, ok := ast.Unparen(r).(*ast.CallExpr)
			if !ok || loadTarget(info, call) != target {
				return
			}
		}
	}
	w.stale[reread.node] = true
}

func stmtNodes(list []ast.Stmt) []ast.Node {
	out := make([]ast.Node, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// snapshotCheck reads a consistency check of a snapshot: cond compares a
// variable the loop loaded from an atomic word with a fresh load of the
// same word (tail == q.tail.Load(), in a Michael–Scott queue). The arm
// where they differ runs only when another goroutine changed the word
// between the two loads, which in a lock-free structure is a CAS that won:
// going round from it is a retry bounded by contention, as after a CAS
// this goroutine lost. It returns which arm that is: the else of ==, the
// then of !=.
func (s *spin) snapshotCheck(cond ast.Expr) (staleThen, staleElse bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL && b.Op != token.NEQ {
		return false, false
	}
	for _, pair := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		v := s.aliased(pair[0])
		fresh, ok := ast.Unparen(pair[1]).(*ast.CallExpr)
		if v == nil || !ok {
			continue
		}
		snap, ok := ast.Unparen(s.alias[v]).(*ast.CallExpr)
		if !ok {
			continue
		}
		if target := loadTarget(s.info, fresh); target != "" && target == loadTarget(s.info, snap) {
			return b.Op == token.NEQ, b.Op == token.EQL
		}
	}
	return false, false
}

// signTest reads a comparison of a variable with zero (d == 0, d < 0,
// 0 < d ...) as the variable and the operator with d on the left.
func signTest(info *types.Info, cond ast.Expr) (types.Object, token.Token, bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return nil, 0, false
	}
	x, y, op := b.X, b.Y, b.Op
	if isZero(info, x) {
		x, y = y, x
		switch op {
		case token.LSS:
			op = token.GTR
		case token.GTR:
			op = token.LSS
		}
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || !isZero(info, y) {
		return nil, 0, false
	}
	switch op {
	case token.EQL, token.LSS, token.GTR:
	default:
		return nil, 0, false
	}
	v, ok := info.Uses[id].(*types.Var)
	return v, op, ok
}

// casTarget returns the word the first compare-and-swap in nodes swaps,
// spelled as its address (&q.tail for atomic.CompareAndSwapInt64(&q.tail,
// ...) and for q.tail.CompareAndSwap(...)), or "".
func casTarget(info *types.Info, nodes []ast.Node) string {
	target := ""
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && target == "" && blocking.IsCAS(analysisutil.Callee(info, call)) {
				target = atomicAddr(info, call)
			}
			return target == ""
		})
	}
	return target
}

// loadTarget returns the word an atomic load reads, spelled as casTarget
// spells it, or "" for any other call.
func loadTarget(info *types.Info, call *ast.CallExpr) string {
	fn := analysisutil.Callee(info, call)
	if fn == nil || !astutil.IsAtomicLike(fn) || !strings.HasPrefix(fn.Name(), "Load") {
		return ""
	}
	return atomicAddr(info, call)
}

// atomicAddr spells the word an atomic call works on: the first argument
// of a function of sync/atomic, the address of a method's receiver.
func atomicAddr(info *types.Info, call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	fn := analysisutil.Callee(info, call)
	if !ok || fn == nil {
		return ""
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		return "&" + types.ExprString(sel.X)
	}
	if len(call.Args) > 0 {
		if u, ok := ast.Unparen(call.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
			return "&" + types.ExprString(u.X)
		}
	}
	return ""
}

// swaps reports whether n calls a compare-and-swap, directly or through a
// never-blocking helper that runs one.
func (s *spin) swaps(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			fn := analysisutil.Callee(s.info, n)
			if s.awaiting[n] {
				// fails while the state is not there yet: not a lost race
			} else if blocking.IsCAS(fn) {
				found = true
			} else if fn != nil {
				if f := s.facts.Of(fn); f.Kind == blocking.NeverBlocks && f.Swaps {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// clockSpin recognises a busy wait on the clock: a loop whose only exit
// is a test of the clock (for time.Now().Before(deadline) {}, for
// !t.After(time.Now()) {}, for { if time.Since(start) > d { break } }),
// whose body does nothing but yield or count. It holds a core until the
// deadline for what time.Sleep(time.Until(deadline)) does parked. A loop
// that does anything else while the clock runs (a call, an assignment, a
// read of another goroutine's state) is a deadline-bounded loop doing work
// or polling with a timeout, and is not this.
func clockSpin(info *types.Info, f *ast.ForStmt) (cond ast.Expr, yields int, ok bool) {
	body := f.Body.List
	cond = f.Cond
	if cond == nil {
		if len(body) == 0 || f.Init != nil || f.Post != nil {
			return nil, 0, false
		}
		ifs, ok := body[0].(*ast.IfStmt)
		if !ok || ifs.Init != nil || ifs.Else != nil || len(ifs.Body.List) != 1 ||
			!astutil.Leaves(info, ifs.Body, astutil.Loop{Stmt: f}, true) {
			return nil, 0, false
		}
		if _, isBranch := ifs.Body.List[0].(*ast.BranchStmt); !isBranch {
			if _, isReturn := ifs.Body.List[0].(*ast.ReturnStmt); !isReturn {
				return nil, 0, false
			}
		}
		cond, body = ifs.Cond, body[1:]
	}
	if !clockOnly(info, cond) {
		return nil, 0, false
	}
	for _, st := range body {
		switch st := st.(type) {
		case *ast.EmptyStmt:
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(st.X).(*ast.Ident); !ok || !analysisutil.Local(info.Uses[id]) {
				return nil, 0, false
			}
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok || astutil.ClassifyCall(info, call) != astutil.Yield {
				return nil, 0, false
			}
			yields++
		default:
			return nil, 0, false
		}
	}
	return cond, yields, true
}

// busyDelay reports the deliberate busy delay: the clock condition
// measures the time since a start read just before the loop (start :=
// time.Now(); for time.Since(start) < d {}), which burns the CPU for a set
// duration on purpose (simulated work in a load generator, a delay
// shorter than a sleep's resolution). A wait for a deadline that comes
// from elsewhere (a parameter, a field, a time computed earlier) is not.
func busyDelay(info *types.Info, cond ast.Expr, stack []ast.Node) bool {
	if len(stack) < 2 {
		return false
	}
	loop := stack[len(stack)-1]
	parent := stack[len(stack)-2]
	if l, ok := parent.(*ast.LabeledStmt); ok && len(stack) >= 3 {
		loop, parent = l, stack[len(stack)-3]
	}
	block, ok := parent.(*ast.BlockStmt)
	if !ok {
		return false
	}
	i := slices.Index(block.List, loop.(ast.Stmt))
	if i < 1 {
		return false
	}
	as, ok := block.List[i-1].(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || !analysisutil.IsFunc(analysisutil.Callee(info, call), "time", "Now") {
		return false
	}
	start := info.Defs[as.Lhs[0].(*ast.Ident)]
	return start != nil && astutil.Uses(info, cond, func(o types.Object) bool { return o == start })
}

// clockOnly reports whether cond reads the clock and, besides, only
// variables, constants and conversions: every call in it is a clock read
// (time.Now, Since, Until) or a comparison of times and durations
// (Time.Before, After, Equal, Compare, Sub).
func clockOnly(info *types.Info, cond ast.Expr) bool {
	clock, other := false, false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			other = true
		case *ast.UnaryExpr:
			other = n.Op == token.ARROW
		case *ast.CallExpr:
			fn := analysisutil.Callee(info, n)
			switch {
			case analysisutil.IsFunc(fn, "time", "Now", "Since", "Until"):
				clock = true
			case analysisutil.IsMethod(fn, "time", "Time", "Before", "After", "Equal", "Compare", "Sub", "Add"),
				analysisutil.IsMethod(fn, "time", "Duration", "Seconds", "Milliseconds", "Microseconds", "Nanoseconds"):
			default:
				if tv, ok := info.Types[n.Fun]; !ok || !tv.IsType() {
					other = true
				}
			}
		}
		return !other
	})
	return clock && !other
}

// reportClock reports a busy wait on the clock, with the fix that parks.
func reportClock(pass *analysis.Pass, res *evidence.Result, f *ast.ForStmt, cond ast.Expr, yields int) {
	note := ""
	if yields > 0 {
		note = " (runtime.Gosched does not park)"
	}
	analysisutil.Report(pass, res, rule, f,
		fmt.Sprintf("loop spins on the clock until %s, holding a core%s; sleep until the deadline with time.Sleep or a time.Timer instead", types.ExprString(cond), note),
		[]finding.Evidence{
			{Label: "runtime.Gosched calls per iteration", Value: float64(yields)},
			{Label: "blocking operations in the loop", Value: 0},
			{Label: "statements in the loop body", Value: float64(len(f.Body.List))},
			{Label: "loop at line", Value: analysisutil.Line(pass, f.Pos())},
		})
}

// isEmptyForever reports for {} and for true {}: a loop with nothing in it
// that never ends.
func isEmptyForever(info *types.Info, f *ast.ForStmt) bool {
	if f.Init != nil || f.Post != nil || len(f.Body.List) > 0 {
		return false
	}
	if f.Cond == nil {
		return true
	}
	tv, ok := info.Types[f.Cond]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && constant.BoolVal(tv.Value)
}

// reportEmpty reports an empty endless loop, with the fix select {},
// which blocks forever without a core (and lets the runtime see a
// deadlock when nothing else can run).
func reportEmpty(pass *analysis.Pass, res *evidence.Result, f *ast.ForStmt) {
	comments := false
	for _, file := range pass.Files {
		if file.FileStart <= f.Pos() && f.End() <= file.FileEnd {
			for _, cg := range file.Comments {
				if f.Pos() <= cg.Pos() && cg.End() <= f.End() {
					comments = true
				}
			}
		}
	}
	var fixes []analysis.SuggestedFix
	if !comments { // a rewrite would drop them
		fixes = []analysis.SuggestedFix{{
			Message:   "use select {} to block forever",
			TextEdits: []analysis.TextEdit{{Pos: f.Pos(), End: f.End(), NewText: []byte("select {}")}},
		}}
	}
	analysisutil.Report(pass, res, rule, f,
		"empty loop spins a core forever; use select {} to block forever, or block on what the loop waits for",
		[]finding.Evidence{
			{Label: "statements in the loop body", Value: 0},
			{Label: "blocking operations in the loop", Value: 0},
			{Label: "loop at line", Value: analysisutil.Line(pass, f.Pos())},
		}, fixes...)
}

// spin walks a loop and decides whether it only reads and yields.
type spin struct {
	info     *types.Info
	facts    *blocking.Result
	loop     astutil.Loop
	bad      bool                 // does something besides reading and yielding
	progress bool                 // writes on every iteration: a retry loop, not a wait
	shared   bool                 // waits on state another goroutine can change
	yields   int                  // runtime.Gosched calls
	incs     map[types.Object]int // counters incremented, with how many times
	// alias holds the value a variable was last given in the loop
	// (gate = upstream.Load()): reading it reads that value.
	alias map[types.Object]ast.Expr
	// depth counts the ifs and switch cases around the statement being
	// walked: a write at depth 0 runs on every iteration.
	depth         int
	guardedWrites int // atomic writes behind a condition
	// skips is set once a conditional continue has been walked: the
	// statements after it do not run on every iteration.
	skips bool
	// bounds are the variables read by the conditions that end the
	// loop: its own, and those of ifs whose branch always leaves.
	bounds map[types.Object]bool
	helper *types.Func // a never-blocking helper the loop waits on
	// counters are the variables the loop steps (retrySpin).
	counters map[types.Object]bool
	// awaiting holds the compare-and-swaps from a fixed state that the
	// loop retries blindly (awaitedStates): waits, not retries.
	awaiting map[*ast.CallExpr]bool
}

// awaitedStates returns the compare-and-swaps of a loop that wait for
// another goroutine to put a word into a state: the loop's condition (for
// !atomic.CompareAndSwapInt32(&q.state, ready, reading) { runtime.Gosched()
// }), or the condition of an if that leaves the loop and is its body's
// first statement, is a CAS whose old and new values are both constants,
// and the old one is not the zero value; the rest of the body only
// yields or counts (onlyYields). Nothing in the loop reads the
// word before trying, so a failed round does not mean another goroutine's
// CAS won (a retry bounded by contention): mostly it means the word is not
// in that state yet (an idle queue, a slot not yet filled), and the loop
// spins until a producer comes. A CAS from the zero value (0, false, nil)
// to a constant is a lock's or a one-time slot's acquire, which the rule
// leaves to the lock's author (acquires). A state-machine transition that
// loads the state first and tries the CAS only when it holds is not
// blind, and is not returned.
func awaitedStates(info *types.Info, f *ast.ForStmt) map[*ast.CallExpr]bool {
	var conds []ast.Expr
	if f.Cond != nil && onlyYields(info, f.Body.List) {
		conds = append(conds, f.Cond)
	}
	if f.Cond == nil && len(f.Body.List) > 0 && onlyYields(info, f.Body.List[1:]) {
		loop := astutil.Loop{Stmt: f}
		if ifs, ok := f.Body.List[0].(*ast.IfStmt); ok && ifs.Init == nil && ifs.Else == nil && astutil.Leaves(info, ifs.Body, loop, true) {
			conds = append(conds, ifs.Cond)
		}
	}
	var out map[*ast.CallExpr]bool
	for _, c := range conds {
		if c == nil {
			continue
		}
		c = ast.Unparen(c)
		if u, ok := c.(*ast.UnaryExpr); ok && u.Op == token.NOT {
			c = ast.Unparen(u.X)
		}
		if call, ok := c.(*ast.CallExpr); ok && fixedStateCAS(info, call) {
			if out == nil {
				out = map[*ast.CallExpr]bool{}
			}
			out[call] = true
		}
	}
	return out
}

// onlyYields reports whether list does nothing but yield, count in local
// variables or nothing: the body of a blind wait. A body that looks at
// the state (if atomic.LoadInt32(&op.state) == 0 { return }: a hand-made
// lock's release that waits out a short critical section) knows the
// states and is left to its author.
func onlyYields(info *types.Info, list []ast.Stmt) bool {
	for _, st := range list {
		switch st := st.(type) {
		case *ast.EmptyStmt:
		case *ast.IncDecStmt:
			id, ok := ast.Unparen(st.X).(*ast.Ident)
			if !ok || !analysisutil.Local(info.Uses[id]) {
				return false
			}
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok || astutil.ClassifyCall(info, call) != astutil.Yield {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// fixedStateCAS reports a compare-and-swap whose old and new values are
// constants, the old one not the zero value: CompareAndSwap(ready, reading).
func fixedStateCAS(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	if !blocking.IsCAS(fn) {
		return false
	}
	old := 0 // method: CompareAndSwap(old, new)
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() == nil {
		old = 1 // function: CompareAndSwapT(addr, old, new)
	}
	if len(call.Args) != old+2 {
		return false
	}
	o, n := info.Types[call.Args[old]], info.Types[call.Args[old+1]]
	if o.Value == nil || n.Value == nil {
		return false
	}
	switch o.Value.Kind() {
	case constant.Bool:
		return constant.BoolVal(o.Value)
	case constant.Int:
		return constant.Sign(o.Value) != 0
	}
	return false
}

// waits checks a condition the loop waits on, and notes whether it reads
// shared state.
func (s *spin) waits(cond ast.Expr) {
	s.expr(cond)
	if s.readsShared(cond, 0) {
		s.shared = true
	}
}

// readsShared reports whether evaluating e reads state that another
// goroutine can change: an atomic or other polling call, a package-level
// variable, a field reached through a pointer, or a variable the loop
// assigned from one of these. Local variables and parameters are the
// goroutine's own.
func (s *spin) readsShared(e ast.Expr, depth int) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch astutil.ClassifyCallFacts(s.info, n, s.facts) {
			case astutil.Read:
				if !isTimeOrCount(s.info, n) {
					found = true
				}
			case astutil.Write:
				found = isTryLock(s.info, n)
			case astutil.NoBlock:
				fn := analysisutil.Callee(s.info, n)
				if s.facts.Of(fn).Polls {
					found = true
					if s.helper == nil && !astutil.IsAtomicLike(fn) {
						s.helper = fn
					}
				}
			}
		case *ast.SelectorExpr:
			sel, ok := s.info.Selections[n]
			if !ok || sel.Kind() != types.FieldVal || !sel.Indirect() {
				return true // a qualified name, or a field of a value: look inside
			}
			if v := s.aliased(n.X); v != nil {
				found = depth < 4 && s.readsShared(s.alias[v], depth+1)
				return false
			}
			found = true // through a pointer another goroutine holds too
			return false
		case *ast.Ident:
			v, ok := s.info.Uses[n].(*types.Var)
			if !ok || v.IsField() {
				return true
			}
			if rhs, ok := s.alias[v]; ok {
				found = depth < 4 && s.readsShared(rhs, depth+1)
				return false
			}
			found = v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
		}
		return true
	})
	return found
}

// aliased returns the variable e names when the loop assigned it.
func (s *spin) aliased(e ast.Expr) *types.Var {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := s.info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	if _, ok := s.alias[v]; !ok {
		return nil
	}
	return v
}

// refers reports whether e reads one of objs, directly or through the
// variables the loop assigned.
func (s *spin) refers(e ast.Expr, objs []*types.Var, depth int) bool {
	return astutil.Uses(s.info, e, func(o types.Object) bool {
		for _, v := range objs {
			if o == v {
				return true
			}
		}
		if v, ok := o.(*types.Var); ok && depth < 4 {
			if rhs, ok := s.alias[v]; ok {
				return s.refers(rhs, objs, depth+1)
			}
		}
		return false
	})
}

// bound notes the variables a condition that ends the loop reads, and
// those that the values it reads were computed from (p :=
// parent(tile, k); if _, ok := order[p]; ok { break } ends on k): a
// counter among them walks towards the end.
func (s *spin) bound(cond ast.Expr) { s.boundFrom(cond, 0) }

func (s *spin) boundFrom(e ast.Expr, depth int) {
	astutil.Uses(s.info, e, func(o types.Object) bool {
		if s.bounds[o] {
			return false
		}
		s.bounds[o] = true
		if v, ok := o.(*types.Var); ok && depth < 4 {
			if rhs, ok := s.alias[v]; ok {
				s.boundFrom(rhs, depth+1)
			}
		}
		return false
	})
}

// expr checks that evaluating e only reads: calls that read, yield, write
// an atomic (noted), or never block by their facts.
func (s *spin) expr(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			s.bad = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				s.bad = true
			}
		case *ast.CallExpr:
			switch astutil.ClassifyCallFacts(s.info, n, s.facts) {
			case astutil.Read:
				if isTimeOrCount(s.info, n) {
					s.bad = true
				}
			case astutil.Yield:
				s.yields++
			case astutil.Write:
				s.write(n)
			case astutil.NoBlock:
				// A helper that never blocks, read for its value; one
				// that writes through a pointer without touching another
				// goroutine's state (in.readRune() consumes its input)
				// advances the loop: work, not a wait.
				if f := s.facts.Of(analysisutil.Callee(s.info, n)); f.Mutates && !f.Polls {
					s.bad = true
				}
			default:
				s.bad = true
			}
		}
		return !s.bad
	})
}

// write notes an atomic write (or a TryLock). One that runs on every
// iteration makes progress: a CAS retry loop fails only when another
// goroutine's CAS won. One behind a condition means the loop has an
// iteration that writes nothing and waits for another goroutine.
func (s *spin) write(call *ast.CallExpr) {
	switch {
	case isTryLock(s.info, call):
		// A TryLock spin waits for the holder to unlock.
	case s.awaiting[call]:
		// A blind CAS from a fixed state waits for the state.
		s.shared = true
	case acquires(s.info, call):
		// CAS(nil or 0 → mine): a lock or a first-store guard that
		// a hand-made synchronisation primitive spins on by design.
		s.progress = true
	case s.depth == 0 && !s.skips:
		s.progress = true
	default:
		s.guardedWrites++
	}
}

// stmt checks that running st only reads, yields, counts or leaves.
func (s *spin) stmt(st ast.Stmt) {
	if s.bad {
		return
	}
	switch st := st.(type) {
	case *ast.BlockStmt:
		for _, x := range st.List {
			s.stmt(x)
		}
	case *ast.EmptyStmt:
	case *ast.ExprStmt:
		call, ok := ast.Unparen(st.X).(*ast.CallExpr)
		if ok && astutil.ClassifyCallFacts(s.info, call, s.facts) == astutil.NoBlock {
			s.bad = true // a helper run for its effect: work, not a wait
			return
		}
		s.expr(st.X)
	case *ast.AssignStmt:
		s.assign(st)
	case *ast.DeclStmt:
		// var x = e is x := e, spelled another way: the same re-read.
		gd, ok := st.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			return // a type or constant declared in the loop runs nothing
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if len(vs.Values) == 0 {
				continue // a zero value: the goroutine's own, reads nothing
			}
			lhs := make([]ast.Expr, len(vs.Names))
			for i, n := range vs.Names {
				lhs[i] = n
			}
			s.assign(&ast.AssignStmt{Lhs: lhs, Tok: token.DEFINE, TokPos: vs.Pos(), Rhs: vs.Values})
		}
	case *ast.IncDecStmt:
		id, ok := ast.Unparen(st.X).(*ast.Ident)
		obj := s.info.Uses[id]
		if !ok || obj == nil {
			s.bad = true
			return
		}
		s.incs[obj]++
	case *ast.IfStmt:
		if st.Init != nil {
			s.stmt(st.Init)
		}
		if neverTrue(s.info, st.Cond) {
			// The body never runs: what it does is not part of the loop.
			if st.Else != nil {
				s.depth++
				s.stmt(st.Else)
				s.depth--
			}
			return
		}
		if guard, ok := s.clockGuard(st.Cond); ok && astutil.Leaves(s.info, st.Body, s.loop, true) {
			// if timeout > 0 && time.Since(start) >= timeout { return }:
			// the clock bounds the loop only when the guard holds, and
			// the guard does not change in the loop; with timeout <= 0
			// (Get = Poll(0): "block indefinitely") it spins unbounded.
			s.expr(guard)
		} else if astutil.Leaves(s.info, st.Body, s.loop, true) {
			s.waits(st.Cond)
		} else {
			s.expr(st.Cond)
		}
		s.depth++
		// A branch that always leaves runs once, at the end of the
		// wait: what it does (claim the slot, return the value) is not
		// part of the spin.
		if astutil.AlwaysLeaves(s.info, st.Body.List, s.loop, true) && !astutil.Continues(s.info, st.Body, s.loop) {
			s.bound(st.Cond)
			s.acquiresIn(st.Body)
		} else {
			s.stmt(st.Body)
		}
		if st.Else != nil {
			s.stmt(st.Else)
		}
		s.depth--
	case *ast.SwitchStmt:
		if st.Init != nil {
			// switch dif := seq - pos; { ... }: a re-read like any other
			// assignment (a call, a send, would make the loop bad there).
			s.stmt(st.Init)
		}
		for _, c := range st.Body.List {
			c := c.(*ast.CaseClause)
			if st.Tag == nil && len(c.List) > 0 && allNeverTrue(s.info, c.List) {
				continue // a dead clause (an unsigned dif < 0) never runs
			}
			check := s.expr
			if astutil.Leaves(s.info, &ast.BlockStmt{List: c.Body}, s.loop, false) {
				check = s.waits
			}
			if st.Tag != nil {
				check(st.Tag)
			}
			for _, e := range c.List {
				check(e)
			}
			s.depth++
			for _, x := range c.Body {
				s.stmt(x)
			}
			s.depth--
		}
	case *ast.BranchStmt:
		switch {
		case st.Tok == token.GOTO || st.Tok == token.FALLTHROUGH:
			s.bad = true
		case st.Tok == token.CONTINUE && s.depth > 0:
			s.skips = true
		}
	case *ast.ReturnStmt:
		for _, r := range st.Results {
			s.expr(r)
		}
	default:
		s.bad = true
	}
}

// assign accepts x = e and x := e where x is a plain variable and e
// re-reads shared state without reading x itself: the loop re-reads a
// value (gate = upstream.Load(), next := cur + 1) and does not advance
// (l = l.next, i = i + 1, m := lo + (hi-lo)/2). The variable then stands
// for e in the conditions that follow.
func (s *spin) assign(st *ast.AssignStmt) {
	if st.Tok != token.ASSIGN && st.Tok != token.DEFINE {
		s.bad = true
		return
	}
	var objs []*types.Var
	for _, l := range st.Lhs {
		id, ok := ast.Unparen(l).(*ast.Ident)
		if !ok {
			s.bad = true // a field, an element: state the loop changes
			return
		}
		if id.Name == "_" {
			continue
		}
		v, ok := s.info.ObjectOf(id).(*types.Var)
		if !ok {
			s.bad = true
			return
		}
		objs = append(objs, v)
	}
	for _, r := range st.Rhs {
		if s.refers(r, objs, 0) || !s.readsShared(r, 0) {
			s.bad = true // advances (l = l.next), or computes: work, not a re-read
			return
		}
		s.expr(r)
	}
	for i, v := range objs {
		switch {
		case len(st.Rhs) == len(st.Lhs):
			s.alias[v] = st.Rhs[i]
		case len(st.Rhs) == 1:
			s.alias[v] = st.Rhs[0] // v, ok := f()
		}
	}
}

// acquiresIn notes a lock-style CAS (acquires) in a branch that leaves:
// the loop is then a hand-made lock's acquire loop, which the rule leaves
// to the lock's author (sync/atomic.Value.Store waits this way, with
// preemption disabled, for a first store in progress).
func (s *spin) acquiresIn(b *ast.BlockStmt) {
	ast.Inspect(b, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && acquires(s.info, call) {
			s.progress = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit && !s.progress
	})
}

// acquires reports a compare-and-swap whose expected old value is a
// constant (0, nil, false): taking a lock or a one-time slot, not
// updating a value read just before.
func acquires(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	if fn == nil || !strings.Contains(fn.Name(), "CompareAndSwap") && fn.Name() != "CAS" {
		return false
	}
	old := 0 // method: CompareAndSwap(old, new)
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() == nil {
		old = 1 // function: CompareAndSwapT(addr, old, new)
	}
	if len(call.Args) <= old {
		return false
	}
	tv, ok := info.Types[call.Args[old]]
	return ok && (tv.Value != nil || tv.IsNil())
}

// clockGuard recognises a timeout that applies only sometimes: cond is
// guard && test, where test reads the clock (time.Since(start) >=
// timeout) and guard does not, calls nothing, and reads only variables
// the loop does not assign (timeout > 0 for a parameter timeout). A loop
// timed by the clock on every iteration is a deliberate busy delay and
// stays silent; this one runs without any bound whenever guard is false.
func (s *spin) clockGuard(cond ast.Expr) (ast.Expr, bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.LAND || !s.readsClock(b.Y) || s.readsClock(b.X) {
		return nil, false
	}
	assigned := map[types.Object]bool{}
	ast.Inspect(s.loop.Stmt, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				lhs = []ast.Expr{n.X} // its address escapes: may change
			}
		}
		for _, l := range lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok {
				assigned[s.info.ObjectOf(id)] = true
			}
		}
		return true
	})
	fixed := true
	ast.Inspect(b.X, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.FuncLit, *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
			fixed = false // a call, a field or an element: may change
		case *ast.Ident:
			if v, ok := s.info.Uses[n].(*types.Var); ok && (assigned[v] || v.Pkg() != nil && v.Parent() == v.Pkg().Scope()) {
				fixed = false
			}
		}
		return fixed
	})
	return b.X, fixed
}

// readsClock reports whether e calls time.Now, time.Since or another
// clock read (isTimeOrCount).
func (s *spin) readsClock(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isTimeOrCount(s.info, call) &&
			!analysisutil.IsFunc(analysisutil.Callee(s.info, call), "runtime", "NumGoroutine") {
			found = true
		}
		return !found
	})
	return found
}

// isTryLock reports a call of Mutex.TryLock or RWMutex.TryLock/TryRLock.
func isTryLock(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	return analysisutil.IsMethod(fn, "sync", "Mutex", "TryLock") ||
		analysisutil.IsMethod(fn, "sync", "RWMutex", "TryLock", "TryRLock")
}

// isTimeOrCount reports reads that make a loop something other than a
// wait on a flag: a clock (a deliberate busy delay) or
// runtime.NumGoroutine (goroutinethrottle reports it).
func isTimeOrCount(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	return analysisutil.IsFunc(fn, "time", "Now", "Since", "Until") ||
		analysisutil.IsMethod(fn, "time", "Time", "Before", "After", "Equal", "Sub", "IsZero") ||
		analysisutil.IsFunc(fn, "runtime", "NumGoroutine")
}
