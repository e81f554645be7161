package cli

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/profile"
)

// TestHintsBecomeFlags: a library asks for an input in words (a Hint); the
// CLI alone names the flag, on a copy, leaving the caller's notes as the
// library wrote them.
func TestHintsBecomeFlags(t *testing.T) {
	f := finding.Finding{Rule: "SD204", What: "x"}
	f.Note(finding.NoteQualifier, "only 0.010 cores, cheap at this load")
	f.AddHint(finding.HintSourceDir, "source not found: give the module's source directory to read it")
	g := finding.Finding{Rule: "SD607", What: "y"}
	g.AddHint(finding.HintCostProbe, "measure this server's cost per connection")
	in := []finding.Finding{f, g}
	e := &Env{cmd: "profile"}
	out := e.withFlags(in)
	if got := out[0].Notes; got[0] != f.Notes[0] ||
		got[1].Text != "source not found: give the module's source directory to read it (-src DIR)" || got[1].Hint != finding.HintSourceDir {
		t.Errorf("source-dir hint: %+v", got)
	}
	if got := out[1].Notes[0].Text; got != "measure this server's cost per connection (-probe or -model)" {
		t.Errorf("cost hint: %q", got)
	}
	if in[0].Notes[1].Text != "source not found: give the module's source directory to read it" {
		t.Errorf("the caller's note was changed: %+v", in[0].Notes)
	}
	// Every hint the finding package defines has a flag here.
	for h := finding.HintNone + 1; !strings.HasPrefix(h.String(), "Hint("); h++ {
		if _, ok := hintFlags[h]; !ok {
			t.Errorf("hint %s has no flag in the CLI", h)
		}
	}
	// A command whose flag differs names its own.
	n := (&Env{cmd: "goroutines"}).notesWithFlags([]finding.Note{finding.HintNote(finding.HintInputLimit, "a larger limit")})
	if n[0].Text != "a larger limit (-max-bytes)" {
		t.Errorf("goroutines' limit hint: %q", n[0].Text)
	}
}

// TestErrorHints: an error carries what gets past it as data (a HintError,
// or a source's limit and deadline errors); the CLI adds its flag, the
// command's own where flags differ. Each case fails if the library names
// the flag itself (the message then already ends in a flag) or if the CLI
// forgets one.
func TestErrorHints(t *testing.T) {
	deadline := fmt.Errorf("http://x/debug/pprof/profile: no answer within 40s: %w", context.DeadlineExceeded)
	for _, tc := range []struct {
		cmd  string
		err  error
		want string
	}{
		{"goroutines", finding.WithHint(errors.New("d.txt: larger than the limit of 10 bytes"), finding.HintInputLimit), "raise -max-bytes if the input is genuine"},
		{"profile", &profile.LimitError{Limit: "frames", Value: 11, Max: 10, What: "frames"}, "raise -max-frames if the input is genuine"},
		{"profile", fmt.Errorf("p.pb.gz: %w", &profile.LimitError{Limit: "bytes", Value: 11, Max: 10, What: "decompressed bytes"}), "raise -max-mb if the input is genuine"},
		{"trace", fmt.Errorf("t.out: %w", exectrace.ErrGenerationTooLarge), "raise -max-generation-mb"},
		{"trace", fmt.Errorf("u: %w", httpfetch.ErrTooLarge), "raise -max-mb if the input is genuine"},
		{"profile", deadline, "raise -timeout, or a shorter -seconds"},
		{"goroutines", deadline, "raise -timeout"},
		{"procs", finding.WithHint(errors.New("procs needs Linux"), finding.HintSysroot), "give -sysroot DIR"},
		{"profile", errors.New("p: not a profile"), ""},
		{"check", finding.WithHint(errors.New("300 active targets"), finding.HintTargetLimit), "narrow with -selector, or raise -max-targets"},
	} {
		e := &Env{cmd: tc.cmd}
		if got := e.errorHint(tc.err); got != tc.want {
			t.Errorf("%s: %v: hint %q, want %q", tc.cmd, tc.err, got, tc.want)
		}
	}
}

// TestLibrariesNameNoFlag: no string a library writes names one of the
// CLI's flags. A library user has no flags; the hints say in data what to
// give, and this package names the flag. The rule catalog is
// documentation of the commands and may name them; so may the lab
// programs, which have their own flags.
func TestLibrariesNameNoFlag(t *testing.T) {
	flags := cliFlags(t)
	names := make([]string, 0, len(flags))
	for n := range flags {
		// A one-letter flag (-j, -q) is other programs' too (iptables -j,
		// grep -q): prose that names one is not taken for ours.
		if len(n) > 1 {
			names = append(names, regexp.QuoteMeta(n))
		}
	}
	slices.Sort(names)
	re := regexp.MustCompile("(^|[\\s(`])-(" + strings.Join(names, "|") + ")\\b")
	root := filepath.Join("..", "..")
	var hits []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel == "internal/cli", rel == "cmd", rel == "internal/lab", rel == "scripts",
				d.Name() == "testdata", strings.HasPrefix(d.Name(), ".") && rel != ".":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(rel, "finding/catalog") || strings.HasSuffix(rel, "rulethresholds.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			// A literal that is one word is an argument to another
			// program (go list -json, a lab's -duration), not prose.
			if err == nil && strings.ContainsAny(s, " \n") && re.MatchString(s) {
				hits = append(hits, fmt.Sprintf("%s: %q names %s", fset.Position(lit.Pos()), s, re.FindString(s)))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Error(h)
	}
}

// cliFlags are the flag names this package defines (fs.Int("name", ...),
// fs.IntVar(&v, "name", ...), fs.Var(&v, "name", ...)), read from its
// source so that a new flag is covered without a list to keep.
func cliFlags(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	flags := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			arg := 0
			switch m := sel.Sel.Name; {
			case m == "Var" || m == "Func" || m == "BoolFunc" || m == "TextVar":
				arg = 1
				if m == "Func" || m == "BoolFunc" {
					arg = 0
				}
			case strings.HasSuffix(m, "Var"):
				arg = 1
			case slices.Contains([]string{"Bool", "Int", "Int64", "Uint", "Uint64", "String", "Float64", "Duration"}, m):
				arg = 0
			default:
				return true
			}
			if len(call.Args) <= arg {
				return true
			}
			if lit, ok := call.Args[arg].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && name.MatchString(s) {
					flags[s] = true
				}
			}
			return true
		})
	}
	if len(flags) < 40 || !flags["src"] || !flags["max-bytes"] {
		t.Fatalf("read %d flags from the CLI's source (%v): the reader is broken", len(flags), flags)
	}
	return flags
}
