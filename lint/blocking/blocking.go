package blocking

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

//go:embed doc.go
var doc string

// Analyzer computes and exports a Fact for every function of a package
// that never blocks or always blocks, and returns a *Result that answers
// for any function.
var Analyzer = &analysis.Analyzer{
	Name:       "blocking",
	Doc:        analysisutil.MustExtractDoc(doc, "blocking"),
	FactTypes:  []analysis.Fact{new(Fact)},
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run:        run,
}

// Kind is what a call of a function may do to the calling goroutine.
type Kind uint8

const (
	// MayBlock: the function may park the goroutine, or the analysis
	// cannot tell (an interface call, a func value, no body, no fact).
	MayBlock Kind = iota
	// NeverBlocks: nothing the function runs can park the goroutine.
	NeverBlocks
	// Blocks: a top-level statement of the function always parks (a bare
	// channel operation, a select without default, a lock, a sleep).
	Blocks
)

func (k Kind) String() string {
	switch k {
	case NeverBlocks:
		return "never blocks"
	case Blocks:
		return "blocks"
	}
	return "may block"
}

// Fact is what the analyzer exports for a function that never blocks or
// that blocks; a function without a fact may block.
type Fact struct {
	Kind Kind
	// Polls is set, for a function that never blocks, when it reads or
	// writes state another goroutine changes: a non-blocking channel
	// operation, an atomic operation, a TryLock, len of a channel.
	Polls bool
	// Loops is set, for a function that never blocks, when it (or a
	// function it calls) runs a loop: it does work in proportion to
	// its data, where a helper without loops only bumps a counter or
	// pops an item.
	Loops bool
	// Swaps is set, for a function that never blocks, when it (or a
	// function it calls) runs an atomic compare-and-swap: a loop that
	// goes round again only after such a call lost a race is a retry
	// loop bounded by contention, not a wait (spinwait).
	Swaps bool
	// Mutates is set, for a function that never blocks, when it (or a
	// function it calls) writes through a pointer: a field of a pointer
	// receiver, *p, an element. A helper such as a queue's pop consumes
	// what it returns, so a loop that goes round only after it returned
	// an item walks a finite list (busyselect).
	Mutates bool
	// Locks is set, for a function that does not surely never block,
	// when the only thing it (or a function it calls) may park on is a
	// sync.Mutex or RWMutex that it takes and releases itself (Lock with
	// an Unlock of the same mutex, RLock with an RUnlock): a critical
	// section, such as a queue's pop under its lock. The goroutine then
	// waits only while another one holds the lock, never for work to
	// arrive, so a poll around such a call still polls (sleeppoll).
	Locks bool
}

// AFact marks Fact as an analysis fact.
func (*Fact) AFact() {}

func (f *Fact) String() string {
	s := f.Kind.String()
	if f.Polls {
		s += ", polls"
	}
	if f.Loops {
		s += ", loops"
	}
	if f.Swaps {
		s += ", swaps"
	}
	if f.Mutates {
		s += ", mutates"
	}
	if f.Locks {
		s += ", locks"
	}
	return s
}

// Result answers, for the analyzed package, what a call of any function
// does: the package's own functions from the analysis, the standard
// library's from the table, other packages' from their facts.
type Result struct {
	local   map[*types.Func]Fact
	pkg     *types.Package
	import_ func(types.Object, analysis.Fact) bool

	mu    sync.Mutex
	cache map[*types.Func]Fact
}

// Of returns what a call of fn does. A nil fn (a func value) may block.
func (r *Result) Of(fn *types.Func) Fact {
	if fn == nil || fn.Pkg() == nil {
		return Fact{Kind: MayBlock}
	}
	fn = fn.Origin()
	if f, ok := r.local[fn]; ok {
		return f
	}
	if f, ok := stdFact(fn); ok {
		return f
	}
	if fn.Pkg() == r.pkg || r.import_ == nil {
		return Fact{Kind: MayBlock}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.cache[fn]; ok {
		return f
	}
	var f Fact
	if !r.import_(fn, &f) {
		f = Fact{Kind: MayBlock}
	}
	if r.cache == nil {
		r.cache = map[*types.Func]Fact{}
	}
	r.cache[fn] = f
	return f
}

// NeverBlocks reports whether a call of fn surely never parks the
// goroutine (astutil.Facts).
func (r *Result) NeverBlocks(fn *types.Func) bool {
	return r != nil && r.Of(fn).Kind == NeverBlocks
}

// Cheap answers astutil.Facts with the functions that never block and
// run no loop: calling one is a step, not work. A busy loop around a call
// of such a helper spins; one around a never-blocking function that loops
// may be a compute loop, and the analyzers stay silent on it.
func (r *Result) Cheap() astutil.Facts { return cheap{r} }

type cheap struct{ r *Result }

func (c cheap) NeverBlocks(fn *types.Func) bool {
	if c.r == nil {
		return false
	}
	f := c.r.Of(fn)
	return f.Kind == NeverBlocks && !f.Loops
}

// Name is how messages name fn: "pkg.F", "T.M".
func Name(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		t := sig.Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + fn.Name()
		}
	}
	if fn.Pkg() == nil {
		return fn.Name()
	}
	return fn.Pkg().Name() + "." + fn.Name()
}

