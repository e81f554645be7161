package driver

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
)

// copyLinedir copies testdata/linedir (module p, whose //line directives
// name ../other/auth.go of another module and gram.y) to a temporary
// directory and returns it with auth.go's bytes.
func copyLinedir(t *testing.T) (dir string, auth []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/linedir")); err != nil {
		t.Fatal(err)
	}
	auth, err := os.ReadFile(filepath.Join(dir, "other", "auth.go"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, auth
}

// TestFixNotThroughLineDirective (issue 19): -fix edits the file the
// parser read, never the one a //line directive names (here a file of
// another module); findings are located in the real file, and a directive
// without a column does not make the lint fail. Both drivers: in process
// (flagme) and through go vet (the real analyzers; SD106's fix).
func TestFixNotThroughLineDirective(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	for _, d := range drivers(t) {
		t.Run(d.name, func(t *testing.T) {
			dir, auth := copyLinedir(t)
			// First without -fix: where the findings are.
			res, err := Run(context.Background(), d.options(filepath.Join(dir, "p"), "./..."))
			if err != nil {
				t.Fatalf("lint failed: %v", err)
			}
			var locs []string
			for _, f := range res.Findings {
				locs = append(locs, f.Locations[0].File)
			}
			if len(locs) != 2 || slices.ContainsFunc(locs, func(l string) bool { return l != "p.go" }) {
				t.Errorf("findings in %q, want two in p.go (the file the directives are in)", locs)
			}

			opt := d.options(filepath.Join(dir, "p"), "./...")
			opt.Fix = true
			res, err = Run(context.Background(), opt)
			if err != nil {
				t.Fatalf("lint -fix failed: %v", err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "other", "auth.go"))
			if string(got) != string(auth) {
				t.Fatalf("lint -fix rewrote the other module's auth.go:\n%s", got)
			}
			if res.Summary.Fixed != 2 || !slices.Equal(res.Summary.Rewritten, []string{"p.go"}) || len(res.Summary.Refused) != 0 {
				t.Errorf("summary %+v: want 2 fixes, in p.go", res.Summary)
			}
			p, _ := os.ReadFile(filepath.Join(dir, "p", "p.go"))
			want := "select {}"
			if d.name == "in-process" {
				want = "return fixed(2)"
			}
			if strings.Count(string(p), want) < 1 {
				t.Errorf("p.go has no %q after -fix:\n%s", want, p)
			}
		})
	}
}

// TestFixOutsidePackagesRefused: a fix whose edit lands in a file that is
// not one of the analysed packages' Go files is not applied, and said.
func TestFixOutsidePackagesRefused(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.go")
	other := filepath.Join(dir, "other.go")
	for _, p := range []string{own, other} {
		if err := os.WriteFile(p, []byte("package p\n\nfunc f() { flagme() }\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fset := token.NewFileSet()
	tf := fset.AddFile(other, -1, 36)
	d := diag{
		finding: finding.Finding{Rule: "SD101", Locations: []finding.Location{{File: "own.go", Line: 3, Column: 12}}},
		fset:    fset,
		file:    nil,
		fixes: []analysis.SuggestedFix{{Message: "call fixed", TextEdits: []analysis.TextEdit{
			{Pos: tf.Pos(23), End: tf.Pos(29), NewText: []byte("fixed")}}}},
	}
	d.file = parseHeader(t, other)
	res, err := applyFixes([]diag{d}, map[string]bool{own: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.applied != 0 || len(res.refused) != 1 {
		t.Fatalf("applied %d, refused %v: want the fix refused", res.applied, res.refused)
	}
	if txt := res.refused[0].text(dir); !strings.Contains(txt, "own.go:3:12") || !strings.Contains(txt, "other.go, not a Go file of the analysed packages") {
		t.Errorf("refusal %q", txt)
	}
	if b, _ := os.ReadFile(other); !strings.Contains(string(b), "flagme") {
		t.Errorf("other.go was edited")
	}
}

// TestVetFixWithoutRealFile: go vet's edit without the tool's note of the
// real file (a //line directive may have renamed it) is refused.
func TestVetFixWithoutRealFile(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.go")
	os.WriteFile(own, []byte("package p\n\nfunc f() { for {} }\n"), 0o600)
	c := collector{dir: dir, seen: map[diagKey]bool{}, goFiles: map[string]bool{own: true}}
	var jd jsonDiagnostic
	jd.Category, jd.Posn, jd.Message = "SD106", own+":3:12", "empty loop"
	jd.SuggestedFixes = append(jd.SuggestedFixes, struct {
		Message string `json:"message"`
		Edits   []struct {
			Filename string `json:"filename"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
			New      string `json:"new"`
		} `json:"edits"`
	}{Message: "use select {}"})
	jd.SuggestedFixes[0].Edits = append(jd.SuggestedFixes[0].Edits, struct {
		Filename string `json:"filename"`
		Start    int    `json:"start"`
		End      int    `json:"end"`
		New      string `json:"new"`
	}{Filename: own, Start: 22, End: 28, New: "select {}"})
	if err := c.addVet(token.NewFileSet(), map[string]*token.File{}, Options{Fix: true}, "spinwait", jd); err != nil {
		t.Fatal(err)
	}
	res, err := applyFixes(c.diags, c.goFiles)
	if err != nil {
		t.Fatal(err)
	}
	if res.applied != 0 || len(res.refused) != 1 {
		t.Errorf("applied %d, refused %v: want the fix refused", res.applied, res.refused)
	}
}

func TestSplitPosn(t *testing.T) {
	for _, tc := range []struct {
		in        string
		file      string
		line, col int
		wantErr   bool
	}{
		{"/a/b.go:3:4", "/a/b.go", 3, 4, false},
		{"/a/gram.y:12", "/a/gram.y", 12, 0, false}, // //line without a column
		{`C:\a\b.go:3:4`, `C:\a\b.go`, 3, 4, false},
		{"/a:1/b.go:3:4", "/a:1/b.go", 3, 4, false},
		{"/a/b.go", "", 0, 0, true},
		{":3:4", "", 0, 0, true},
		{"", "", 0, 0, true},
		{"/a/b.go:x:4", "/a/b.go:x", 4, 0, false},
	} {
		file, line, col, err := splitPosn(tc.in)
		if (err != nil) != tc.wantErr || file != tc.file || line != tc.line || col != tc.col {
			t.Errorf("splitPosn(%q) = %q, %d, %d, %v", tc.in, file, line, col, err)
		}
	}
}

// TestFlagPatternsRefused (issue 19): "lint -- -toolexec=PROG" must not
// hand the flag to go: -toolexec, -exec and -vettool run programs.
func TestFlagPatternsRefused(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	prog := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\nexec \"$@\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range drivers(t) {
		for _, flag := range []string{"-toolexec=" + prog, "-exec=" + prog, "-vettool=" + prog, "-n", "--toolexec=" + prog} {
			_, err := Run(context.Background(), d.options("testdata/run", flag, "./..."))
			if !errors.Is(err, ErrFlagPattern) {
				t.Errorf("%s: %s: %v, want ErrFlagPattern", d.name, flag, err)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the program given with a flag ran")
	}
}

// parseHeader parses path's package clause, as applyFixes needs (is the
// file generated?).
func parseHeader(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
