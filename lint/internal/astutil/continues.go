package astutil

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Continues reports whether n holds a continue that starts loop's next
// iteration: an unlabelled continue not nested in an inner loop, or one
// labelled with loop's label. Function literals are not entered.
//
// A branch that ends in a return but can continue first (the lazy skip
// list's "locked the predecessors, found the list changed under us: unlock
// and retry") goes round again after what it did, so it is part of the
// loop, not an exit.
func Continues(info *types.Info, n ast.Node, loop Loop) bool {
	found := false
	var walk func(n ast.Node, nested bool)
	walk = func(root ast.Node, nested bool) {
		ast.Inspect(root, func(n ast.Node) bool {
			if n == nil || found {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				if n != root {
					walk(n, true)
					return false
				}
			case *ast.BranchStmt:
				if n.Tok != token.CONTINUE {
					break
				}
				if n.Label == nil {
					found = !nested
				} else if l, _ := info.Uses[n.Label].(*types.Label); l != nil && l == loop.Label {
					found = true
				}
			}
			return !found
		})
	}
	walk(n, false)
	return found
}
