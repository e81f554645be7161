// Package astutil holds the syntax questions the schedoctor analyzers share:
// which loop a node runs in, whether a piece of code can leave that loop,
// what a call may do (block, write, yield, sleep, never return), and the
// value of a constant duration.
//
// Every answer leans to silence: when the code could block or leave in a
// way the analysis cannot see (an unknown call, a goto), the helpers say so,
// and the analyzers then report nothing. A missed case costs less than a
// false positive.
package astutil

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
)

// PollThreshold is the shortest sleep that counts as waiting: below it a
// sleep buys context switches, not time (time.Sleep(1µs) really sleeps
// about 0.4ms), and a loop around it polls.
const PollThreshold = time.Millisecond

// Loop is the loop a node runs in, with its label when it has one.
type Loop struct {
	Stmt  ast.Stmt     // *ast.ForStmt or *ast.RangeStmt
	Label *types.Label // nil when the loop is not labelled
	Index int          // index of Stmt in the stack it was found in
}

// Body is the loop's body.
func (l Loop) Body() *ast.BlockStmt {
	if f, ok := l.Stmt.(*ast.ForStmt); ok {
		return f.Body
	}
	return l.Stmt.(*ast.RangeStmt).Body
}

// EnclosingLoop returns the innermost loop, in the function that holds the
// last node of stack, that runs that node once per iteration: the node lies
// in a for statement's body, condition or post statement, or in a range
// statement's body. A function literal ends the search, so a closure started
// in a loop is not "in" it. ok is false when there is no such loop.
func EnclosingLoop(info *types.Info, stack []ast.Node) (loop Loop, ok bool) {
	for i := len(stack) - 2; i >= 0; i-- {
		child := stack[i+1]
		switch s := stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return Loop{}, false
		case *ast.ForStmt:
			if child == s.Init {
				continue
			}
		case *ast.RangeStmt:
			if child != s.Body {
				continue
			}
		default:
			continue
		}
		return LoopAt(info, stack, i), true
	}
	return Loop{}, false
}

// LoopAt returns the loop stack[i], a for or range statement, with the
// label of the statement that holds it, if any.
func LoopAt(info *types.Info, stack []ast.Node, i int) Loop {
	loop := Loop{Stmt: stack[i].(ast.Stmt), Index: i}
	if i > 0 {
		if l, ok := stack[i-1].(*ast.LabeledStmt); ok {
			loop.Label, _ = info.Defs[l.Label].(*types.Label)
		}
	}
	return loop
}

// IsCounted reports whether a for loop counts its way to the end: it has a
// condition and a post statement, and the condition reads a variable the
// post statement changes (for i := 0; i < n; i++, or a list walk). Such a
// loop is bounded, so a non-blocking step inside it is not a spin. A post
// statement that reads a value afresh (n = q.Len(), rereads) does not
// step: the loop polls.
func IsCounted(info *types.Info, f *ast.ForStmt) bool {
	if f.Cond == nil || f.Post == nil {
		return false
	}
	changed := map[types.Object]bool{}
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if obj := info.ObjectOf(id); obj != nil {
				changed[obj] = true
			}
		}
	}
	switch p := f.Post.(type) {
	case *ast.IncDecStmt:
		mark(p.X)
	case *ast.AssignStmt:
		if len(p.Rhs) == 1 && rereads(info, p.Rhs[0], p.Lhs) {
			break // n = q.Len(): the same reading again, not a step
		}
		for i, l := range p.Lhs {
			if len(p.Rhs) == len(p.Lhs) && rereads(info, p.Rhs[i], p.Lhs[i:i+1]) {
				continue
			}
			mark(l)
		}
	}
	return Uses(info, f.Cond, func(obj types.Object) bool { return changed[obj] })
}

// rereads reports whether the post statement's value e, assigned to lhs,
// reads something afresh rather than stepping from lhs: a call (not a
// conversion) whose arguments and receiver do not mention what lhs names
// (for n := q.Len(); n == 0; n = q.Len() { ... } polls; for x := l; x !=
// nil; x = x.Next() and for i := 0; i < n; i = next(i) step).
func rereads(info *types.Info, e ast.Expr, lhs []ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return false
	}
	objs := map[types.Object]bool{}
	for _, l := range lhs {
		if id, ok := ast.Unparen(l).(*ast.Ident); ok {
			if obj := info.ObjectOf(id); obj != nil {
				objs[obj] = true
			}
		} else {
			return false // a field or an element: leave it counted
		}
	}
	return !Uses(info, call, func(obj types.Object) bool { return objs[obj] })
}

