package astutil_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

const src = `package p

import "time"

var (
	poll     = 50 * time.Microsecond
	Exported = 50 * time.Microsecond
	twice    = time.Microsecond
	computed = time.Duration(n())
)

func init() { twice = 2 * time.Microsecond }

type w struct{ idle, slow, taken time.Duration }

func newW() *w { return &w{idle: 20 * time.Microsecond, slow: time.Millisecond} }

func (x *w) set(d time.Duration) { x.slow = d }

func use(param time.Duration, x *w) {
	local := 100 * time.Microsecond
	grown := time.Microsecond
	grown *= 2
	zero := time.Duration(0)
	p := &x.taken
	_ = p
	sleep(poll, Exported, twice, computed, x.idle, x.slow, x.taken, param, local, grown, zero)
}

func sleep(...time.Duration) {}

func n() int { return 3 }
`

func TestConstsDuration(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var args []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "sleep" {
				args = c.Args
			}
		}
		return true
	})
	c := astutil.NewConsts(info, []*ast.File{f}, nil)
	want := []struct {
		d  time.Duration
		ok bool
	}{
		{50 * time.Microsecond, true},  // poll
		{0, false},                     // Exported: another package may set it
		{2 * time.Microsecond, true},   // twice: the largest of its constants
		{0, false},                     // computed
		{20 * time.Microsecond, true},  // x.idle: set in newW only
		{0, false},                     // x.slow: also set from a parameter
		{0, false},                     // x.taken: address taken
		{0, false},                     // param
		{100 * time.Microsecond, true}, // local
		{0, false},                     // grown: *= 2
		{0, false},                     // zero: a yield, not a poll
	}
	if len(args) != len(want) {
		t.Fatalf("%d arguments, want %d", len(args), len(want))
	}
	for i, a := range args {
		d, via, ok := c.Duration(info, a)
		if ok != want[i].ok || d != want[i].d {
			t.Errorf("%s: got %v, %v (via %q), want %v, %v", types.ExprString(a), d, ok, via, want[i].d, want[i].ok)
		}
	}
}
