package analysisutil

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"testing"
)

const valuesSrc = `package p

func count() int { return 0 }

type s struct{ active, other int }

func f(x *s, in []int) {
	n := count()
	busy := n > 10
	m := 3
	var k int
	k = m + 1
	x.active = n
	x.other = 1
	for i := range in {
		m = i
	}
	p := &k
	_, _, _ = busy, p, m
	_ = s{active: 2}
}
`

func TestValues(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", valuesSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	v := NewValues(info, f)
	obj := func(name string) types.Object {
		for id, o := range info.Defs {
			if id.Name == name && o != nil {
				if _, ok := o.(*types.Var); ok {
					return o
				}
			}
		}
		t.Fatalf("no variable %s", name)
		return nil
	}
	if e := v.Only(obj("n")); e == nil || types.ExprString(e) != "count()" {
		t.Errorf("Only(n) = %v, want count()", e)
	}
	if e := v.Only(obj("m")); e != nil {
		t.Errorf("Only(m) = %s, want nil: m is assigned twice", types.ExprString(e))
	}
	if vals := v.Assigned(obj("k")); len(vals) != 2 || vals[1] != nil {
		t.Errorf("Assigned(k) = %d values, want 2, the last unknown (&k)", len(vals))
	}
	st := pkg.Scope().Lookup("s").Type().Underlying().(*types.Struct)
	if vals := v.Assigned(st.Field(0)); len(vals) != 2 {
		t.Errorf("Assigned(s.active) = %d values, want 2 (an assignment and a keyed literal)", len(vals))
	}
	if !Local(obj("n")) || Local(st.Field(0)) {
		t.Errorf("Local: n should be local, s.active not")
	}
	derived := v.Derived(func(e ast.Expr) bool {
		c, ok := e.(*ast.CallExpr)
		return ok && types.ExprString(c) == "count()"
	})
	var names []string
	for o := range derived {
		names = append(names, o.Name())
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"busy", "n"}) {
		t.Errorf("Derived = %v, want [busy n] (fields are the caller's to follow)", names)
	}
}
