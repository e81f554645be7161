package sleeppoll

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/blocking"
	"github.com/schedoctor/schedoctor/lint/internal/analysisutil"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// Analyzer reports rule SD102, sleep-poll.
var Analyzer = &analysis.Analyzer{
	Name:       "sleeppoll",
	Doc:        analysisutil.RuleDoc(rule),
	URL:        finding.DocsBase + rule + ".md",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, blocking.Analyzer},
	ResultType: evidence.ResultType,
	Run:        run,
}

const rule = "SD102"

func run(pass *analysis.Pass) (any, error) {
	res := &evidence.Result{}
	if !analysisutil.Imports(pass.Pkg, "time") {
		return res, nil
	}
	c := checker{
		pass:  pass,
		res:   res,
		facts: pass.ResultOf[blocking.Analyzer].(*blocking.Result),
		consts: astutil.NewConsts(pass.TypesInfo, pass.Files, func(f *ast.File) bool {
			return analysisutil.IsTestFile(pass, f.Pos())
		}),
	}
	analysisutil.Visit(pass, c.check)
	return res, nil
}

type checker struct {
	pass   *analysis.Pass
	res    *evidence.Result
	facts  *blocking.Result
	consts *astutil.Consts
}

func (c *checker) check(call *ast.CallExpr, stack []ast.Node) {
	pass := c.pass
	info := pass.TypesInfo
	if astutil.ClassifyCall(info, call) != astutil.Sleep || len(call.Args) != 1 {
		return
	}
	d, via, ok := c.consts.Duration(info, call.Args[0])
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
	// The idle path: what runs when there is nothing to do. When the
	// sleep sits in an if that ends with continue (a worker that sleeps
	// when its queue is empty), that is the body up to and including
	// that if; otherwise the whole body.
	path, guarded := idlePath(info, f.Body, stack[loop.Index:], loop)
	conditional := guarded || inBranch(stack[loop.Index+1:])
	if f.Cond == nil && !conditional && !astutil.Leaves(info, f.Body, loop, true) && !c.checksFlag(f.Body) {
		return // never ends and always sleeps: pacing, not waiting
	}
	eff, blocks := c.pathMayBlock(path, loop, call)
	if blocks {
		return
	}
	us := float64(d) / float64(time.Microsecond)
	held := ""
	if via != "" {
		held = " (held in " + via + ")"
	}
	ev := []finding.Evidence{
		{Label: "sleep", Value: us, Unit: "µs"},
		{Label: "threshold", Value: float64(astutil.PollThreshold / time.Microsecond), Unit: "µs"},
		{Label: "loop at line", Value: analysisutil.Line(pass, f.Pos())},
	}
	if _, locks := heldLocks(info, path); locks > 0 {
		ev = append(ev, finding.Evidence{Label: "mutexes taken and released on the idle path", Value: float64(locks)})
	}
	if len(eff.NoBlocks) > 0 {
		fn := eff.NoBlocks[0]
		ev = append(ev,
			finding.Evidence{Label: blocking.Describe(fn, c.facts.Of(fn)), Value: 1},
			finding.Evidence{Label: "calls on the idle path that never block (per-function facts)", Value: float64(len(eff.NoBlocks))})
	}
	analysisutil.Report(pass, c.res, rule, call,
		fmt.Sprintf("loop polls with a %v sleep%s, which wakes a thread every iteration; wait on a channel, sync.Cond or WaitGroup, or poll at 1ms or more", d, held),
		ev)
}

