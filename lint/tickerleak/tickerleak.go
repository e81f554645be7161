package tickerleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	xastutil "golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Analyzer reports rule SD105, ticker-leak.
var Analyzer = &analysis.Analyzer{
	Name:       "tickerleak",
	Doc:        analysisutil.RuleDoc(rule),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD105"

// collected is the first go line under which the runtime collects
// unreferenced tickers.
const collected = "go1.23"

// shortTimer is the constant timeout under which a timer left running is
// not reported: it leaves the heap within that time whatever happens.
const shortTimer = time.Second

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	goVersion := analysisutil.ModuleGoVersion(pass)
	if goVersion == "" || version.Compare(goVersion, collected) >= 0 || !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	minor := 0
	fmt.Sscanf(strings.TrimPrefix(goVersion, "go1."), "%d", &minor)
	c := &checker{
		pass:   pass,
		res:    res,
		lang:   strings.TrimPrefix(goVersion, "go"),
		minor:  float64(minor),
		values: analysisutil.NewValues(pass.TypesInfo, nonTestFiles(pass)...),
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	ins.WithStack([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		call := n.(*ast.CallExpr)
		fn := analysisutil.Callee(pass.TypesInfo, call)
		if !push || !analysisutil.IsFunc(fn, "time", "NewTicker", "Tick", "NewTimer") || len(call.Args) != 1 || analysisutil.IsTestFile(pass, call.Pos()) {
			return true
		}
		c.check(call, fn.Name(), stack)
		return true
	})
	return res, nil
}

type checker struct {
	pass   *analysis.Pass
	res    *evidence.Result
	lang   string  // the module's go line, "1.22"
	minor  float64 // its minor version, for the evidence
	values *analysisutil.Values

	bounded map[*types.Func]bool // boundedFuncs' answer, computed at the first time.Tick
}

func nonTestFiles(pass *analysis.Pass) []ast.Node {
	var files []ast.Node
	for _, f := range pass.Files {
		if !analysisutil.IsTestFile(pass, f.Pos()) {
			files = append(files, f)
		}
	}
	return files
}

func (c *checker) check(call *ast.CallExpr, name string, stack []ast.Node) {
	info := c.pass.TypesInfo
	ev := []finding.Evidence{{Label: "module go line, minor version", Value: c.minor}}
	d, known := astutil.ConstDuration(info, call.Args[0])
	if known {
		label := "period"
		if name == "NewTimer" {
			label = "timeout"
		}
		ev = append(ev, finding.Evidence{Label: label, Value: float64(d) / float64(time.Millisecond), Unit: "ms"})
	}
	switch name {
	case "NewTicker":
		if neverStopped(info, c.values, call, stack) {
			analysisutil.Report(c.pass, c.res, rule, call,
				fmt.Sprintf("ticker is never stopped, and under the module's go %s line never collected; defer its Stop or move the module to go 1.23", c.lang), ev)
			return
		}
		if field, closer := c.fieldNeverStopped(call, stack); field != nil {
			ev = append(ev, finding.Evidence{Label: closer.Name() + " method at line", Value: analysisutil.Line(c.pass, closer.Pos())})
			owner := recvName(closer)
			analysisutil.Report(c.pass, c.res, rule, call,
				fmt.Sprintf("ticker kept in field %s.%s is never stopped, not even by %s.%s, and under the module's go %s line never collected; stop it in %s",
					owner, field.Name(), owner, closer.Name(), c.lang, closer.Name()), ev)
		}
	case "Tick":
		if c.tickLeaks(call, stack) {
			analysisutil.Report(c.pass, c.res, rule, call,
				fmt.Sprintf("time.Tick's ticker cannot be stopped, and under the module's go %s line is never collected after this function returns; use time.NewTicker with defer Stop, or move the module to go 1.23", c.lang), ev)
		}
	case "NewTimer":
		if known && d < shortTimer {
			return // leaves the heap within shortTimer whatever happens
		}
		if ret := c.timerUnstopped(call, stack); ret.IsValid() {
			ev = append(ev, finding.Evidence{Label: "return without Stop at line", Value: analysisutil.Line(c.pass, ret)})
			wait := "until it fires"
			if known {
				wait = fmt.Sprintf("for %v, until it fires", d)
			}
			analysisutil.Report(c.pass, c.res, rule, call,
				fmt.Sprintf("timer is not stopped when the function returns at line %d before it fires; under the module's go %s line it stays on the timer heap %s; defer its Stop",
					int(analysisutil.Line(c.pass, ret)), c.lang, wait), ev)
		}
	}
}

// neverStopped reports whether the ticker that call makes is dropped
// without Stop: only its C is kept, or it is assigned to a local variable
// whose every use reads C or calls Reset. Any other use (Stop, return,
// argument, assignment, a struct field) lets it escape or be stopped; a
// function that never returns keeps it for the life of the program.
func neverStopped(info *types.Info, values *analysisutil.Values, call *ast.CallExpr, stack []ast.Node) bool {
	var id *ast.Ident
	switch p := stack[len(stack)-2].(type) {
	case *ast.SelectorExpr:
		return p.Sel.Name == "C"
	case *ast.AssignStmt:
		if len(p.Lhs) == 1 && len(p.Rhs) == 1 {
			id, _ = p.Lhs[0].(*ast.Ident)
		}
	case *ast.ValueSpec:
		if len(p.Names) == 1 && len(p.Values) == 1 {
			id = p.Names[0]
		}
	}
	if id == nil {
		return false
	}
	v, _ := info.ObjectOf(id).(*types.Var)
	body := astutil.EnclosingFunc(stack)
	if v == nil || body == nil || v.Parent() == v.Pkg().Scope() || endless(info, values, body, call.Pos()) {
		return false // an endless function needs its ticker for life
	}
	parents := astutil.Parents(body)
	stopped := false
	ast.Inspect(body, func(n ast.Node) bool {
		use, ok := n.(*ast.Ident)
		if !ok || use == id || info.Uses[use] != v {
			return !stopped
		}
		sel, ok := parents[use].(*ast.SelectorExpr)
		if !ok || sel.X != use || (sel.Sel.Name != "C" && sel.Sel.Name != "Reset") {
			stopped = true // Stop, or it escapes
		}
		return !stopped
	})
	return !stopped
}

// closerNames are the methods that end an object's life: a ticker the
// object keeps must be stopped by one of them (or by any other method).
var closerNames = []string{"close", "stop", "shutdown"}

// fieldNeverStopped handles a ticker stored in an unexported struct field
// (s.t = time.NewTicker(d), or &server{t: time.NewTicker(d)}) of a type
// that has a Close, Stop or Shutdown method: when no code of the package
// stops the field's ticker and the ticker never leaves the field, it
// returns the field and that method. A type without such a method may
// live as long as the program, and is not reported.
func (c *checker) fieldNeverStopped(call *ast.CallExpr, stack []ast.Node) (*types.Var, *types.Func) {
	info := c.pass.TypesInfo
	var field *types.Var
	var owner types.Type
	switch p := stack[len(stack)-2].(type) {
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || len(p.Rhs) != 1 {
			return nil, nil
		}
		sel, ok := ast.Unparen(p.Lhs[0]).(*ast.SelectorExpr)
		if !ok {
			return nil, nil
		}
		s, ok := info.Selections[sel]
		if !ok || s.Kind() != types.FieldVal {
			return nil, nil
		}
		field, owner = s.Obj().(*types.Var), s.Recv()
	case *ast.KeyValueExpr:
		lit, ok := stack[len(stack)-3].(*ast.CompositeLit)
		id, isID := p.Key.(*ast.Ident)
		if !ok || !isID {
			return nil, nil
		}
		field, _ = info.Uses[id].(*types.Var)
		owner = info.TypeOf(lit)
	}
	if field == nil || !field.IsField() || field.Exported() || owner == nil {
		return nil, nil
	}
	if ptr, ok := owner.Underlying().(*types.Pointer); ok {
		owner = ptr.Elem()
	}
	named, ok := types.Unalias(owner).(*types.Named)
	if !ok {
		return nil, nil
	}
	var closer *types.Func
	for m := range named.Methods() {
		if slices.ContainsFunc(closerNames, func(n string) bool { return strings.EqualFold(m.Name(), n) }) {
			closer = m
			break
		}
	}
	if closer == nil || c.fieldStoppedOrEscapes(field) {
		return nil, nil
	}
	return field, closer
}

// fieldStoppedOrEscapes reports whether some code of the package (outside
// _test.go files) calls Stop on the field's ticker, or uses the field for
// anything but reading C, calling Reset, comparing it with nil or
// assigning it: the ticker may then be stopped elsewhere.
func (c *checker) fieldStoppedOrEscapes(field *types.Var) bool {
	for _, f := range c.pass.Files {
		if analysisutil.IsTestFile(c.pass, f.Pos()) {
			continue
		}
		var parents map[ast.Node]ast.Node
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if found || !ok {
				return !found
			}
			s, ok := c.pass.TypesInfo.Selections[sel]
			if !ok || s.Obj() != field {
				return true
			}
			if parents == nil {
				parents = astutil.Parents(f)
			}
			switch p := parents[sel].(type) {
			case *ast.SelectorExpr:
				found = p.Sel.Name != "C" && p.Sel.Name != "Reset" // Stop, or a method value
			case *ast.AssignStmt:
				found = !slices.Contains(p.Lhs, ast.Expr(sel))
			case *ast.BinaryExpr:
				found = p.Op != token.EQL && p.Op != token.NEQ
			default:
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// recvName is the name of the type a method is declared on.
func recvName(m *types.Func) string {
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return "?"
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return "?"
}

// timerUnstopped handles t := time.NewTimer(d) used as a timeout: t.C is
// received in a select with other cases, so the function can go on and
// return before the timer fires. It returns the position of the first
// return (or the end of the function) that no t.Stop() precedes and that
// is not reached through the t.C case; NoPos when every exit stops the
// timer, when a defer does, or when the timer escapes (returned, passed,
// stored, used in a closure).
func (c *checker) timerUnstopped(call *ast.CallExpr, stack []ast.Node) token.Pos {
	info := c.pass.TypesInfo
	as, ok := stack[len(stack)-2].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return token.NoPos
	}
	v := analysisutil.Target(info, as.Lhs[0])
	body := astutil.EnclosingFunc(stack)
	if v == nil || !analysisutil.Local(v) || body == nil || endless(info, c.values, body, call.Pos()) {
		return token.NoPos
	}
	parents := astutil.Parents(body)
	isStop := func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Stop" {
			return false
		}
		id, ok := ast.Unparen(sel.X).(*ast.Ident)
		return ok && info.Uses[id] == v
	}
	escapes, timeout := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		if escapes {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			// A closure (deferred, or run later) that touches the
			// timer may stop it: leave it be.
			escapes = astutil.Uses(info, n, func(o types.Object) bool { return o == v })
			return false
		case *ast.DeferStmt:
			escapes = isStop(n.Call)
		case *ast.Ident:
			if info.Uses[n] != v {
				break
			}
			sel, ok := parents[n].(*ast.SelectorExpr)
			if as, isAssign := parents[n].(*ast.AssignStmt); isAssign && slices.Contains(as.Lhs, ast.Expr(n)) {
				break // t = time.NewTimer(d) again; t on the right escapes
			}
			escapes = !ok || (sel.Sel.Name != "C" && sel.Sel.Name != "Reset" && sel.Sel.Name != "Stop")
		case *ast.SelectStmt:
			if len(n.Body.List) > 1 {
				for _, cl := range n.Body.List {
					if receivesC(info, cl.(*ast.CommClause).Comm, v) {
						timeout = true
					}
				}
			}
		}
		return !escapes
	})
	if escapes || !timeout {
		return token.NoPos
	}
	// stopsOrFires reports whether running n calls t.Stop() or waits for
	// t.C; a select's case that receives t.C is only one way out of it,
	// not a wait.
	var stopsOrFires func(n ast.Node) bool
	stopsOrFires = func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CommClause:
				for _, s := range n.Body {
					found = found || stopsOrFires(s)
				}
				return false
			case *ast.ExprStmt:
				found = found || receivesC(info, n, v)
			}
			found = found || isStop(n)
			return !found
		})
		return found
	}
	// covered reports whether a Stop, or a receive from t.C (the timer has
	// fired), runs on the way to the exit n.
	covered := func(n ast.Node) bool {
		for child, p := n, parents[n]; p != nil; child, p = p, parents[p] {
			var list []ast.Stmt
			switch p := p.(type) {
			case *ast.CommClause:
				if receivesC(info, p.Comm, v) {
					return true
				}
				list = p.Body
			case *ast.BlockStmt:
				switch parents[p].(type) {
				case *ast.SelectStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt:
					// The other clauses are alternatives, not steps
					// taken before this one.
				default:
					list = p.List
				}
			case *ast.CaseClause:
				list = p.Body
			}
			for _, s := range list {
				if s == child {
					break
				}
				if s.End() <= call.Pos() {
					continue // before the timer is made
				}
				if stopsOrFires(s) {
					return true
				}
			}
		}
		return false
	}
	first := token.NoPos
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok || first.IsValid() {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok && r.Pos() > call.Pos() && !covered(r) {
			first = r.Pos()
		}
		return true
	})
	if first.IsValid() || len(body.List) == 0 {
		return first
	}
	// The end of the function, when it can be reached.
	switch last := body.List[len(body.List)-1].(type) {
	case *ast.ReturnStmt:
		return token.NoPos
	case *ast.ForStmt:
		if last.Cond == nil {
			return token.NoPos // left by its returns, checked above
		}
	}
	end := &ast.EmptyStmt{Semicolon: body.Rbrace, Implicit: true}
	parents[end] = body
	if covered(end) {
		return token.NoPos
	}
	return body.Rbrace
}

