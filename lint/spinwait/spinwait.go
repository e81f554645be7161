package spinwait

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

//go:embed doc.go
var doc string

// Analyzer reports rule SD106, spin-wait.
var Analyzer = &analysis.Analyzer{
	Name:       "spinwait",
	Doc:        analysisutil.MustExtractDoc(doc, "spinwait"),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD106"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	analysisutil.Visit(pass, func(n *ast.ForStmt, stack []ast.Node) { check(pass, res, n, stack) })
	return res, nil
}

func check(pass *analysis.Pass, res *evidence.Result, f *ast.ForStmt, stack []ast.Node) {
	info := pass.TypesInfo
	if astutil.IsCounted(info, f) {
		return
	}
	loop := astutil.LoopAt(info, stack, len(stack)-1)
	s := spin{info: info, loop: loop, incs: map[types.Object]int{}}
	if f.Cond != nil {
		s.waits(f.Cond)
	}
	if f.Post != nil {
		s.stmt(f.Post)
	}
	s.stmt(f.Body)
	if s.bad || (!s.shared && s.yields == 0) {
		return
	}
	// A counter that the loop also reads is a bound, not a tally.
	for obj, n := range s.incs {
		if countUses(info, f, obj) > n {
			return
		}
	}
	note := ""
	if s.yields > 0 {
		note = " (runtime.Gosched does not park)"
	}
	what := "with nothing that blocks"
	if f.Cond != nil {
		what = "while " + types.ExprString(f.Cond)
	}
	analysisutil.Report(pass, res, rule, f,
		fmt.Sprintf("loop spins %s, holding a core%s; block on a channel, sync.Cond or WaitGroup instead", what, note),
		[]finding.Evidence{
			{Label: "runtime.Gosched calls per iteration", Value: float64(s.yields)},
			{Label: "blocking operations in the loop", Value: 0},
			{Label: "statements in the loop body", Value: float64(len(f.Body.List))},
		})
}

// spin walks a loop and decides whether it only reads and yields.
type spin struct {
	info   *types.Info
	loop   astutil.Loop
	bad    bool                 // does something besides reading and yielding
	shared bool                 // waits on state another goroutine can change
	yields int                  // runtime.Gosched calls
	incs   map[types.Object]int // counters incremented, with how many times
}

// waits checks a condition the loop waits on, and notes whether it reads
// shared state.
func (s *spin) waits(cond ast.Expr) {
	s.expr(cond)
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if astutil.ClassifyCall(s.info, n) == astutil.Read && !isTimeOrCount(s.info, n) {
				s.shared = true
			}
		case *ast.Ident:
			if v, ok := s.info.Uses[n].(*types.Var); ok && !declaredIn(v, s.loop.Stmt) {
				s.shared = true
			}
		}
		return true
	})
}

// expr checks that evaluating e only reads.
func (s *spin) expr(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			s.bad = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				s.bad = true
			}
		case *ast.CallExpr:
			switch astutil.ClassifyCall(s.info, n) {
			case astutil.Read:
				if isTimeOrCount(s.info, n) {
					s.bad = true
				}
			case astutil.Yield:
				s.yields++
			default:
				s.bad = true
			}
		}
		return !s.bad
	})
}

// stmt checks that running st only reads, yields, counts or leaves.
func (s *spin) stmt(st ast.Stmt) {
	if s.bad {
		return
	}
	switch st := st.(type) {
	case *ast.BlockStmt:
		for _, x := range st.List {
			s.stmt(x)
		}
	case *ast.EmptyStmt:
	case *ast.ExprStmt:
		s.expr(st.X)
	case *ast.IncDecStmt:
		id, ok := ast.Unparen(st.X).(*ast.Ident)
		obj := s.info.Uses[id]
		if !ok || obj == nil {
			s.bad = true
			return
		}
		s.incs[obj]++
	case *ast.IfStmt:
		if st.Init != nil {
			s.bad = true
			return
		}
		if astutil.Leaves(s.info, st.Body, s.loop, true) {
			s.waits(st.Cond)
		} else {
			s.expr(st.Cond)
		}
		s.stmt(st.Body)
		if st.Else != nil {
			s.stmt(st.Else)
		}
	case *ast.SwitchStmt:
		if st.Init != nil {
			s.bad = true
			return
		}
		for _, c := range st.Body.List {
			c := c.(*ast.CaseClause)
			check := s.expr
			if astutil.Leaves(s.info, &ast.BlockStmt{List: c.Body}, s.loop, false) {
				check = s.waits
			}
			if st.Tag != nil {
				check(st.Tag)
			}
			for _, e := range c.List {
				check(e)
			}
			for _, x := range c.Body {
				s.stmt(x)
			}
		}
	case *ast.BranchStmt:
		if st.Tok == token.GOTO || st.Tok == token.FALLTHROUGH {
			s.bad = true
		}
	case *ast.ReturnStmt:
		for _, r := range st.Results {
			s.expr(r)
		}
	default:
		s.bad = true
	}
}

// isTimeOrCount reports reads that make a loop something other than a
// wait on a flag: a clock (a deliberate busy delay) or
// runtime.NumGoroutine (goroutinethrottle reports it).
func isTimeOrCount(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	return analysisutil.IsFunc(fn, "time", "Now", "Since", "Until") ||
		analysisutil.IsMethod(fn, "time", "Time", "Before", "After", "Equal", "Sub", "IsZero") ||
		analysisutil.IsFunc(fn, "runtime", "NumGoroutine")
}

// declaredIn reports whether v is declared inside node: a fresh variable
// of each iteration, which no other goroutine sets.
func declaredIn(v *types.Var, node ast.Node) bool {
	return node.Pos() <= v.Pos() && v.Pos() < node.End()
}

// countUses counts the references to obj in n.
func countUses(info *types.Info, n ast.Node, obj types.Object) int {
	c := 0
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == obj {
			c++
		}
		return true
	})
	return c
}
