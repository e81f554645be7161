package inspect

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// loopSpan is a loop of a test file and the lines that are its own: not
// in a nested loop or a function literal.
type loopSpan struct {
	start, end int
	own        []int
}

// loopSpans parses file and returns its loops.
func loopSpans(t testing.TB, file string) ([]loopSpan, *ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var out []loopSpan
	ast.Inspect(f, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			return true
		}
		s := loopSpan{start: line(n.Pos()), end: line(n.End())}
		taken := map[int]bool{}
		ast.Inspect(n, func(m ast.Node) bool {
			switch m.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
				if m != n {
					for l := line(m.Pos()); l <= line(m.End()); l++ {
						taken[l] = true
					}
					return false
				}
			}
			return true
		})
		for l := s.start; l <= s.end; l++ {
			if !taken[l] {
				s.own = append(s.own, l)
			}
		}
		out = append(out, s)
		return true
	})
	return out, f
}

// TestByLoop asks At about every line of every loop of the shapes: each
// line of a loop has that loop's verdict, whichever line a profile finds
// hottest.
func TestByLoop(t *testing.T) {
	r := &Resolver{NoLoad: true}
	files, _ := filepath.Glob("testdata/shapes/*.go")
	n := 0
	for _, file := range files {
		spans, _ := loopSpans(t, file)
		for _, s := range spans {
			first, err := r.At(file, s.start)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range s.own {
				n++
				got, err := r.At(file, l)
				if err != nil {
					t.Errorf("%s:%d: %v", file, l, err)
					continue
				}
				if got.Start != s.start || got.End != s.end || got.Kind != first.Kind || got.SpinLine != first.SpinLine || got.Detail != first.Detail {
					t.Errorf("%s:%d: %s %d-%d spin %d (%s); line %d of the same loop: %s %d-%d spin %d",
						file, l, got.Kind, got.Start, got.End, got.SpinLine, got.Detail, s.start, first.Kind, first.Start, first.End, first.SpinLine)
				}
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d lines asked", n)
	}
}

// ruleDirs are the analyzers whose testdata the agreement test reads,
// with the rule each one's `// want` comments stand for.
var ruleDirs = map[string]string{
	"busyselect/testdata": "SD101",
	"sleeppoll/testdata":  "SD102",
	"timerloop/testdata":  "SD104",
	"spinwait/testdata":   "SD106",
	// The variant corpus (lint/internal/variantgen): each shape's
	// positives and close negatives, one loop per function.
	"testdata/variants/selectspin": "SD101",
	"testdata/variants/selectsend": "SD101",
	"testdata/variants/sleeppoll":  "SD102",
	"testdata/variants/lockpoll":   "SD102",
	"testdata/variants/timerloop":  "SD104",
	"testdata/variants/flagspin":   "SD106",
	"testdata/variants/flagyield":  "SD106",
	"testdata/variants/helperspin": "SD106",
	"testdata/variants/retryspin":  "SD106",
}

// kindsOf are the verdicts a rule's finding makes of its loop.
var kindsOf = map[string][]Kind{
	"SD101": {SelectDefault},
	"SD102": {SleepPoll},
	"SD104": {TimerPerIter, YieldSpin},
	"SD106": {YieldSpin, AtomicSpin},
}

// TestLintAgrees is the property "lint and the runtime join agree": for
// every loop of the rule analyzers' testdata, the verdict inspect gives at
// every line of the loop names the analyzer's rule exactly when the
// analyzer's test wants a diagnostic in that loop, and a loop that no rule
// reports is no spin. Files that import packages other than the standard
// library are read too, but only where the lenient types see what the
// analyzers' typed run sees: a loop whose judgement hangs on another
// package's facts is counted apart.
func TestLintAgrees(t *testing.T) {
	// Every testdata package is read: the budget of one diagnosis run
	// (DefaultBudget) is far below that.
	r := &Resolver{NoLoad: true, Budget: Budget{Files: 1 << 20, Bytes: 1 << 40, Packages: 1 << 20, Time: time.Hour}}
	loops, lines, spins, unseen := 0, 0, 0, 0
	for dir, rule := range ruleDirs {
		var files []string
		// Absolute, as a profile records them: a relative "../x" is not a
		// path the read rules take as recorded (resolve.go).
		root, err := filepath.Abs(filepath.Join("..", dir))
		if err != nil {
			t.Fatal(err)
		}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 0 {
			t.Fatalf("no testdata for %s", dir)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := strings.Split(string(data), "\n")
			spans, f := loopSpans(t, file)
			foreign := slices.ContainsFunc(f.Imports, func(im *ast.ImportSpec) bool {
				p, _ := strconv.Unquote(im.Path.Value)
				return !finding.StdPackage(p)
			})
			// The loop each want comment falls in: the innermost whose own
			// lines hold it.
			wanted := map[int]bool{} // loop start → a want of rule
			for i, text := range src {
				if !strings.Contains(text, "// want ") {
					continue
				}
				best := -1
				for k, s := range spans {
					if slices.Contains(s.own, i+1) && (best < 0 || s.start > spans[best].start) {
						best = k
					}
				}
				if best >= 0 {
					wanted[spans[best].start] = true
				}
			}
			for _, s := range spans {
				loops++
				for _, l := range s.own {
					lines++
					got, err := r.At(file, l)
					if err != nil {
						t.Errorf("%s:%d: %v", file, l, err)
						continue
					}
					if got.Start != s.start || got.End != s.end {
						t.Errorf("%s:%d: loop %d-%d, want %d-%d", file, l, got.Start, got.End, s.start, s.end)
						continue
					}
					has := slices.Contains(got.Rules, rule)
					if has != wanted[s.start] {
						if foreign && !has {
							unseen++
							continue // another package's facts decide it; the lenient types cannot see them
						}
						t.Errorf("%s:%d: inspect's rules %v (%s: %s), lint wants %s: %v", file, l, got.Rules, got.Kind, got.Detail, rule, wanted[s.start])
					}
					if got.Rule == "" {
						if got.Kind.Spin() || got.Kind == SleepPoll || got.Kind == TimerPerIter {
							t.Errorf("%s:%d: %s with no lint rule (%s)", file, l, got.Kind, got.Detail)
						}
						continue
					}
					if !slices.Contains(kindsOf[got.Rule], got.Kind) {
						t.Errorf("%s:%d: %s from %s", file, l, got.Kind, got.Rule)
					}
					if l == s.start && got.Kind.Spin() {
						spins++
					}
				}
			}
		}
	}
	t.Logf("%d loops, %d lines, %d spins; %d lines of loops only a typed load judges", loops, lines, spins, unseen)
	if loops < 150 || spins < 30 {
		t.Errorf("only %d loops, %d spins: the testdata was not read", loops, spins)
	}
}

// TestCallerSpin: consumers that retry a lock-free queue's non-blocking
// Dequeue at once are named at the caller's loop; the library's function
// is compute. The queue is another package: its facts (never blocks,
// polls) come from a typed load.
func TestCallerSpin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	lib, err := filepath.Abs("testdata/mod/queue/queue.go")
	if err != nil {
		t.Fatal(err)
	}
	caller, _ := filepath.Abs("testdata/mod/consumer/consumer.go")
	r := &Resolver{}
	stack := []Frame{
		{lib, lineOf(t, lib, "return 0, false")},
		{caller, lineOf(t, caller, "if v, ok := q.Dequeue(); ok { // SD106")},
		{caller, lineOf(t, caller, "s += Next(q)")},
	}
	l, i, err := r.SpinIn(stack)
	if err != nil {
		t.Fatal(err)
	}
	if i != 1 || l.Kind != AtomicSpin || l.Rule != "SD106" || l.Function != "Next" || l.Start != stack[1].Line-1 {
		t.Errorf("frame %d: %s %s in %s %d-%d (%s); want the caller's loop at line %d, SD106", i, l.Kind, l.Rule, l.Function, l.Start, l.End, l.Detail, stack[1].Line-1)
	}
	own, err := r.At(lib, stack[0].Line)
	if err != nil || own.Kind != NotInLoop {
		t.Errorf("the library's line: %v %+v", err, own)
	}
}

// TestCallerRetry: a consumer that works on what it takes and retries a
// mutex-guarded Dequeue at once when it finds nothing is named at its
// loop, from a sample in the library's function or in the work.
func TestCallerRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	lib, err := filepath.Abs("testdata/mod/queue/queue.go")
	if err != nil {
		t.Fatal(err)
	}
	caller, _ := filepath.Abs("testdata/mod/consumer/consumer.go")
	call := lineOf(t, caller, "v, err := q.Dequeue() // SD106")
	// The runtime commands read kinds only (NoFindings): the loop, unknown
	// to the lenient read, still gets its package's typed load.
	r := &Resolver{NoFindings: true}
	if l, err := (&Resolver{NoFindings: true, NoLoad: true}).At(caller, call); err != nil || l.Kind != Unknown {
		t.Errorf("without a load: %v %+v, want unknown (another package's call, no facts)", err, l)
	}
	for _, leaf := range []Frame{{lib, lineOf(t, lib, "return 0, ErrEmpty")}, {caller, lineOf(t, caller, "s += work(v)")}} {
		stack := []Frame{leaf, {caller, call}}
		if leaf.File == caller {
			stack = stack[:1]
		}
		l, i, err := r.SpinIn(stack)
		if err != nil {
			t.Fatal(err)
		}
		if l.Kind != AtomicSpin || l.Rule != "SD106" || l.Function != "Consume" || l.Start != call-1 || !strings.Contains(l.Detail, "retries q.Dequeue()") {
			t.Errorf("leaf %s:%d: frame %d: %s %s in %s %d-%d (%s); want Consume's loop at line %d, SD106, naming q.Dequeue()", filepath.Base(leaf.File), leaf.Line, i, l.Kind, l.Rule, l.Function, l.Start, l.End, l.Detail, call-1)
		}
	}
}

