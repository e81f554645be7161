package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// module is what the tests read of the module: its import graph and its
// Go files.
type module struct {
	root  string   // the directory of go.mod
	files []string // every Go file of every package, relative to root
	graph graph
}

var loaded struct {
	once sync.Once
	m    *module
	err  error
}

// loadModule lists the module's packages once per test binary.
func loadModule(t *testing.T) *module {
	t.Helper()
	loaded.once.Do(func() { loaded.m, loaded.err = load() })
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return loaded.m
}

// listed is the part of `go list -json` the tests read.
type listed struct {
	ImportPath string
	Dir        string
	Module     *struct{ Path string }
	Error      *struct{ Err string }

	GoFiles, CgoFiles, IgnoredGoFiles, TestGoFiles, XTestGoFiles []string
}

// load asks the go command for the module's packages and their files, then
// reads every file's imports itself: go list reports only the imports of
// the files that build on this GOOS, GOARCH and tag set, and a file for
// another system (proc_other.go) or behind a tag (soak, race) must keep
// to the layers too. Files that build with no tag set (//go:build ignore)
// are separate programs and are left out, as go/build/deps_test.go does.
func load() (*module, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command lists the module's packages: %w", err)
	}
	gomod, err := exec.Command(gobin, "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	m := &module{root: filepath.Dir(strings.TrimSpace(string(gomod)))}
	modPath, err := exec.Command(gobin, "list", "-m", "-f", "{{.Path}}").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	mod := strings.TrimSpace(string(modPath))

	cmd := exec.Command(gobin, "list", "-e", "-json=ImportPath,Dir,Module,Error,GoFiles,CgoFiles,IgnoredGoFiles,TestGoFiles,XTestGoFiles", "./...")
	cmd.Dir = m.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./... in %s: %w\n%s", m.root, err, stderr.Bytes())
	}
	rel := func(path string) (string, bool) {
		if path == mod {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	seen := map[edge]bool{} // one edge per (from, to, test), from the first file
	fset := token.NewFileSet()
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		from, ok := rel(p.ImportPath)
		if !ok || p.Module == nil || p.Module.Path != mod {
			continue
		}
		if p.Error != nil && p.Dir == "" {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		m.graph.pkgs = append(m.graph.pkgs, from)
		names := slices.Concat(p.GoFiles, p.CgoFiles, p.IgnoredGoFiles, p.TestGoFiles, p.XTestGoFiles)
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				return nil, fmt.Errorf("reading the imports of %s: %w", path, err)
			}
			file, err := filepath.Rel(m.root, path)
			if err != nil {
				return nil, err
			}
			file = filepath.ToSlash(file)
			if ignored(f.Comments, f.Package) {
				continue
			}
			m.files = append(m.files, file)
			for _, spec := range f.Imports {
				imp, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: import %s: %w", file, spec.Path.Value, err)
				}
				to, ok := rel(imp)
				if !ok {
					continue
				}
				e := edge{from: from, to: to, test: strings.HasSuffix(name, "_test.go")}
				if seen[e] {
					continue
				}
				seen[e] = true
				e.file = file
				m.graph.edges = append(m.graph.edges, e)
			}
		}
	}
	if len(m.graph.pkgs) == 0 {
		return nil, fmt.Errorf("go list ./... in %s listed no package of %s", m.root, mod)
	}
	return m, nil
}

// ignored reports whether a file's build constraint, before its package
// clause, is "ignore": a program run by hand, not part of the package.
func ignored(comments []*ast.CommentGroup, pkg token.Pos) bool {
	for _, g := range comments {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}
