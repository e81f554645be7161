package inspect

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// callKind is what a call does to the goroutine that makes it.
type callKind int

const (
	callPure     callKind = iota // computes nothing worth noting (builtins, conversions, writes)
	callWork                     // real computation, or a function we cannot see into
	callRead                     // reads shared state without blocking (an atomic load, ctx.Err)
	callCAS                      // a compare-and-swap
	callHelper                   // a function of this package that only reads or polls
	callYield                    // runtime.Gosched, time.Sleep(0)
	callSleep                    // a sleep below the poll threshold
	callSleepVar                 // a sleep whose length the source does not fix (a variable, a flag)
	callTimer                    // makes a timer
	callBlock                    // blocks: I/O, locks, long sleeps, channel operations
)

// maxCallDepth bounds how deep calls are followed into the package.
const maxCallDepth = 3

// blockingMethods are method names that block on any type we cannot see
// into (an interface, a type of another package): I/O and locks.
var blockingMethods = map[string]bool{
	"Read": true, "Write": true, "ReadFrom": true, "WriteTo": true, "ReadAt": true, "WriteAt": true,
	"ReadString": true, "ReadBytes": true, "ReadLine": true, "ReadRune": true, "ReadMsg": true,
	"WriteMsg": true, "Accept": true, "Dial": true, "DialContext": true, "Recv": true, "Send": true,
	"RecvMsg": true, "SendMsg": true, "Flush": true, "Sync": true, "Wait": true, "Lock": true,
	"RLock": true, "Acquire": true, "Do": true, "RoundTrip": true, "Exec": true, "Query": true,
	"QueryRow": true, "Get": true, "Put": true, "Take": true, "Next": true,
}

// ioPackages are standard packages whose functions and methods do I/O or
// otherwise block.
var ioPackages = map[string]bool{
	"net": true, "net/http": true, "os": true, "io": true, "io/ioutil": true, "bufio": true,
	"syscall": true, "os/exec": true, "database/sql": true, "os/signal": true, "log": true,
	"log/slog": true, "net/rpc": true, "crypto/tls": true, "golang.org/x/sys/unix": true,
}

// callKind classifies a call, with a few words on what it is.
func (w *walker) callKind(call *ast.CallExpr) (callKind, string) {
	fe := w.fe
	if tv, ok := fe.info.Types[call.Fun]; ok && tv.IsType() {
		return callPure, ""
	}
	name := fe.callName(call)
	pkg, recv, fn, decl := fe.callee(call)
	switch {
	case pkg == "" && recv == "" && decl == nil && fn == nil:
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
			if _, ok := fe.info.Uses[id].(*types.Builtin); ok || isBuiltinName(id.Name) {
				return callPure, ""
			}
		}
	}
	if decl != nil && (pkg == "" || fe.pkg == nil || pkg == fe.pkg.Path()) {
		return w.helper(decl, name)
	}
	base := name[strings.LastIndexByte(name, '.')+1:]
	switch {
	case recv == "" && pkg != "":
		return w.pkgFunc(pkg, base, call, name)
	case recv != "":
		switch pkg {
		case "sync/atomic":
			return atomicMethod(base, name)
		case "sync":
			switch base {
			case "Lock", "RLock", "Wait":
				return callBlock, name
			case "TryLock", "TryRLock":
				return callRead, name
			}
			return callPure, ""
		case "context":
			return callRead, name
		case "time":
			return callPure, ""
		}
		if ioPackages[pkg] {
			return callBlock, name
		}
		if finding.StdPackage(pkg) && !blockingMethods[base] {
			return callWork, name
		}
	}
	// A method of an interface or of a type we cannot see into: judge by
	// its name, the way a reader would.
	switch {
	case blockingMethods[base]:
		return callBlock, name
	case strings.HasPrefix(base, "CompareAndSwap") || base == "CAS":
		return callCAS, name
	case strings.HasPrefix(base, "Load") || base == "TryLock" || base == "TryRLock" || base == "Err" || base == "Done":
		return callRead, name
	}
	return callWork, name
}

func isBuiltinName(s string) bool {
	switch s {
	case "len", "cap", "append", "copy", "delete", "make", "new", "min", "max", "clear",
		"panic", "recover", "print", "println", "complex", "real", "imag", "close":
		return true
	}
	return false
}

