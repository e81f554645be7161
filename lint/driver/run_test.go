package driver

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/constant"
	"go/format"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/golden"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// flagme is a test-only analyzer that follows the contract of the real
// ones: it reports every call to a function named flagme (Category SD101),
// records the call's constant argument as evidence at the diagnostic's Pos,
// and suggests calling fixed instead. Calls to overlap get two diagnostics
// whose fixes touch the same bytes, so that one of them must be skipped.
var flagme = &analysis.Analyzer{
	Name:       "flagme",
	Doc:        "report calls to flagme (test only)",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: evidence.ResultType,
	Run: func(pass *analysis.Pass) (any, error) {
		res := &evidence.Result{}
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		ins.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
			call := n.(*ast.CallExpr)
			fn := typeutil.StaticCallee(pass.TypesInfo, call)
			if fn == nil || len(call.Args) != 1 {
				return
			}
			var v int64
			if c := pass.TypesInfo.Types[call.Args[0]].Value; c != nil && c.Kind() == constant.Int {
				v, _ = constant.Int64Val(c)
			}
			switch fn.Name() {
			case "flagme":
				pass.Report(analysis.Diagnostic{
					Pos: call.Pos(), End: call.End(), Category: "SD101",
					Message: "call to flagme, call fixed instead",
					SuggestedFixes: []analysis.SuggestedFix{{
						Message:   "call fixed",
						TextEdits: []analysis.TextEdit{{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte("fixed")}},
					}},
				})
				res.Add(call.Pos(), finding.Evidence{Label: "argument", Value: float64(v), Unit: "µs"})
			case "overlap":
				for _, repl := range []string{"fixed", "flagme"} {
					pass.Report(analysis.Diagnostic{
						Pos: call.Pos(), Category: "SD102",
						Message: "call to overlap, call " + repl + " instead",
						SuggestedFixes: []analysis.SuggestedFix{{
							Message:   "call " + repl,
							TextEdits: []analysis.TextEdit{{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte(repl)}},
						}},
					})
				}
			}
		})
		return res, nil
	},
}

func testOptions(dir string, patterns ...string) Options {
	return Options{Dir: dir, Patterns: patterns, Analyzers: []*analysis.Analyzer{flagme}}
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tests bool
		want  []finding.Location
	}{
		{"no tests", false, []finding.Location{
			{File: "a/a.go", Line: 13, Column: 9, Function: "example.com/run/a.Plain"},
			{File: "a/a.go", Line: 20, Column: 9, Function: "example.com/run/a.(*T).M"},
			{File: "a/a.go", Line: 31, Column: 28, Function: "example.com/run/a.Closures.func2.2"},
			{File: "gen/gen.go", Line: 11, Column: 23, Function: "example.com/run/gen.G"},
		}},
		{"tests", true, []finding.Location{
			{File: "a/a.go", Line: 13, Column: 9, Function: "example.com/run/a.Plain"},
			{File: "a/a.go", Line: 20, Column: 9, Function: "example.com/run/a.(*T).M"},
			{File: "a/a.go", Line: 31, Column: 28, Function: "example.com/run/a.Closures.func2.2"},
			{File: "a/a_test.go", Line: 6, Column: 5, Function: "example.com/run/a.TestA"},
			{File: "gen/gen.go", Line: 11, Column: 23, Function: "example.com/run/gen.G"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := testOptions("testdata/run", "./...")
			opt.Tests = tc.tests
			res, err := Run(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []finding.Location
			for _, f := range res.Findings {
				if f.Rule != "SD101" {
					continue
				}
				got = append(got, f.Locations...)
				if f.Severity != finding.Warning || f.Fix != finding.MustLookup("SD101").Fix {
					t.Errorf("%v: severity %v, fix %q: want the catalog's", f.Locations, f.Severity, f.Fix)
				}
				if len(f.Evidence) != 1 || f.Evidence[0].Label != "argument" || f.Evidence[0].Value == 0 {
					t.Errorf("%v: evidence %v, want the analyzer's argument", f.Locations, f.Evidence)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("locations:\n got %v\nwant %v", got, tc.want)
			}
			if n := countRule(res.Findings, "SD102"); n != 2 {
				t.Errorf("%d SD102 findings, want 2", n)
			}
			if res.Summary.Analyzers != 1 || res.Summary.Files < 2 {
				t.Errorf("summary %+v", res.Summary)
			}
		})
	}
}

func countRule(fs []finding.Finding, rule string) int {
	n := 0
	for _, f := range fs {
		if f.Rule == rule {
			n++
		}
	}
	return n
}

// TestRunFix applies the fixes to a copy of testdata/run and compares the
// files with golden copies: flagme calls become fixed calls, of the two
// overlapping fixes only the first is applied, and the generated file is
// left alone.
func TestRunFix(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/run")); err != nil {
		t.Fatal(err)
	}
	opt := testOptions(dir, "./...")
	opt.Tests, opt.Fix = true, true
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Fixed != 5 || s.Skipped != 1 || !slices.Equal(s.Rewritten, []string{"a/a.go", "a/a_test.go"}) {
		t.Errorf("summary %+v: want 5 fixed, 1 skipped, a.go and a_test.go rewritten", s)
	}
	// What was fixed is no longer reported; the generated file's call and
	// the skipped overlapping fix are.
	var left []string
	for _, f := range res.Findings {
		left = append(left, f.Rule+" "+f.Locations[0].File)
	}
	if want := []string{"SD101 gen/gen.go", "SD102 a/a.go"}; !slices.Equal(left, want) {
		t.Errorf("findings left %q, want %q", left, want)
	}
	for _, name := range []string{"a/a.go", "a/a_test.go", "gen/gen.go"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "fix", filepath.Base(name)+".golden"), got)
	}
	// A second run finds only the generated file's call, and changes nothing.
	res, err = Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Fixed != 0 || len(res.Summary.Rewritten) != 0 || len(res.Findings) != 1 {
		t.Errorf("second run: summary %+v, %d findings; want nothing fixed, 1 finding", res.Summary, len(res.Findings))
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dir      string
		patterns []string
		want     []string // substrings of the error
	}{
		{"does not compile", "testdata/broken", []string{"./..."},
			[]string{"package example.com/broken/bad does not compile", "bad/bad.go:5:25: undefined: undefinedName"}},
		{"missing directory", "testdata/nosuchdir", []string{"./..."},
			[]string{"directory testdata/nosuchdir", "no such file or directory"}},
		{"missing package directory", "testdata/broken", []string{"./nosuchdir"},
			[]string{"nosuchdir"}},
		{"empty pattern", "testdata/broken", []string{""},
			[]string{"no packages matched", `empty package pattern ""`}},
		{"no patterns", "testdata/broken", nil,
			[]string{"no packages matched"}},
		{"matches nothing", "testdata/broken", []string{"./empty/..."},
			[]string{"no packages matched ./empty/..."}},
	} {
		for _, driver := range drivers(t) {
			t.Run(driver.name+"/"+tc.name, func(t *testing.T) {
				_, err := Run(context.Background(), driver.options(tc.dir, tc.patterns...))
				if err == nil {
					t.Fatal("no error")
				}
				t.Log(err)
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			})
		}
	}
	// The package that compiles alone is fine.
	for _, driver := range drivers(t) {
		if _, err := Run(context.Background(), driver.options("testdata/broken", "./ok")); err != nil {
			t.Errorf("%s: ./ok: %v", driver.name, err)
		}
	}
}

