package sleeppoll

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/types"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

//go:embed doc.go
var doc string

// Analyzer reports rule SD102, sleep-poll.
var Analyzer = &analysis.Analyzer{
	Name:       "sleeppoll",
	Doc:        analysisutil.MustExtractDoc(doc, "sleeppoll"),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD102"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	if !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	analysisutil.Visit(pass, func(n *ast.CallExpr, stack []ast.Node) { check(pass, res, n, stack) })
	return res, nil
}

func check(pass *analysis.Pass, res *evidence.Result, call *ast.CallExpr, stack []ast.Node) {
	info := pass.TypesInfo
	if astutil.ClassifyCall(info, call) != astutil.Sleep || len(call.Args) != 1 {
		return
	}
	d, ok := astutil.ConstDuration(info, call.Args[0])
	if !ok || d <= 0 || d >= astutil.PollThreshold {
		return
	}
	loop, ok := astutil.EnclosingLoop(info, stack)
	if !ok {
		return
	}
	f, ok := loop.Stmt.(*ast.ForStmt)
	if !ok || astutil.IsCounted(info, f) {
		return
	}
	for _, n := range stack[loop.Index:] {
		if c, ok := n.(*ast.CommClause); ok && c.Comm == nil {
			return // a select's default: SD101
		}
	}
	if f.Cond == nil && !astutil.Leaves(info, f.Body, loop, true) {
		return // never ends: pacing, not waiting
	}
	if bodyMayBlock(info, f.Body, loop) {
		return
	}
	us := float64(d) / float64(time.Microsecond)
	analysisutil.Report(pass, res, rule, call,
		fmt.Sprintf("loop polls with a %v sleep, which wakes a thread every iteration; wait on a channel, sync.Cond or WaitGroup, or poll at 1ms or more", d),
		[]finding.Evidence{
			{Label: "sleep", Value: us, Unit: "µs"},
			{Label: "threshold", Value: float64(astutil.PollThreshold / time.Microsecond), Unit: "µs"},
			{Label: "loop at line", Value: analysisutil.Line(pass, f.Pos())},
		})
}

// bodyMayBlock reports whether something in the loop's body, besides short
// sleeps and the conditions of ifs that leave the loop (what the loop
// polls), may block or do work the analysis does not know.
func bodyMayBlock(info *types.Info, body *ast.BlockStmt, loop astutil.Loop) bool {
	polled := map[ast.Node]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if s, ok := n.(*ast.IfStmt); ok && astutil.Leaves(info, s.Body, loop, true) {
			polled[s.Cond] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	var eff astutil.Effects
	eff.Scan(info, body, func(n ast.Node) bool { return polled[n] })
	return eff.MayBlock
}
