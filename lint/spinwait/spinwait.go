package spinwait

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

//go:embed doc.go
var doc string

// Analyzer reports rule SD106, spin-wait.
var Analyzer = &analysis.Analyzer{
	Name:       "spinwait",
	Doc:        analysisutil.MustExtractDoc(doc, "spinwait"),
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
	loop := astutil.LoopAt(info, stack, len(stack)-1)
	s := spin{info: info, facts: facts, loop: loop, incs: map[types.Object]int{}, alias: map[types.Object]ast.Expr{}, bounds: map[types.Object]bool{}}
	if f.Cond != nil {
		s.waits(f.Cond)
		s.bound(f.Cond)
	}
	if f.Post != nil {
		s.stmt(f.Post)
	}
	s.stmt(f.Body)
	if s.bad || s.progress || (!s.shared && s.yields == 0) {
		return
	}
	// A counter that decides when the loop ends is a bound, not a tally
	// (one that only paces the yields, spins%100 == 0, is a tally).
	for obj := range s.incs {
		if s.bounds[obj] {
			return
		}
	}
	if s.swapsEveryRound(f) {
		return
	}
	note := ""
	if s.yields > 0 {
		note = " (runtime.Gosched does not park)"
	}
	what := "with nothing that blocks"
	if f.Cond != nil {
		what = "while " + types.ExprString(f.Cond)
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
	analysisutil.Report(pass, res, rule, f,
		fmt.Sprintf("loop spins %s, holding a core%s; block on a channel, sync.Cond or WaitGroup instead", what, note), ev)
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
	w := casPaths{s: s, ok: true}
	end := w.list(f.Body.List, false)
	return w.ok && end
}

// casPaths follows the paths of a loop body, noting whether a CAS ran.
type casPaths struct {
	s  *spin
	ok bool // every continue seen so far came after a CAS
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
		return w.list(st.List, done)
	case *ast.IfStmt:
		if st.Init != nil {
			done = w.stmt(st.Init, done)
		}
		done = done || w.s.swaps(st.Cond)
		then := w.list(st.Body.List, done)
		other := done
		if st.Else != nil {
			other = w.stmt(st.Else, done)
		}
		return then && other
	case *ast.BranchStmt:
		switch st.Tok {
		case token.CONTINUE:
			w.ok = w.ok && done
		case token.BREAK:
			// Outside switch and select (refused below), a break
			// leaves this loop or an outer one.
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
			if blocking.IsCAS(fn) {
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

// bound notes the variables a condition that ends the loop reads.
func (s *spin) bound(cond ast.Expr) {
	astutil.Uses(s.info, cond, func(o types.Object) bool {
		s.bounds[o] = true
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
				// A helper that never blocks, read for its value.
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
		if astutil.Leaves(s.info, st.Body, s.loop, true) {
			s.waits(st.Cond)
		} else {
			s.expr(st.Cond)
		}
		s.depth++
		// A branch that always leaves runs once, at the end of the
		// wait: what it does (claim the slot, return the value) is not
		// part of the spin.
		if astutil.AlwaysLeaves(s.info, st.Body.List, s.loop, true) {
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
			s.bad = true
			return
		}
		for _, c := range st.Body.List {
			c := c.(*ast.CaseClause)
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
