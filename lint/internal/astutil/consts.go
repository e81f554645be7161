package astutil

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"time"
)

// Consts knows, for the unexported variables and struct fields of one
// package, the constant values they are ever given: `d := 50 *
// time.Microsecond` and never assigned again, a package-level `var poll =
// 100 * time.Microsecond`, a field set only by keyed literals and
// assignments of constants (`&worker{idle: 50 * time.Microsecond}` in a
// constructor). A variable or field that is also given a computed value,
// changed with an operator (d *= 2, d++), ranged into, or whose address is
// taken, has no known value.
//
// Exported variables and fields are left unknown: another package may set
// them.
type Consts struct {
	vals   map[types.Object][]constant.Value
	poison map[types.Object]bool
}

// NewConsts scans files (skip, when not nil, leaves some out, such as
// _test.go files, whose assignments do not run in the program).
func NewConsts(info *types.Info, files []*ast.File, skip func(*ast.File) bool) *Consts {
	c := &Consts{vals: map[types.Object][]constant.Value{}, poison: map[types.Object]bool{}}
	for _, f := range files {
		if skip != nil && skip(f) {
			continue
		}
		c.scan(info, f)
	}
	return c
}

// target returns the variable or field an assignable expression names.
func target(info *types.Info, e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := info.ObjectOf(e).(*types.Var); ok {
			return v
		}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			return sel.Obj()
		}
		if v, ok := info.Uses[e.Sel].(*types.Var); ok {
			return v // a package-qualified variable
		}
	}
	return nil
}

func (c *Consts) set(info *types.Info, obj types.Object, rhs ast.Expr) {
	if obj == nil {
		return
	}
	if rhs == nil {
		c.poison[obj] = true
		return
	}
	if tv, ok := info.Types[rhs]; ok && tv.Value != nil {
		c.vals[obj] = append(c.vals[obj], tv.Value)
		return
	}
	c.poison[obj] = true
}

func (c *Consts) scan(info *types.Info, f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				obj := info.Defs[name]
				switch {
				case len(n.Values) == len(n.Names):
					c.set(info, obj, n.Values[i])
				case len(n.Values) > 0:
					c.set(info, obj, nil) // v1, v2 = f()
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				obj := target(info, l)
				if n.Tok != token.ASSIGN && n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) {
					c.set(info, obj, nil)
					continue
				}
				c.set(info, obj, n.Rhs[i])
			}
		case *ast.IncDecStmt:
			c.set(info, target(info, n.X), nil)
		case *ast.RangeStmt:
			if n.Key != nil {
				c.set(info, target(info, n.Key), nil)
			}
			if n.Value != nil {
				c.set(info, target(info, n.Value), nil)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				c.set(info, target(info, n.X), nil)
			}
		case *ast.CompositeLit:
			c.literal(info, n)
		case *ast.FuncDecl:
			if n.Recv != nil {
				c.params(info, n.Recv)
			}
		case *ast.FuncType:
			// Parameters and results get their values from callers
			// and return statements.
			c.params(info, n.Params)
			c.params(info, n.Results)
		}
		return true
	})
}

// literal records the fields a struct literal sets.
func (c *Consts) literal(info *types.Info, lit *ast.CompositeLit) {
	t := info.TypeOf(lit)
	if t == nil {
		return
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		if p, isPtr := t.Underlying().(*types.Pointer); isPtr {
			st, ok = p.Elem().Underlying().(*types.Struct)
		}
		if !ok {
			return
		}
	}
	for i, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
					c.set(info, v, kv.Value)
				}
			}
			continue
		}
		if i < st.NumFields() {
			c.set(info, st.Field(i), el)
		}
	}
}

// Duration returns the constant duration e evaluates to: a constant
// expression, or a variable or field that only ever holds constants (the
// largest of them). via names the variable or field ("" for a constant).
// ok is false when the value is not known, or when the variable also
// holds a value of 0 or less (then the call is sometimes a yield, which
// another rule reports).
func (c *Consts) Duration(info *types.Info, e ast.Expr) (d time.Duration, via string, ok bool) {
	if d, ok := ConstDuration(info, e); ok {
		return d, "", true
	}
	if c == nil {
		return 0, "", false
	}
	obj := target(info, e)
	if obj == nil || obj.Exported() || c.poison[obj] || len(c.vals[obj]) == 0 {
		return 0, "", false
	}
	first := true
	for _, val := range c.vals[obj] {
		v := constant.ToInt(val)
		if v.Kind() != constant.Int {
			return 0, "", false
		}
		i, exact := constant.Int64Val(v)
		if !exact || i <= 0 {
			return 0, "", false
		}
		if first || time.Duration(i) > d {
			d, first = time.Duration(i), false
		}
	}
	return d, types.ExprString(e), true
}

func (c *Consts) params(info *types.Info, fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, name := range f.Names {
			c.set(info, info.Defs[name], nil)
		}
	}
}
