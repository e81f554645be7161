package analysisutil

import (
	"go/ast"
	"go/token"
	"go/types"
	"iter"
)

// Values records what one function body, or one package, assigns to its
// variables and struct fields, so that an analyzer can follow a value
// (a goroutine count, a timer's channel, a ticker) from the expression
// that makes it through the variables and fields that hold it to the
// statement that uses it.
//
// Every assignment is recorded with its right-hand side; an assignment
// whose value cannot be told (v1, v2 = f(), v++, v += x, a range
// variable, a variable whose address is taken) records a nil value, which
// the questions below read as "unknown" and answer conservatively.
type Values struct {
	info    *types.Info
	assigns map[types.Object][]ast.Expr
}

// NewValues scans the nodes (function bodies, or whole files) for
// assignments to variables and fields. Function literals inside are
// scanned too: a closure may assign a variable of its enclosing function.
func NewValues(info *types.Info, nodes ...ast.Node) *Values {
	v := &Values{info: info, assigns: map[types.Object][]ast.Expr{}}
	for _, n := range nodes {
		if n != nil {
			v.scan(n)
		}
	}
	return v
}

// Target returns the variable or field an assignable expression names:
// x, p.field, pkg.Var. It returns nil for anything else (an index
// expression, a dereference).
func Target(info *types.Info, e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := info.ObjectOf(e).(*types.Var); ok {
			return v
		}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[e]; ok {
			if sel.Kind() == types.FieldVal {
				return sel.Obj()
			}
			return nil
		}
		if v, ok := info.Uses[e.Sel].(*types.Var); ok {
			return v // a package-qualified variable
		}
	}
	return nil
}

func (v *Values) add(obj types.Object, rhs ast.Expr) {
	if obj != nil {
		v.assigns[obj] = append(v.assigns[obj], rhs)
	}
}

func (v *Values) scan(root ast.Node) {
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				switch {
				case len(n.Values) == len(n.Names):
					v.add(v.info.Defs[name], n.Values[i])
				case len(n.Values) > 0:
					v.add(v.info.Defs[name], nil)
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				obj := Target(v.info, l)
				if (n.Tok != token.ASSIGN && n.Tok != token.DEFINE) || len(n.Lhs) != len(n.Rhs) {
					v.add(obj, nil)
					continue
				}
				v.add(obj, n.Rhs[i])
			}
		case *ast.IncDecStmt:
			v.add(Target(v.info, n.X), nil)
		case *ast.RangeStmt:
			if n.Key != nil {
				v.add(Target(v.info, n.Key), nil)
			}
			if n.Value != nil {
				v.add(Target(v.info, n.Value), nil)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				v.add(Target(v.info, n.X), nil)
			}
		case *ast.CompositeLit:
			v.literal(n)
		}
		return true
	})
}

// literal records the fields a struct literal sets.
func (v *Values) literal(lit *ast.CompositeLit) {
	t := v.info.TypeOf(lit)
	if t == nil {
		return
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				if f, ok := v.info.Uses[id].(*types.Var); ok && f.IsField() {
					v.add(f, kv.Value)
				}
			}
			continue
		}
		if i < st.NumFields() {
			v.add(st.Field(i), el)
		}
	}
}

// Assigned returns the values assigned to obj in the scanned nodes, nil
// entries standing for values that cannot be told.
func (v *Values) Assigned(obj types.Object) []ast.Expr {
	return v.assigns[obj]
}

// All yields every variable and field assigned in the scanned nodes, with
// its values.
func (v *Values) All() iter.Seq2[types.Object, []ast.Expr] {
	return func(yield func(types.Object, []ast.Expr) bool) {
		for obj, vals := range v.assigns {
			if !yield(obj, vals) {
				return
			}
		}
	}
}

// Only returns the one value obj is ever given (its declaration's or its
// single assignment's), or nil when it is given none, several, or one that
// cannot be told. Only objects whose every assignment the scan saw should
// be asked: locals of a scanned body, unexported fields of a scanned
// package.
func (v *Values) Only(obj types.Object) ast.Expr {
	vals := v.assigns[obj]
	if len(vals) != 1 {
		return nil
	}
	return vals[0]
}

// Local reports whether obj is a variable local to a function (neither a
// package variable nor a field), so that every assignment to it lies in
// the function's body.
func Local(obj types.Object) bool {
	va, ok := obj.(*types.Var)
	if !ok || va.IsField() || va.Pkg() == nil || va.Parent() == nil {
		return false
	}
	return va.Parent() != va.Pkg().Scope()
}

// Derived returns the local variables whose value comes, directly or
// through other such variables, from an expression for which seed is
// true: n := runtime.NumGoroutine(); busy := n > limit makes both n and
// busy derived. A variable is derived when any of its assignments holds a
// seed or a derived variable, since one path suffices for the value to
// reach its uses.
func (v *Values) Derived(seed func(ast.Expr) bool) map[types.Object]bool {
	derived := map[types.Object]bool{}
	holds := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if found {
				return false
			}
			if _, ok := n.(*ast.FuncLit); ok {
				return false // defining a function does not compute the value
			}
			if x, ok := n.(ast.Expr); ok && seed(x) {
				found = true
			}
			if id, ok := n.(*ast.Ident); ok && derived[v.info.Uses[id]] {
				found = true
			}
			return !found
		})
		return found
	}
	for changed := true; changed; {
		changed = false
		for obj, vals := range v.assigns {
			if derived[obj] || !Local(obj) {
				continue
			}
			for _, e := range vals {
				if e != nil && holds(e) {
					derived[obj], changed = true, true
					break
				}
			}
		}
	}
	return derived
}
