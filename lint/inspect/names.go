package inspect

import (
	"fmt"
	"go/ast"
	"strings"

	"github.com/schedoctor/schedoctor/lint/internal/astutil"
)

// funcName names the function whose body holds the node chain stack
// (outermost first) as the compiler does, without the package: "bad",
// "(*ring).put", "bad.func1", "bad.func1.2"; "" outside any function
// declaration (a closure in a package-level var is "glob..func1" to the
// compiler, which no user looks for).
func funcName(stack []ast.Node) string {
	var fd *ast.FuncDecl
	i := 0
	for ; i < len(stack); i++ {
		if d, ok := stack[i].(*ast.FuncDecl); ok {
			fd = d
			break
		}
	}
	if fd == nil || fd.Body == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(astutil.FuncDeclName(fd))
	// Each literal on the chain is numbered among the literals directly
	// in the enclosing function (not inside other literals), in source
	// order: func1, func2 at the first level, then .1, .2 below.
	var body ast.Node = fd.Body
	depth := 0
	for _, n := range stack[i+1:] {
		lit, ok := n.(*ast.FuncLit)
		if !ok {
			continue
		}
		k := 0
		ast.Inspect(body, func(m ast.Node) bool {
			if m == body {
				return true
			}
			l, ok := m.(*ast.FuncLit)
			if !ok {
				return true
			}
			if l.Pos() <= lit.Pos() {
				k++
			}
			return false
		})
		if depth == 0 {
			fmt.Fprintf(&b, ".func%d", k)
		} else {
			fmt.Fprintf(&b, ".%d", k)
		}
		depth++
		body = lit.Body
	}
	return b.String()
}