func atomicMethod(base, name string) (callKind, string) {
	switch {
	case strings.HasPrefix(base, "CompareAndSwap"):
		return callCAS, name
	case strings.HasPrefix(base, "Load"):
		return callRead, name
	}
	return callPure, ""
}

// pkgFunc classifies a call of a package-level function of another
// package.
func (w *walker) pkgFunc(pkg, base string, call *ast.CallExpr, name string) (callKind, string) {
	switch pkg {
	case "time":
		switch base {
		case "Sleep":
			d, ok := w.duration(firstArg(call))
			switch {
			case ok && d <= 0:
				return callYield, fmt.Sprintf("time.Sleep(%s)", argString(call))
			case ok && d < pollThreshold:
				return callSleep, fmt.Sprintf("time.Sleep(%v)", d)
			case ok:
				return callBlock, fmt.Sprintf("time.Sleep(%v)", d)
			}
			// A flag or a variable: zero spins, a second waits. Neither
			// verdict is the source's to make (the profile's may be).
			return callSleepVar, fmt.Sprintf("time.Sleep(%s), a sleep of non-constant duration", argString(call))
		case "After", "NewTimer", "Tick", "NewTicker", "AfterFunc":
			return callTimer, name
		}
		return callPure, ""
	case "runtime":
		switch base {
		case "Gosched":
			return callYield, "runtime.Gosched()"
		case "NumGoroutine":
			return callRead, name
		case "GC":
			return callBlock, name
		}
		return callPure, ""
	case "sync/atomic":
		return atomicMethod(base, name)
	case "sync", "context", "errors", "unsafe":
		return callPure, ""
	case "fmt":
		if strings.HasPrefix(base, "Sprint") || strings.HasPrefix(base, "Append") || base == "Errorf" {
			return callWork, name
		}
		return callBlock, name + " (I/O)"
	case "os":
		switch base {
		case "Getenv", "LookupEnv", "Getpid", "Getppid", "Getuid", "Getwd", "Hostname", "Environ", "IsNotExist", "IsExist":
			return callPure, ""
		}
	}
	if ioPackages[pkg] {
		return callBlock, name
	}
	return callWork, name
}

// summary is what a function of the package does, for its callers.
type summary struct {
	block, yield, sleep, timer *op
	varSleep                   *op
	polls, work                bool
}

// helper classifies a call of a function declared in the package by what
// its body does (a few levels deep).
func (w *walker) helper(fd *ast.FuncDecl, name string) (callKind, string) {
	s := w.summarize(fd)
	if s == nil {
		return callWork, name
	}
	switch {
	case s.block != nil:
		return callBlock, fmt.Sprintf("%s (%s at line %d)", name, s.block.what, s.block.line)
	case s.timer != nil:
		return callTimer, fmt.Sprintf("%s (%s at line %d)", name, s.timer.what, s.timer.line)
	case s.sleep != nil:
		return callSleep, fmt.Sprintf("%s (%s at line %d)", name, s.sleep.what, s.sleep.line)
	case s.varSleep != nil:
		return callSleepVar, fmt.Sprintf("%s (%s at line %d)", name, s.varSleep.what, s.varSleep.line)
	case s.yield != nil:
		return callYield, fmt.Sprintf("%s (%s at line %d)", name, s.yield.what, s.yield.line)
	case s.work:
		return callWork, name
	}
	return callHelper, name + "()"
}

// summarize walks fd's body as straight-line code; nil when the call is
// too deep or recursive.
func (w *walker) summarize(fd *ast.FuncDecl) *summary {
	fe := w.fe
	fe.mu.Lock()
	s, ok := fe.summaries[fd]
	fe.mu.Unlock()
	if ok {
		return s
	}
	if w.depth >= maxCallDepth || w.visiting[fd] {
		return nil
	}
	visiting := map[*ast.FuncDecl]bool{fd: true}
	for k := range w.visiting {
		visiting[k] = true
	}
	sw := &walker{fe: fe, fn: fd.Body, depth: w.depth + 1, visiting: visiting}
	sw.inner = map[string]bool{}
	sw.assigned = map[any][]ast.Expr{}
	sw.progress = map[any]bool{}
	sw.tainted = map[any]bool{}
	sw.condKeys = map[any]bool{}
	sw.received = map[string]bool{}
	sw.list(fd.Body.List, ctx{idle: true})
	s = &summary{polls: len(sw.spinSelects) > 0, work: len(sw.work) > 0}
	first := func(ops []op) *op {
		if len(ops) == 0 {
			return nil
		}
		return &ops[0]
	}
	s.block, s.yield, s.sleep, s.timer = first(sw.blocking), first(sw.yields), first(sw.sleeps), first(sw.timers)
	s.varSleep = first(sw.varSleeps)
	// Kept even when computed deep down: a call cut short by the depth
	// limit or by recursion counts as work, which only ever turns a spin
	// verdict into compute, never the other way; and without the cache a
	// file of many small helpers would be walked exponentially often.
	fe.mu.Lock()
	fe.summaries[fd] = s
	fe.mu.Unlock()
	return s
}

