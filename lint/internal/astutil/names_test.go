package astutil_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

func TestFuncDeclName(t *testing.T) {
	const src = `package p
type T struct{}
type G[K comparable, V any] struct{}
type H[K any] struct{}
func F() {}
func (T) M() {}
func (*T) P() {}
func (g *G[K, V]) Q() {}
func (H[K]) R() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			got = append(got, astutil.FuncDeclName(fd))
		}
	}
	want := []string{"F", "T.M", "(*T).P", "(*G).Q", "H.R"}
	if len(got) != len(want) {
		t.Fatalf("names = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestContinues(t *testing.T) {
	const src = `package p
func f(xs []int, c bool) {
outer:
	for range xs {
		if c { continue }                      // plain
		if c { for range xs { continue } }     // the inner loop's
		if c { for range xs { continue outer } } // labelled: the outer loop's
		if c { _ = func() { for range xs { continue } } }
		if c { return }
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	labelled := f.Decls[0].(*ast.FuncDecl).Body.List[0].(*ast.LabeledStmt)
	loop := astutil.Loop{Stmt: labelled.Stmt, Label: info.Defs[labelled.Label].(*types.Label)}
	want := []bool{true, false, true, false, false}
	for i, st := range loop.Body().List {
		if got := astutil.Continues(info, st, loop); got != want[i] {
			t.Errorf("statement %d (line %d): Continues = %v, want %v", i, fset.Position(st.Pos()).Line, got, want[i])
		}
	}
	// Without its label the loop is not the target of continue outer.
	if astutil.Continues(info, loop.Body().List[2], astutil.Loop{Stmt: labelled.Stmt}) {
		t.Error("continue outer counted for an unlabelled loop")
	}
}

func TestReceived(t *testing.T) {
	const src = `package p
func f(ch chan int, s struct{ C chan int }) {
	select {
	case <-ch:
	case v := <-(s.C):
		_ = v
	case v, ok := <-ch:
		_, _ = v, ok
	case ch <- 1:
	}
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	sel := f.Decls[0].(*ast.FuncDecl).Body.List[0].(*ast.SelectStmt)
	want := []string{"ch", "s.C", "ch", ""}
	for i, c := range sel.Body.List {
		got := ""
		if x := astutil.Received(c.(*ast.CommClause).Comm); x != nil {
			got = types.ExprString(x)
		}
		if got != want[i] {
			t.Errorf("case %d: Received = %q, want %q", i, got, want[i])
		}
	}
}