// TestStackFrames: a stack through the runtime (mcall in assembly,
// gosched_m and Gosched in proc.go, here or as another machine recorded
// them) above a Gosched loop under LockOSThread: the loop is the yield
// spin, and no runtime file is read as the user's.
func TestStackFrames(t *testing.T) {
	r := &Resolver{NoLoad: true}
	file := "testdata/shapes/handler.go"
	g := lineOf(t, file, "runtime.Gosched() // at: yield-spin func: lockedYield")
	goroot := build.Default.GOROOT
	stack := []Frame{
		{filepath.Join(goroot, "src", "runtime", "asm_amd64.s"), 450},
		{filepath.Join(goroot, "src", "runtime", "proc.go"), 400},
		{"/usr/local/go/src/runtime/proc.go", 380},
		{"runtime/proc.go", 360},
		{file, g},
	}
	l, i, err := r.SpinIn(stack)
	if err != nil || i != 4 || l.Kind != YieldSpin || l.Function != "lockedYield" || l.SpinLine != g {
		t.Fatalf("SpinIn = %d, %v, %+v; want the Gosched loop at frame 4", i, err, l)
	}

	// A .s file is not parsed as Go, even when it would parse.
	dir := t.TempDir()
	asm := filepath.Join(dir, "x.s")
	if err := os.WriteFile(asm, []byte("package p\n\nfunc f() {\n\tfor {\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := r.At(asm, 4); !errors.Is(err, ErrNoSource) || !strings.Contains(err.Error(), "not a Go source file") {
		t.Errorf("At(.s) = %+v, %v; want ErrNoSource", l, err)
	}
	if len(r.files) != 1 {
		t.Errorf("%d files parsed, want only handler.go", len(r.files))
	}
}