func TestRunAnalyzerPanic(t *testing.T) {
	boom := &analysis.Analyzer{Name: "boom", Doc: "panics", Run: func(*analysis.Pass) (any, error) { panic("boom") }}
	opt := testOptions("testdata/run", "./a")
	opt.Analyzers = []*analysis.Analyzer{boom}
	_, err := Run(context.Background(), opt)
	if err == nil || !strings.Contains(err.Error(), "boom@example.com/run/a: panicked") {
		t.Errorf("err = %v, want the panic as an error naming analyzer and package", err)
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, testOptions("testdata/run", "./..."))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestEditConflicts(t *testing.T) {
	for _, tc := range []struct {
		a, b edit
		want bool
	}{
		{edit{0, 5, "x"}, edit{0, 5, "x"}, false}, // identical: merged
		{edit{0, 5, "x"}, edit{0, 5, "y"}, true},
		{edit{0, 5, "x"}, edit{5, 7, "y"}, false}, // adjacent
		{edit{0, 5, "x"}, edit{4, 7, "y"}, true},
		{edit{3, 3, "x"}, edit{3, 3, "y"}, true}, // two insertions at one place
		{edit{3, 3, "x"}, edit{0, 5, ""}, true},  // insertion inside a deletion
		{edit{5, 5, "x"}, edit{0, 5, ""}, false}, // insertion at its end
	} {
		if got := tc.a.conflicts(tc.b); got != tc.want {
			t.Errorf("%v.conflicts(%v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := tc.b.conflicts(tc.a); got != tc.want {
			t.Errorf("%v.conflicts(%v) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestApplyEdits(t *testing.T) {
	src := []byte("package p\nfunc f() {   g() }\n")
	got, err := applyEdits(src, []edit{{start: 23, end: 24, text: "h"}, {start: 10, end: 10, text: "// f\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "package p\n\n// f\nfunc f() { h() }\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := applyEdits(src, []edit{{start: 0, end: 7, text: "pack age"}}); err == nil {
		t.Error("an edit that breaks the syntax was accepted")
	}
	if _, err := applyEdits(src, []edit{{start: 30, end: 99}}); err == nil {
		t.Error("an edit past the end was accepted")
	}
}

// FuzzApplyEdits applies two edits to a Go file: it must never panic, and
// what it returns must be gofmt'ed Go.
func FuzzApplyEdits(f *testing.F) {
	f.Add([]byte("package p\nfunc f() {   g() }\n"), 23, 24, "h", 10, 10, "// f\n")
	f.Add([]byte("package p\n"), 0, 0, "", 0, 0, "")
	f.Add([]byte("package p\nvar x = 1\n"), 18, 19, "2", 18, 19, "3")
	f.Fuzz(func(t *testing.T, src []byte, s1, e1 int, t1 string, s2, e2 int, t2 string) {
		a, b := edit{s1, e1, t1}, edit{s2, e2, t2}
		if a.conflicts(b) != b.conflicts(a) {
			t.Fatalf("conflicts is not symmetric for %v, %v", a, b)
		}
		es := []edit{a}
		if !a.conflicts(b) && a != b {
			es = append(es, b)
		}
		out, err := applyEdits(src, es)
		if err != nil {
			return
		}
		if again, err := format.Source(out); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("applyEdits returned unformatted or invalid Go: %q (%v)", out, err)
		}
	})
}

func TestRelPos(t *testing.T) {
	for in, want := range map[string]string{
		"/m/a/b.go:3:4":   "a/b.go:3:4",
		"/m/a/b.go:3":     "a/b.go:3",
		"/m/a/b.go":       "a/b.go",
		"/other/b.go:1:2": "/other/b.go:1:2",
	} {
		if got := relPos("/m", in); got != want {
			t.Errorf("relPos(%q) = %q, want %q", in, got, want)
		}
	}
}