// callee resolves a call: the package path of the function (or of the
// method's receiver type), the receiver type's name for a method, the
// function object when typed and its declaration when it is in the
// package.
func (fe *fileEntry) callee(call *ast.CallExpr) (pkg, recv string, fn *types.Func, decl *ast.FuncDecl) {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if o, ok := fe.info.Uses[f].(*types.Func); ok {
			fn = o
		} else if fe.info.Uses[f] == nil {
			for _, d := range fe.byName[f.Name] {
				if d.Recv == nil {
					decl = d
				}
			}
			return fe.pkgPath(), "", nil, decl
		}
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			if p := fe.importPath(id); p != "" {
				fn, _ = fe.info.Uses[f.Sel].(*types.Func)
				return p, "", fn, nil
			}
		}
		if sel, ok := fe.info.Selections[f]; ok {
			fn, _ = sel.Obj().(*types.Func)
			if t := namedOf(sel.Recv()); t != nil && t.Obj().Pkg() != nil {
				pkg, recv = t.Obj().Pkg().Path(), t.Obj().Name()
			}
		} else {
			// Untyped receiver: a method of the package only when exactly
			// one declaration has that name.
			var ds []*ast.FuncDecl
			for _, d := range fe.byName[f.Sel.Name] {
				if d.Recv != nil {
					ds = append(ds, d)
				}
			}
			if len(ds) == 1 {
				return fe.pkgPath(), "?", nil, ds[0]
			}
			return "", "", nil, nil
		}
	}
	if fn != nil {
		decl = fe.decls[fn]
		if fn.Pkg() != nil && pkg == "" {
			pkg = fn.Pkg().Path()
		}
	}
	return pkg, recv, fn, decl
}

func (fe *fileEntry) pkgPath() string {
	if fe.pkg != nil {
		return fe.pkg.Path()
	}
	return ""
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// importPath is the path of the package id names, "" when id is not an
// import name.
func (fe *fileEntry) importPath(id *ast.Ident) string {
	if o, ok := fe.info.Uses[id].(*types.PkgName); ok {
		return o.Imported().Path()
	}
	if fe.info.Uses[id] != nil {
		return ""
	}
	for _, f := range fe.files {
		if f.FileStart <= id.Pos() && id.Pos() < f.FileEnd {
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				name := p[strings.LastIndexByte(p, '/')+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				if name == id.Name {
					return p
				}
			}
		}
	}
	return ""
}

// isImportName reports whether the asked file imports a package as name.
func (fe *fileEntry) isImportName(name string) bool {
	for _, im := range fe.file.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		n := p[strings.LastIndexByte(p, '/')+1:]
		if im.Name != nil {
			n = im.Name.Name
		}
		if n == name {
			return true
		}
	}
	return false
}

// callName is how a call reads in a message: "time.Sleep" (the import
// path for a package function), "r.head.Load" for a method.
func (fe *fileEntry) callName(call *ast.CallExpr) string {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			if p := fe.importPath(id); p != "" {
				return p + "." + f.Sel.Name
			}
		}
		return types.ExprString(f)
	}
	return types.ExprString(call.Fun)
}

// isTimePkgCall reports a call of a function of package time.
func (fe *fileEntry) isTimePkgCall(call *ast.CallExpr) bool {
	return strings.HasPrefix(fe.callName(call), "time.")
}

// duration evaluates a duration: a constant, or a local constant or
// variable assigned once from one.
func (w *walker) duration(e ast.Expr) (time.Duration, bool) {
	return w.fe.durationOf(e, w.fn, 0)
}

var units = map[string]time.Duration{
	"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond, "Millisecond": time.Millisecond,
	"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour,
}