// Uses reports whether n refers to an object for which pred is true.
func Uses(info *types.Info, n ast.Node, pred func(types.Object) bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if obj := info.Uses[id]; obj != nil && pred(obj) {
				found = true
			}
		}
		return !found
	})
	return found
}

// ConstDuration returns the value of e when it is a constant (a literal, a
// named constant, a constant expression such as 5 * time.Microsecond or
// time.Millisecond / 10), as a time.Duration.
func ConstDuration(info *types.Info, e ast.Expr) (time.Duration, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return 0, false
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return 0, false
	}
	i, exact := constant.Int64Val(v)
	if !exact {
		return 0, false
	}
	return time.Duration(i), true
}

// Call is what a call may do, as far as a spinning loop is concerned.
type Call int

const (
	// Unknown calls may block or do anything; callers stay silent.
	Unknown Call = iota
	// Read calls return a value and change nothing: len, cap, a
	// conversion, an atomic Load, ctx.Err, time.Now.
	Read
	// Write calls change memory but never block: an atomic Store, Add,
	// Swap or CompareAndSwap, append, copy, delete.
	Write
	// Yield is runtime.Gosched, which does not park the goroutine.
	Yield
	// Sleep is time.Sleep; whether it waits depends on its duration.
	Sleep
	// Exit calls never return: panic, os.Exit, runtime.Goexit, log.Fatal,
	// t.Fatal.
	Exit
	// NoBlock calls are of functions whose facts say they never block
	// (ClassifyCallFacts only).
	NoBlock
)

var builtins = map[string]Call{
	"len": Read, "cap": Read, "min": Read, "max": Read, "real": Read, "imag": Read, "complex": Read,
	"append": Write, "copy": Write, "delete": Write, "clear": Write, "new": Write, "make": Write,
	"panic": Exit,
}

