package inspect

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
	"github.com/schedoctor/schedoctor/lint/loops"
)

// summary is named by resolve.go's fileEntry (a cache of the classifier
// this package had before lint/loops judged the loops); nothing fills it.
type summary struct{}

// loopAt finds the loops around line and gives each the verdict of
// lint/loops: the innermost is the Loop's, the others its Outer.
func (r *Resolver) loopAt(fe *fileEntry, line int) (*Loop, error) {
	stack := fe.chain(line)
	out := &Loop{Line: line, Kind: NotInLoop, Function: funcName(stack)}
	// Loops count only inside the innermost function: a loop around a
	// `go func() { ... }()` does not run the closure's lines.
	first := 0
	for i, n := range stack {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			first = i + 1
		}
	}
	var around []ast.Stmt
	for _, n := range stack[first:] {
		switch s := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			around = append(around, s.(ast.Stmt))
		}
	}
	if len(around) == 0 {
		name := out.Function
		if name == "" {
			name = "its declaration"
		}
		out.Detail = fmt.Sprintf("line %d is in no loop of %s", line, name)
		return out, nil
	}
	a := r.analysis(fe)
	if a.err != nil {
		return nil, a.err
	}
	for i := len(around) - 1; i >= 0; i-- {
		s := around[i]
		v := a.loops.Of(s)
		if v == nil {
			// The analysis did not run on this file's syntax (it failed
			// on odd input): say so rather than guess.
			v = &loops.Verdict{Loop: s, Kind: loops.Compute, Detail: "the analyzers could not judge this loop"}
		}
		start, end := fe.line(s.Pos()), fe.line(s.End())
		if i == len(around)-1 {
			out.Kind, out.Detail, out.Rule, out.Rules = v.Kind, v.Detail, v.Rule, v.Rules
			out.Start, out.End = start, end
			if v.At.IsValid() {
				out.SpinLine = fe.line(v.At)
			}
			continue
		}
		out.Outer = append(out.Outer, [2]int{start, end})
		out.OuterKinds = append(out.OuterKinds, v.Kind)
	}
	return out, nil
}

// retype applies the findings of a typed load to the loop: the rule
// analyzers see more with every package typed (a helper of another
// package that never blocks), and a spin they find there decides the
// loop's kind the way lint/loops decides it on the leniently typed files.
func (fe *fileEntry) retype(l *Loop, fs []finding.Finding) {
	var vs []*loops.Verdict
	for _, f := range fs {
		loc := f.Locations[0]
		pos := fe.pos(loc.Line, loc.Column)
		if !pos.IsValid() {
			continue
		}
		v := loops.FromDiagnostic(fe.fset, fe.files, fe.info,
			evidence.Report{Pos: pos, End: pos, Rule: f.Rule, Severity: f.Severity, Message: f.Text()}, f.Evidence)
		if v != nil && fe.line(v.Loop.Pos()) == l.Start && fe.line(v.Loop.End()) == l.End {
			vs = append(vs, v)
		}
	}
	best := loops.Best(vs...)
	if best == nil {
		return
	}
	if l.Rule != "" {
		// The lenient run's rules found something too: the same ranking
		// decides between them.
		cur := &loops.Verdict{Kind: l.Kind, Rule: l.Rule}
		if loops.Best(cur, best) == cur {
			return
		}
	}
	rules := []string{best.Rule}
	for _, r := range l.Rules {
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	for _, v := range vs {
		if !slices.Contains(rules, v.Rule) {
			rules = append(rules, v.Rule)
		}
	}
	l.Kind, l.Detail, l.Rule, l.Rules = best.Kind, best.Detail, best.Rule, rules
	if best.At.IsValid() {
		l.SpinLine = fe.line(best.At)
	}
}

// pos is the position of line:column in the asked file, NoPos when out
// of range.
func (fe *fileEntry) pos(line, col int) token.Pos {
	tf := fe.fset.File(fe.file.Pos())
	if tf == nil || line < 1 || line > tf.LineCount() {
		return token.NoPos
	}
	p := tf.LineStart(line)
	if col > 1 && int(p)+col-1 < tf.Base()+tf.Size() {
		p += token.Pos(col - 1)
	}
	return p
}

func (fe *fileEntry) line(p token.Pos) int { return fe.fset.Position(p).Line }

// untypedCall reports whether line of the asked file holds a call whose
// function the lenient read could not type: a function or method of a
// package it left empty, which only a typed load can judge.
func (fe *fileEntry) untypedCall(line int) bool {
	found := false
	ast.Inspect(fe.file, func(n ast.Node) bool {
		if found || n == nil || fe.line(n.Pos()) > line || fe.line(n.End()) < line {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok && fe.line(call.Pos()) == line {
			tv, ok := fe.info.Types[call.Fun]
			found = !ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid]
		}
		return !found
	})
	return found
}

// chain returns the nodes of the asked file whose lines include line,
// outermost first, each inside the one before.
func (fe *fileEntry) chain(line int) []ast.Node {
	var stack []ast.Node
	for _, d := range fe.file.Decls {
		if fe.line(d.Pos()) > line || fe.line(d.End()) < line {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if n == nil || fe.line(n.Pos()) > line || fe.line(n.End()) < line {
				return false
			}
			// The line that opens a closure (`go func() {`) runs in the
			// enclosing function, unless the closure fits on it.
			if lit, ok := n.(*ast.FuncLit); ok && fe.line(lit.Body.Lbrace) == line && fe.line(lit.Body.Rbrace) != line {
				return false
			}
			// Two statements on one line: keep the chain, not both.
			for len(stack) > 0 && (n.Pos() < stack[len(stack)-1].Pos() || n.End() > stack[len(stack)-1].End()) {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, n)
			return true
		})
		break
	}
	return stack
}