// receivesC reports whether the statement receives from v.C.
func receivesC(info *types.Info, comm ast.Stmt, v types.Object) bool {
	ch := astutil.Received(comm)
	if ch == nil {
		return false
	}
	sel, ok := ch.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	return ok && info.Uses[id] == v
}

// tickLeaks reports whether a time.Tick in the function at the top of
// stack can outlive it: not in main or init, not in a function that ends
// in a loop it never leaves.
func (c *checker) tickLeaks(call *ast.CallExpr, stack []ast.Node) bool {
	pass, values := c.pass, c.values
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			if f.Recv == nil && (f.Name.Name == "init" || f.Name.Name == "main" && pass.Pkg.Name() == "main") {
				return false
			}
			if c.calledOnceByMain(f) {
				return false
			}
			return !endless(pass.TypesInfo, values, f.Body, call.Pos())
		case *ast.FuncLit:
			return !endless(pass.TypesInfo, values, f.Body, call.Pos())
		}
	}
	return false // a package-level initializer runs once
}

// calledOnceByMain reports a function or method of package main that
// runs a bounded number of times: every use of it is a call in the body
// of main, or of another function that runs a bounded number of times,
// outside any loop, go, defer or closure; and, for an unexported method,
// so is every call through an interface of the package that it
// implements (a command table: main looks the command up and calls
// cmd.run(args) once). Its tickers are a fixed few for the life of the
// process, as main's own are, not one more per request. A function used
// as a value (a handler, a callback) runs as often as whoever holds it
// calls it, so it is not one; nor is an exported method, which another
// package's interface can reach (http.Handler's ServeHTTP).
func (c *checker) calledOnceByMain(decl *ast.FuncDecl) bool {
	if c.pass.Pkg.Name() != "main" || decl.Name.Name == "main" {
		return false
	}
	fn, ok := c.pass.TypesInfo.Defs[decl.Name].(*types.Func)
	if !ok {
		return false
	}
	if c.bounded == nil {
		c.bounded = boundedFuncs(c.pass)
	}
	return c.bounded[fn]
}