// ClassifyCall says what call may do. Functions are told by their types.Func
// identity, so a user function called Sleep is Unknown.
func ClassifyCall(info *types.Info, call *ast.CallExpr) Call {
	if tv, ok := info.Types[call.Fun]; ok {
		if tv.IsType() {
			return Read // a conversion
		}
		if tv.IsBuiltin() {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				return builtins[id.Name] // Unknown for close, print, recover
			}
			return Unknown
		}
	}
	fn := analysisutil.Callee(info, call)
	switch {
	case fn == nil:
		return Unknown
	case analysisutil.IsFunc(fn, "runtime", "Gosched"):
		return Yield
	case analysisutil.IsFunc(fn, "time", "Sleep"):
		return Sleep
	case analysisutil.IsFunc(fn, "os", "Exit"),
		analysisutil.IsFunc(fn, "runtime", "Goexit"),
		analysisutil.IsFunc(fn, "log", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln"),
		analysisutil.IsMethod(fn, "log", "Logger", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln"),
		analysisutil.IsMethod(fn, "testing", "common", "FailNow", "Fatal", "Fatalf", "SkipNow", "Skip", "Skipf"),
		analysisutil.IsMethod(fn, "testing", "TB", "FailNow", "Fatal", "Fatalf", "SkipNow", "Skip", "Skipf"):
		return Exit
	case analysisutil.IsFunc(fn, "runtime", "NumGoroutine"),
		analysisutil.IsFunc(fn, "time", "Now", "Since", "Until"),
		analysisutil.IsMethod(fn, "time", "Time", "Before", "After", "Equal", "Sub", "IsZero"),
		analysisutil.IsMethod(fn, "context", "Context", "Err", "Done"):
		return Read
	case IsAtomicLike(fn):
		return atomicCall(fn)
	case analysisutil.IsMethod(fn, "sync", "Mutex", "TryLock"),
		analysisutil.IsMethod(fn, "sync", "RWMutex", "TryLock", "TryRLock"):
		return Write // takes the lock or fails at once
	}
	return Unknown
}

// IsAtomicLike reports whether fn is a function of sync/atomic, or a method
// of a type of a package whose path ends in /atomic (go.uber.org/atomic and
// its forks wrap sync/atomic in types with Load, Store, CAS, Inc methods).
func IsAtomicLike(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	if path == "sync/atomic" {
		return true
	}
	// internal/runtime/atomic is the runtime's own: only the runtime
	// spins on it, by design, where it cannot park.
	if !strings.HasSuffix(path, "/atomic") || strings.HasPrefix(path, "internal/") {
		return false
	}
	sig, ok := fn.Type().(*types.Signature)
	return ok && sig.Recv() != nil && atomicCall(fn) != Unknown
}

// atomicCall classifies a sync/atomic function (LoadInt32, AddInt64, ...)
// or a method of its types (Int64.Load, Bool.CompareAndSwap, ...).
func atomicCall(fn *types.Func) Call {
	name := fn.Name()
	if strings.HasPrefix(name, "Load") {
		return Read
	}
	for _, p := range []string{"Store", "Add", "Swap", "CompareAndSwap", "CAS", "And", "Or", "Sub", "Inc", "Dec", "Toggle"} {
		if strings.HasPrefix(name, p) {
			return Write
		}
	}
	return Unknown
}

// Facts answers, for the calls ClassifyCall does not know, whether a call
// of fn surely never parks the goroutine (lint/blocking computes it per
// function and exports it across packages).
type Facts interface {
	NeverBlocks(fn *types.Func) bool
}

// ClassifyCallFacts is ClassifyCall, with facts for the calls it does not
// know: a call of a function that never blocks is NoBlock.
func ClassifyCallFacts(info *types.Info, call *ast.CallExpr, facts Facts) Call {
	c := ClassifyCall(info, call)
	if c != Unknown || facts == nil {
		return c
	}
	if fn := analysisutil.Callee(info, call); fn != nil && facts.NeverBlocks(fn) {
		return NoBlock
	}
	return Unknown
}

// Effects is what running a piece of code may do, once.
type Effects struct {
	// Facts, when set, tells calls of functions that never block
	// (NoBlock) from unknown ones.
	Facts Facts
	// NoBlocks are the calls of functions that never block, by their
	// facts, in the order met.
	NoBlocks []*types.Func

	// MayBlock is set by anything that can park the goroutine or whose
	// effect is unknown: a channel operation, a select, a go or defer
	// statement, a range over a channel or a function, an Unknown call,
	// a time.Sleep that is not a constant under PollThreshold.
	MayBlock bool
	Writes   int             // Write calls
	Yields   int             // runtime.Gosched calls
	Sleeps   []time.Duration // constant sleeps under PollThreshold
	Exits    int             // Exit calls
}

// Scan adds the effects of n to e. skip, when not nil, names subtrees
// that are not run on the path being scanned (the cases of a select
// that a default is the alternative to). Function literals are not
// entered: defining one does nothing; calling one is an Unknown call.
func (e *Effects) Scan(info *types.Info, n ast.Node, skip func(ast.Node) bool) {
	tried := map[ast.Node]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil || e.MayBlock || (skip != nil && skip(n)) {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt:
			e.MayBlock = !tried[n]
		case *ast.GoStmt, *ast.DeferStmt:
			e.MayBlock = true
		case *ast.SelectStmt:
			// Without a default it blocks; with one, its cases'
			// channel operations are only tried, and their bodies
			// (scanned below unless skipped) decide.
			e.MayBlock = DefaultClause(n) == nil
			for op := range TriedOps(n) {
				tried[op] = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && !tried[n] {
				e.MayBlock = true
			}
		case *ast.RangeStmt:
			t := info.TypeOf(n.X)
			if t == nil {
				e.MayBlock = true
				break
			}
			switch t.Underlying().(type) {
			case *types.Chan, *types.Signature:
				e.MayBlock = true
			}
		case *ast.CallExpr:
			switch ClassifyCallFacts(info, n, e.Facts) {
			case Unknown:
				e.MayBlock = true
			case NoBlock:
				e.NoBlocks = append(e.NoBlocks, analysisutil.Callee(info, n))
			case Write:
				e.Writes++
			case Yield:
				e.Yields++
			case Exit:
				e.Exits++
			case Sleep:
				if len(n.Args) != 1 {
					e.MayBlock = true
					break
				}
				d, ok := ConstDuration(info, n.Args[0])
				if !ok || d >= PollThreshold {
					e.MayBlock = true
				} else {
					e.Sleeps = append(e.Sleeps, d)
				}
			}
		}
		return !e.MayBlock
	})
}