func (fe *fileEntry) durationOf(e ast.Expr, fn *ast.BlockStmt, depth int) (time.Duration, bool) {
	if e == nil || depth > 8 {
		return 0, false
	}
	if tv, ok := fe.info.Types[e]; ok && tv.Value != nil {
		switch tv.Value.Kind() {
		case constant.Int:
			v, exact := constant.Int64Val(tv.Value)
			return time.Duration(v), exact
		case constant.Float:
			v, _ := constant.Float64Val(tv.Value)
			return time.Duration(v), true
		}
		return 0, false
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return fe.durationOf(e.X, fn, depth+1)
	case *ast.BasicLit:
		switch e.Kind {
		case token.INT:
			v, err := strconv.ParseInt(e.Value, 0, 64)
			return time.Duration(v), err == nil
		case token.FLOAT:
			v, err := strconv.ParseFloat(e.Value, 64)
			return time.Duration(v), err == nil
		}
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok && fe.importPath(id) == "time" {
			d, ok := units[e.Sel.Name]
			return d, ok
		}
	case *ast.UnaryExpr:
		if e.Op == token.SUB {
			d, ok := fe.durationOf(e.X, fn, depth+1)
			return -d, ok
		}
	case *ast.BinaryExpr:
		x, ok1 := fe.durationOf(e.X, fn, depth+1)
		y, ok2 := fe.durationOf(e.Y, fn, depth+1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case token.MUL:
			return x * y, true
		case token.QUO:
			if y == 0 {
				return 0, false
			}
			return x / y, true
		case token.ADD:
			return x + y, true
		case token.SUB:
			return x - y, true
		}
	case *ast.CallExpr:
		// time.Duration(n), int64(n): a conversion.
		if len(e.Args) == 1 {
			if tv, ok := fe.info.Types[e.Fun]; (ok && tv.IsType()) || isDurationConv(fe, e.Fun) {
				return fe.durationOf(e.Args[0], fn, depth+1)
			}
		}
	case *ast.Ident:
		if rhs := fe.singleValue(e, fn); rhs != nil {
			return fe.durationOf(rhs, fn, depth+1)
		}
	}
	return 0, false
}

func isDurationConv(fe *fileEntry, f ast.Expr) bool {
	if sel, ok := f.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok && fe.importPath(id) == "time" && sel.Sel.Name == "Duration" {
			return true
		}
	}
	if id, ok := f.(*ast.Ident); ok {
		switch id.Name {
		case "int", "int64", "int32", "uint", "uint64", "float64":
			return fe.info.Uses[id] == nil || fe.info.Uses[id].Parent() == types.Universe
		}
	}
	return false
}

// singleValue returns the expression a constant or variable named by id
// holds when it is declared with a value and never assigned again; nil
// otherwise.
func (fe *fileEntry) singleValue(id *ast.Ident, fn *ast.BlockStmt) ast.Expr {
	obj := fe.info.Uses[id]
	var rhs ast.Expr
	defs, writes := 0, 0
	same := func(x *ast.Ident) bool {
		if obj != nil {
			return fe.info.Defs[x] == obj || fe.info.Uses[x] == obj
		}
		return x.Name == id.Name
	}
	scope := []ast.Node{}
	if obj != nil || fn == nil {
		for _, f := range fe.files {
			scope = append(scope, f)
		}
	} else {
		scope = append(scope, fn) // untyped: the name inside the function
		for _, f := range fe.files {
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok {
					scope = append(scope, g)
				}
			}
		}
	}
	for _, root := range scope {
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if same(name) && (obj == nil || fe.info.Defs[name] == obj) {
						defs++
						if i < len(n.Values) {
							rhs = n.Values[i]
						} else if len(n.Values) == 0 && defs == 1 {
							rhs = nil
						}
					}
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					x, ok := ast.Unparen(l).(*ast.Ident)
					if !ok || !same(x) {
						continue
					}
					if n.Tok == token.DEFINE && (obj == nil || fe.info.Defs[x] == obj) {
						defs++
						if len(n.Rhs) == len(n.Lhs) {
							rhs = n.Rhs[i]
						}
						continue
					}
					writes++
				}
			case *ast.IncDecStmt:
				if x, ok := ast.Unparen(n.X).(*ast.Ident); ok && same(x) {
					writes++
				}
			case *ast.UnaryExpr:
				if x, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && same(x) {
					writes++ // its address escapes: anything may write it
				}
			}
			return true
		})
	}
	if defs != 1 || writes > 0 {
		return nil
	}
	return rhs
}