// boundedFuncs computes, to a fixed point from main, the functions and
// methods of package main that run a bounded number of times (see
// calledOnceByMain).
func boundedFuncs(pass *analysis.Pass) map[*types.Func]bool {
	info := pass.TypesInfo
	decls := map[*types.Func]*ast.FuncDecl{}
	var mainFn *types.Func
	// calls of each function: the call sites of its static uses, or
	// (for an unexported method) of interface methods it implements.
	type site struct {
		file *ast.File
		id   *ast.Ident
	}
	uses := map[*types.Func][]site{}
	ifaceCalls := map[string][]site{} // unexported interface method name → call sites
	ifaceOf := map[*ast.Ident]types.Type{}
	for _, file := range pass.Files {
		if analysisutil.IsTestFile(pass, file.Pos()) {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := info.Defs[n.Name].(*types.Func); ok {
					decls[fn] = n
					if n.Recv == nil && n.Name.Name == "main" {
						mainFn = fn
					}
				}
			case *ast.SelectorExpr:
				if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal && types.IsInterface(sel.Recv()) && !n.Sel.IsExported() {
					ifaceCalls[n.Sel.Name] = append(ifaceCalls[n.Sel.Name], site{file, n.Sel})
					ifaceOf[n.Sel] = sel.Recv()
				}
			case *ast.Ident:
				if f, ok := info.Uses[n].(*types.Func); ok && f.Pkg() == pass.Pkg {
					uses[f.Origin()] = append(uses[f.Origin()], site{file, n})
				}
			}
			return true
		})
	}
	bounded := map[*types.Func]bool{}
	if mainFn == nil {
		return bounded
	}
	bounded[mainFn] = true
	// inBounded reports whether the use at s is a call made in the body
	// of a function already known to run a bounded number of times, with
	// no loop, go, defer or closure on the way.
	inBounded := func(s site) bool {
		path, _ := xastutil.PathEnclosingInterval(s.file, s.id.Pos(), s.id.End())
		caller := onceIn(path, s.id)
		if caller == nil {
			return false
		}
		fn, ok := info.Defs[caller.Name].(*types.Func)
		return ok && bounded[fn]
	}
	for changed := true; changed; {
		changed = false
		for fn, decl := range decls {
			if bounded[fn] || decl.Name.Name == "init" {
				continue
			}
			sites := uses[fn]
			if sig, _ := fn.Type().(*types.Signature); sig != nil && sig.Recv() != nil {
				if fn.Exported() {
					continue
				}
				recv := sig.Recv().Type()
				for _, s := range ifaceCalls[fn.Name()] {
					it, _ := ifaceOf[s.id].Underlying().(*types.Interface)
					if it != nil && (types.Implements(recv, it) || types.Implements(types.NewPointer(recv), it)) {
						sites = append(sites, s)
					}
				}
			}
			if len(sites) == 0 {
				continue // never called (or only from tests)
			}
			all := true
			for _, s := range sites {
				if !inBounded(s) {
					all = false
					break
				}
			}
			if all {
				bounded[fn] = true
				changed = true
			}
		}
	}
	return bounded
}