// Leaves reports whether running n can leave loop: a return, a goto, a
// break out of the loop (unlabelled where n is not inside a nested
// for, range, switch or select, or labelled with a label outside the
// loop), a continue to an outer loop, or a call that never returns.
// breakLeaves says whether an unlabelled break at the top of n breaks the
// loop itself: true for statements of the loop's body, false inside a
// select or switch clause, where break ends only that statement.
func Leaves(info *types.Info, n ast.Node, loop Loop, breakLeaves bool) bool {
	w := leaveFinder{info: info, loop: loop}
	w.walk(n, breakLeaves)
	return w.found
}

type leaveFinder struct {
	info  *types.Info
	loop  Loop
	found bool
}

func (w *leaveFinder) walk(root ast.Node, breakLeaves bool) {
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil || w.found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if n != root {
				w.walk(n, false)
				return false
			}
		case *ast.ReturnStmt:
			w.found = true
		case *ast.BranchStmt:
			w.found = w.branchLeaves(n, breakLeaves)
		case *ast.CallExpr:
			w.found = ClassifyCall(w.info, n) == Exit
		}
		return !w.found
	})
}

func (w *leaveFinder) branchLeaves(b *ast.BranchStmt, breakLeaves bool) bool {
	if b.Tok == token.GOTO {
		return true // conservatively: the label may be anywhere
	}
	if b.Label == nil {
		return b.Tok == token.BREAK && breakLeaves
	}
	l, _ := w.info.Uses[b.Label].(*types.Label)
	switch {
	case l == nil:
		return true
	case l == w.loop.Label:
		return b.Tok == token.BREAK // continue L is the next iteration
	default:
		// A label inside the loop names a statement nested in it;
		// one outside it names an enclosing statement.
		return l.Pos() < w.loop.Stmt.Pos() || l.Pos() >= w.loop.Stmt.End()
	}
}

// TriedOps returns the channel operations of sel's cases when sel has a
// default: the send statements and receive expressions that are tried
// once and never wait. It returns nil for a select without default.
func TriedOps(sel *ast.SelectStmt) map[ast.Node]bool {
	if DefaultClause(sel) == nil {
		return nil
	}
	ops := map[ast.Node]bool{}
	for _, c := range sel.Body.List {
		switch comm := c.(*ast.CommClause).Comm.(type) {
		case *ast.SendStmt:
			ops[comm] = true
		case *ast.ExprStmt:
			ops[ast.Unparen(comm.X)] = true
		case *ast.AssignStmt:
			if len(comm.Rhs) == 1 {
				ops[ast.Unparen(comm.Rhs[0])] = true
			}
		}
	}
	return ops
}

// DefaultClause returns the default clause of sel, or nil.
func DefaultClause(sel *ast.SelectStmt) *ast.CommClause {
	for _, c := range sel.Body.List {
		if c := c.(*ast.CommClause); c.Comm == nil {
			return c
		}
	}
	return nil
}

// Parents maps every node under root to its parent, so that an analyzer
// can climb from a use of a variable to the statement that consumes it.
func Parents(root ast.Node) map[ast.Node]ast.Node {
	parents := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return parents
}

// EnclosingFunc returns the body of the innermost function (declaration or
// literal) in stack, or nil.
func EnclosingFunc(stack []ast.Node) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}

// AlwaysLeaves reports whether running list surely leaves loop: one of its
// own statements (not one nested in an if or a loop) is a return, a goto,
// a break out of the loop or a call that never returns. A select case that
// always leaves runs at most once, however the loop is written.
func AlwaysLeaves(info *types.Info, list []ast.Stmt, loop Loop, breakLeaves bool) bool {
	for _, s := range list {
		switch s.(type) {
		case *ast.ReturnStmt, *ast.BranchStmt, *ast.ExprStmt:
			if Leaves(info, s, loop, breakLeaves) {
				return true
			}
		}
	}
	return false
}