// summary is one function's own behaviour, before its callees are known.
type summary struct {
	decl    *ast.FuncDecl
	blocks  bool          // something it runs may park (or is unknown)
	polls   bool          // it touches shared state without blocking
	loops   bool          // it runs a for or range loop
	swaps   bool          // it runs an atomic compare-and-swap
	mutates bool          // it writes through a pointer
	locks   bool          // it takes (and releases) a sync mutex: its only wait, unless blocks
	callees []*types.Func // functions of the same package it calls
}

func run(pass *analysis.Pass) (any, error) {
	res := &Result{local: map[*types.Func]Fact{}, pkg: pass.Pkg, import_: pass.ImportObjectFact}
	if pass.TypesInfo == nil || runtimeInternal(pass.Pkg.Path()) {
		return res, nil
	}
	sums := map[*types.Func]*summary{}
	var order []*types.Func
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			s := &summary{decl: fd, blocks: fd.Body == nil} // assembly or linkname: unknown
			if fd.Body != nil {
				w := walker{info: pass.TypesInfo, res: res, pkg: pass.Pkg, s: s}
				w.block(fd.Body)
				if !w.balanced() {
					s.blocks = true // a lock kept, or released, across calls: not a critical section
				}
			}
			sums[fn] = s
			order = append(order, fn)
		}
	}
	// The greatest fixed point: every function that blocks nowhere by
	// itself is assumed not to block until a callee is found that may.
	// A recursive cycle that blocks nowhere therefore never blocks.
	for changed := true; changed; {
		changed = false
		for _, fn := range order {
			s := sums[fn]
			for _, c := range s.callees {
				cs, ok := sums[c]
				switch {
				case s.blocks:
				case !ok || cs.blocks:
					s.blocks, changed = true, true
				default:
					if cs.locks && !s.locks {
						s.locks, changed = true, true
					}
					if cs.polls && !s.polls {
						s.polls, changed = true, true
					}
					if cs.loops && !s.loops {
						s.loops, changed = true, true
					}
					if cs.swaps && !s.swaps {
						s.swaps, changed = true, true
					}
					if cs.mutates && !s.mutates {
						s.mutates, changed = true, true
					}
				}
			}
		}
	}
	for _, fn := range order {
		if s := sums[fn]; !s.blocks && !s.locks {
			res.local[fn] = Fact{Kind: NeverBlocks, Polls: s.polls, Loops: s.loops, Swaps: s.swaps, Mutates: s.mutates}
		}
	}
	// Blocks is decided once the callees' facts are known.
	for _, fn := range order {
		s := sums[fn]
		switch {
		case (s.blocks || s.locks) && s.decl.Body != nil && alwaysBlocks(pass.TypesInfo, res, s.decl.Body.List):
			res.local[fn] = Fact{Kind: Blocks, Locks: !s.blocks}
		case !s.blocks && s.locks:
			res.local[fn] = Fact{Kind: MayBlock, Locks: true}
		}
	}
	for _, fn := range order {
		if f, ok := res.local[fn]; ok {
			pass.ExportObjectFact(fn, &f)
		}
	}
	return res, nil
}

// walker finds what a function body may do.
type walker struct {
	info *types.Info
	res  *Result
	pkg  *types.Package
	s    *summary

	// locked and unlocked are the mutexes the function takes and
	// releases, by receiver expression and kind ("q.mu Lock").
	locked, unlocked map[string]bool
}

// balanced reports whether every mutex the function takes it also
// releases (somewhere in its body, a defer included).
func (w *walker) balanced() bool {
	for m := range w.locked {
		if !w.unlocked[m] {
			return false
		}
	}
	return true
}