// checksFlag reports whether an if of body tests state another goroutine
// sets (an atomic load, a never-blocking helper whose facts say it
// polls): `for { if ready.Load() { ... }; time.Sleep(10µs) }` waits for
// the flag between sleeps, which pacing (`for { work(); sleep }`) does
// not.
func (c *checker) checksFlag(body *ast.BlockStmt) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			if skipsRest(n.Body) {
				// `if !ready.Load() { continue }; work; sleep`: the sleep
				// runs only after the work, so it paces; the skip is no
				// sleep poll (a busy skip is spinwait's to judge).
				return true
			}
			ast.Inspect(n.Cond, func(m ast.Node) bool {
				call, ok := m.(*ast.CallExpr)
				if !ok {
					return !found
				}
				fn := analysisutil.Callee(info, call)
				switch {
				case astutil.IsAtomicLike(fn) && astutil.ClassifyCall(info, call) == astutil.Read:
					found = true
				case fn != nil && c.facts.Of(fn).Kind == blocking.NeverBlocks && c.facts.Of(fn).Polls:
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// skipsRest reports whether body ends the iteration early: its last
// statement is a continue, break, goto or return, so what follows the if
// (the sleep) runs only on the other path.
func skipsRest(body *ast.BlockStmt) bool {
	if body == nil || len(body.List) == 0 {
		return false
	}
	switch last := body.List[len(body.List)-1].(type) {
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE || last.Tok == token.BREAK || last.Tok == token.GOTO
	case *ast.ReturnStmt:
		return true
	}
	return false
}

// idlePath returns the statements of body that run on an iteration with
// nothing to do, for a sleep whose enclosing nodes, from the loop down,
// are stack. guarded is true when the sleep is inside an if, directly in
// the body, whose branch ends with continue: the iteration then ends at
// the sleep, and what follows the if (the work) is not on the idle path.
func idlePath(info *types.Info, body *ast.BlockStmt, stack []ast.Node, loop astutil.Loop) (path []ast.Node, guarded bool) {
	if len(stack) > 2 && stack[1] == body {
		if ifs, ok := stack[2].(*ast.IfStmt); ok && len(stack) > 3 && stack[3] == ifs.Body && endsWithContinue(info, ifs.Body, loop) {
			for _, s := range body.List {
				if s == ifs {
					break
				}
				path = append(path, s)
			}
			if ifs.Init != nil {
				path = append(path, ifs.Init)
			}
			return append(path, ifs.Cond, ifs.Body), true
		}
		// The sleep after an if whose branch does the work and
		// continues (if j, ok := q.pop(); ok { run(j); continue }):
		// the idle path is the body without that branch.
		if _, ok := stack[2].(*ast.ExprStmt); ok {
			for _, s := range body.List {
				if s == stack[2] {
					break
				}
				if ifs, ok := s.(*ast.IfStmt); ok && workThenContinue(info, ifs, loop) {
					guarded = true
				}
			}
			if guarded {
				for _, s := range body.List {
					ifs, ok := s.(*ast.IfStmt)
					if !ok || ifs.Pos() > stack[2].Pos() || !workThenContinue(info, ifs, loop) {
						path = append(path, s)
						continue
					}
					if ifs.Init != nil {
						path = append(path, ifs.Init)
					}
					path = append(path, ifs.Cond)
				}
				return path, true
			}
		}
	}
	return []ast.Node{body}, false
}

// workThenContinue reports whether ifs, without an else, runs something
// and then continues loop: the branch that found work. A bare
// if paused { continue } skips the iteration without work, so the sleep
// after it runs on the busy iterations (pacing), not the idle ones.
func workThenContinue(info *types.Info, ifs *ast.IfStmt, loop astutil.Loop) bool {
	return ifs.Else == nil && len(ifs.Body.List) > 1 && endsWithContinue(info, ifs.Body, loop)
}

// endsWithContinue reports whether b's last statement continues loop.
func endsWithContinue(info *types.Info, b *ast.BlockStmt, loop astutil.Loop) bool {
	if len(b.List) == 0 {
		return false
	}
	br, ok := b.List[len(b.List)-1].(*ast.BranchStmt)
	if !ok || br.Tok != token.CONTINUE {
		return false
	}
	if br.Label == nil {
		return true
	}
	l, _ := info.Uses[br.Label].(*types.Label)
	return l != nil && l == loop.Label
}

// inBranch reports whether the sleep (the last of stack) runs only on
// some iterations: an if or a switch case lies between it and the loop.
func inBranch(stack []ast.Node) bool {
	for _, n := range stack {
		switch n.(type) {
		case *ast.IfStmt, *ast.CaseClause:
			return true
		case *ast.FuncLit:
			return false
		}
	}
	return false
}

// pathMayBlock reports whether something on the path, besides short
// sleeps (the one reported among them) and the conditions of ifs that leave the loop (what the loop
// polls), may block or do work the analysis does not know. Calls of
// functions that never block, by their facts, do not; nor do critical
// sections: a mutex taken and released on the path (lock, check the
// queue, unlock), or a call of a function that parks only on a mutex it
// releases itself. The goroutine waits there only while another one holds
// the lock, never until work arrives, so the sleep is still what the loop
// waits with.
func (c *checker) pathMayBlock(path []ast.Node, loop astutil.Loop, sleep *ast.CallExpr) (astutil.Effects, bool) {
	info := c.pass.TypesInfo
	polled := map[ast.Node]bool{}
	for _, p := range path {
		ast.Inspect(p, func(n ast.Node) bool {
			if s, ok := n.(*ast.IfStmt); ok && astutil.Leaves(info, s.Body, loop, true) {
				polled[s.Cond] = true
			}
			_, lit := n.(*ast.FuncLit)
			return !lit
		})
	}
	if f, ok := loop.Stmt.(*ast.ForStmt); ok && f.Cond != nil {
		polled[f.Cond] = true
	}
	for cond := range polled {
		if c.surelyBlocks(cond) {
			return astutil.Effects{}, true // the loop waits in what it polls
		}
	}
	held, _ := heldLocks(info, path)
	eff := astutil.Effects{Facts: pollFacts{c.facts}}
	for _, p := range path {
		if p != nil {
			eff.Scan(info, p, func(n ast.Node) bool { return polled[n] || n == sleep || held[n] })
		}
	}
	return eff, eff.MayBlock
}

// heldLocks returns the calls on path that take a sync mutex which a
// later call on the same path releases (q.mu.Lock() ... q.mu.Unlock()),
// with those releases, and how many such locks there are.
// A Lock without its Unlock on the path is left out: the goroutine may
// keep the mutex across iterations, or another goroutine may release it
// as a signal, and then the lock is what the loop waits on.
func heldLocks(info *types.Info, path []ast.Node) (held map[ast.Node]bool, locks int) {
	type lock struct {
		call *ast.CallExpr
		key  string
	}
	var open []lock
	held = map[ast.Node]bool{}
	for _, p := range path {
		if p == nil {
			continue
		}
		ast.Inspect(p, func(n ast.Node) bool {
			if _, lit := n.(*ast.FuncLit); lit {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch op, key := blocking.MutexOp(info, call); op {
			case blocking.Lock:
				open = append(open, lock{call, key})
			case blocking.Unlock:
				for i, l := range open {
					if l.key == key && l.call != nil {
						held[l.call], held[call] = true, true
						open[i].call = nil
						locks++
						break
					}
				}
			}
			return true
		})
	}
	return held, locks
}

// pollFacts answers astutil.Facts for the idle path of a poll: a function
// that never blocks, or one that parks only on a mutex it releases itself
// (a queue's pop under its lock), is a step of the poll.
type pollFacts struct{ r *blocking.Result }

func (p pollFacts) NeverBlocks(fn *types.Func) bool {
	f := p.r.Of(fn)
	return f.Kind == blocking.NeverBlocks || f.Locks
}

// surelyBlocks reports whether evaluating a polled condition parks the
// goroutine: it receives from a channel, or calls a function that always
// blocks by its lint/blocking fact (for !s.waitReady() { ... }, where
// waitReady receives). The loop then waits in its condition, and the
// sleep is not its wait. Other calls in a condition are what the loop
// polls, whatever they do.
func (c *checker) surelyBlocks(cond ast.Node) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			found = found || n.Op == token.ARROW
		case *ast.CallExpr:
			if fn := analysisutil.Callee(c.pass.TypesInfo, n); fn != nil {
				if f := c.facts.Of(fn); f.Kind == blocking.Blocks && !f.Locks {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