// onceIn returns the function declaration whose body makes the call of
// use that path (from use up to its file) leads through, when no loop,
// go, defer or closure is on the way; nil otherwise, and when use is not
// the called function of a call (a function value).
func onceIn(path []ast.Node, use *ast.Ident) *ast.FuncDecl {
	if len(path) < 3 {
		return nil
	}
	// use is the call's Fun: f(...) or x.f(...).
	i := 1
	if sel, ok := path[i].(*ast.SelectorExpr); ok && sel.Sel == use {
		i++
	}
	call, ok := path[i].(*ast.CallExpr)
	if !ok || (call.Fun != use && ast.Unparen(call.Fun) != path[i-1]) {
		return nil
	}
	for _, n := range path[i+1:] {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.GoStmt, *ast.DeferStmt, *ast.FuncLit:
			return nil
		case *ast.FuncDecl:
			return n
		}
	}
	return nil
}

// endless reports whether a function body never returns once the ticker
// made at from exists: it holds no return statement after from (a return
// before it, such as "if !enabled { return }", leaves before the ticker
// is made) and ends in a for loop without condition, or a range
// over a ticker's channel (the only channel sure never to be closed), that
// nothing leaves. A range over any other channel ends when the channel is
// closed, and the function returns.
func endless(info *types.Info, values *analysisutil.Values, body *ast.BlockStmt, from token.Pos) bool {
	if body == nil || len(body.List) == 0 {
		return false
	}
	returns := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			returns = n.Pos() > from
		}
		return !returns
	})
	if returns {
		return false
	}
	last := body.List[len(body.List)-1]
	loop := astutil.Loop{Stmt: last}
	if l, ok := last.(*ast.LabeledStmt); ok {
		loop.Stmt = l.Stmt
		loop.Label, _ = info.Defs[l.Label].(*types.Label)
	}
	switch s := loop.Stmt.(type) {
	case *ast.ForStmt:
		if s.Cond != nil {
			return false
		}
	case *ast.RangeStmt:
		if !tickerChan(info, values, s.X, 0) {
			return false // a slice, a map, a number or a closable channel runs out
		}
	default:
		return false
	}
	return !astutil.Leaves(info, loop.Body(), loop, true)
}

// tickerChan reports whether e is a ticker's channel: time.Tick(d), t.C of
// a *time.Ticker, or a local variable whose one value is such a channel.
func tickerChan(info *types.Info, values *analysisutil.Values, e ast.Expr, depth int) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		return analysisutil.IsFunc(analysisutil.Callee(info, e), "time", "Tick")
	case *ast.SelectorExpr:
		if e.Sel.Name != "C" {
			return false
		}
		t := info.TypeOf(e.X)
		if t == nil {
			return false
		}
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Ticker"
	case *ast.Ident:
		obj := info.Uses[e]
		if depth > 3 || obj == nil || !analysisutil.Local(obj) {
			return false
		}
		if v := values.Only(obj); v != nil {
			return tickerChan(info, values, v, depth+1)
		}
	}
	return false
}