func (w *walker) block(body ast.Node) {
	// The channel operations of the cases of a select with a default
	// are tried, not waited for.
	tried := map[ast.Node]bool{}
	handoff := map[ast.Node]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || w.s.blocks {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // defining a closure runs nothing
		case *ast.GoStmt:
			w.s.blocks = true // starting work elsewhere: not a cheap helper
		case *ast.SelectStmt:
			if astutil.DefaultClause(n) == nil {
				w.s.blocks = true
				break
			}
			// A default that only panics asserts that the operation
			// succeeds (a hand-off to a worker known to be idle): it
			// delivers, it does not look for work another goroutine left.
			asserted := defaultPanics(w.info, n)
			for op := range astutil.TriedOps(n) {
				tried[op] = true
				if asserted {
					handoff[op] = true
				}
			}
		case *ast.SendStmt:
			if !tried[n] {
				w.s.blocks = true
			}
			if !handoff[n] {
				w.s.polls = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				if !tried[n] {
					w.s.blocks = true
				}
				if !handoff[n] {
					w.s.polls = true
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					w.lhs(l)
				}
			}
		case *ast.IncDecStmt:
			w.lhs(n.X)
		case *ast.ForStmt:
			w.s.loops = true
		case *ast.RangeStmt:
			w.s.loops = true
			if t := w.info.TypeOf(n.X); t == nil {
				w.s.blocks = true
			} else {
				switch t.Underlying().(type) {
				case *types.Chan, *types.Signature:
					w.s.blocks = true
				}
			}
		case *ast.CallExpr:
			w.call(n)
		}
		return !w.s.blocks
	})
}

// call notes what a call does.
func (w *walker) call(call *ast.CallExpr) {
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		w.block(lit.Body) // func() { ... }(): its body runs here
		return
	}
	if tv, ok := w.info.Types[call.Fun]; ok && tv.IsBuiltin() {
		id, _ := ast.Unparen(call.Fun).(*ast.Ident)
		switch {
		case id == nil:
			w.s.blocks = true
		case id.Name == "print" || id.Name == "println":
			w.s.blocks = true // writes to stderr
		case (id.Name == "len" || id.Name == "cap") && len(call.Args) == 1:
			if t := w.info.TypeOf(call.Args[0]); t != nil {
				if _, ok := t.Underlying().(*types.Chan); ok {
					w.s.polls = true
				}
			}
		}
		return
	}
	switch astutil.ClassifyCall(w.info, call) {
	case astutil.Read, astutil.Write, astutil.Yield:
		if fn := analysisutil.Callee(w.info, call); fn != nil && fn.Pkg() != nil {
			if f, ok := stdFact(fn); ok && f.Polls {
				w.s.polls = true
			}
			if astutil.IsAtomicLike(fn) {
				w.s.polls = true
			}
			if IsCAS(fn) {
				w.s.swaps = true
			}
		}
		return
	case astutil.Sleep:
		w.s.blocks = true
		return
	case astutil.Exit:
		if fn := analysisutil.Callee(w.info, call); fn == nil {
			return // panic: leaves, never parks
		}
		w.s.blocks = true // os.Exit, log.Fatal: I/O, and the caller never resumes
		return
	}
	if tv, ok := w.info.Types[call.Fun]; ok && tv.IsType() {
		return // a conversion
	}
	fn := analysisutil.Callee(w.info, call)
	if fn == nil {
		w.s.blocks = true // a func value
		return
	}
	fn = fn.Origin()
	if op, key := MutexOp(w.info, call); op != NotMutex {
		if w.locked == nil {
			w.locked, w.unlocked = map[string]bool{}, map[string]bool{}
		}
		if op == Lock {
			w.s.locks = true
			w.locked[key] = true
		} else {
			w.unlocked[key] = true
		}
		return
	}
	if fn.Pkg() == w.pkg {
		if isInterfaceMethod(fn) {
			w.s.blocks = true
			return
		}
		w.s.callees = append(w.s.callees, fn)
		return
	}
	switch f := w.res.Of(fn); {
	case f.Kind == NeverBlocks:
		w.s.polls = w.s.polls || f.Polls
		w.s.loops = w.s.loops || f.Loops
		w.s.swaps = w.s.swaps || f.Swaps
		w.s.mutates = w.s.mutates || f.Mutates
	case f.Locks:
		w.s.locks = true
	default:
		w.s.blocks = true
	}
}

// MutexKind is what a call does to a sync.Mutex or sync.RWMutex.
type MutexKind uint8

const (
	NotMutex MutexKind = iota // not a lock or unlock of a sync mutex
	Lock                      // Lock or RLock: may park while another goroutine holds it
	Unlock                    // Unlock or RUnlock: never parks
)

// MutexOp reports whether call takes or releases a sync.Mutex or
// sync.RWMutex (embedded ones included), and a key that names the mutex
// and the kind of hold, the same for a Lock and its Unlock ("q.mu w",
// "q.mu r"). TryLock is not a lock here: it never parks.
func MutexOp(info *types.Info, call *ast.CallExpr) (MutexKind, string) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return NotMutex, ""
	}
	fn := analysisutil.Callee(info, call)
	var op MutexKind
	hold := "w"
	switch {
	case analysisutil.IsMethod(fn, "sync", "Mutex", "Lock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Lock"):
		op = Lock
	case analysisutil.IsMethod(fn, "sync", "Mutex", "Unlock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Unlock"):
		op = Unlock
	case analysisutil.IsMethod(fn, "sync", "RWMutex", "RLock"):
		op, hold = Lock, "r"
	case analysisutil.IsMethod(fn, "sync", "RWMutex", "RUnlock"):
		op, hold = Unlock, "r"
	default:
		return NotMutex, ""
	}
	return op, types.ExprString(sel.X) + " " + hold
}

// lhs notes an assignment's target that is memory behind a pointer: *p,
// a field reached through a pointer, an element of a slice or map. A
// plain variable (local or package-level) or a field of a local value
// is not.
func (w *walker) lhs(e ast.Expr) {
	switch e := ast.Unparen(e).(type) {
	case *ast.StarExpr, *ast.IndexExpr, *ast.IndexListExpr:
		w.s.mutates = true
	case *ast.SelectorExpr:
		if sel, ok := w.info.Selections[e]; ok && sel.Kind() == types.FieldVal && sel.Indirect() {
			w.s.mutates = true
		}
	}
}

// IsCAS reports an atomic compare-and-swap: sync/atomic's functions and
// methods, and atomic-like types' CompareAndSwap or CAS methods.
func IsCAS(fn *types.Func) bool {
	if fn == nil || !astutil.IsAtomicLike(fn) {
		return false
	}
	return strings.HasPrefix(fn.Name(), "CompareAndSwap") || fn.Name() == "CAS"
}

// isInterfaceMethod reports whether fn is an abstract method, of an
// interface or a type parameter's constraint: the call is dynamic.
func isInterfaceMethod(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	return sig != nil && sig.Recv() != nil && types.IsInterface(sig.Recv().Type())
}

// alwaysBlocks reports whether one of list's own statements always parks.
func alwaysBlocks(info *types.Info, res *Result, list []ast.Stmt) bool {
	for _, st := range list {
		switch st := st.(type) {
		case *ast.SendStmt:
			return true
		case *ast.SelectStmt:
			if astutil.DefaultClause(st) == nil {
				return true
			}
		case *ast.ExprStmt:
			switch x := ast.Unparen(st.X).(type) {
			case *ast.UnaryExpr:
				if x.Op == token.ARROW {
					return true
				}
			case *ast.CallExpr:
				if fn := analysisutil.Callee(info, x); fn != nil && res.Of(fn).Kind == Blocks {
					return true
				}
			}
		case *ast.ReturnStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.BranchStmt:
			return false // what follows may not run
		}
	}
	return false
}

// Describe is the evidence label for a call of fn and its fact, such as
// "q.pop never blocks (per-function facts)".
func Describe(fn *types.Func, f Fact) string {
	if f.Kind != NeverBlocks && f.Locks {
		return fmt.Sprintf("%s only waits for a mutex it releases (per-function facts)", Name(fn))
	}
	return fmt.Sprintf("%s %s (per-function facts)", Name(fn), f.Kind)
}

// runtimeInternal reports the runtime and its internal packages, whose
// functions get no facts: they run where the goroutine cannot park (on
// system stacks, with preemption off) and spin by design, and their
// atomics are compiler intrinsics whose Go bodies (a plain *ptr on amd64)
// say nothing of what they do.
func runtimeInternal(path string) bool {
	return path == "runtime" || strings.HasPrefix(path, "internal/runtime/") || strings.HasPrefix(path, "runtime/internal/")
}

// defaultPanics reports whether sel's default clause is a lone call of
// panic.
func defaultPanics(info *types.Info, sel *ast.SelectStmt) bool {
	d := astutil.DefaultClause(sel)
	if d == nil || len(d.Body) != 1 {
		return false
	}
	es, ok := d.Body[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "panic"
}
