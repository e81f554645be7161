package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/schedoctor/schedoctor/finding"
)

// maxSiblings bounds how many other files of the package are parsed to
// type the asked file: enough for any hand-written package, not a
// generated monster.
const maxSiblings = 200

// resolve finds the file a profile recorded: as recorded, else under each
// SrcDir by the recorded path's suffixes, longest first.
func (r *Resolver) resolve(file string) (string, error) {
	if file == "" {
		return "", fmt.Errorf("empty file name: %w", ErrNoSource)
	}
	if ok, err := r.candidate(file); ok || err != nil {
		return file, err
	}
	// Recorded paths use slashes (profiles of Windows builds included).
	slashed := filepath.ToSlash(file)
	if !strings.Contains(slashed, "/") {
		slashed = strings.ReplaceAll(slashed, `\`, "/") // a Windows path read on Unix
	}
	elems := strings.Split(strings.Trim(slashed, "/"), "/")
	if len(elems) > 0 && strings.HasSuffix(elems[0], ":") {
		elems = elems[1:] // a Windows drive, "C:"
	}
	for _, dir := range r.SrcDirs {
		for i := range elems {
			rel := filepath.FromSlash(strings.Join(elems[i:], "/"))
			if rel == "" || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			p := filepath.Join(dir, rel)
			if ok, err := r.candidate(p); ok || err != nil {
				return p, err
			}
		}
	}
	if len(r.SrcDirs) == 0 {
		return "", fmt.Errorf("%s: %w (give the source root with -src DIR)", file, ErrNoSource)
	}
	return "", fmt.Errorf("%s: %w, neither as recorded nor under %s", file, ErrNoSource, strings.Join(r.SrcDirs, ", "))
}

// candidate reports whether p exists; an error when it exists but cannot be
// read as a source file (a directory, a device, a FIFO). A missing path is
// not an error: the next candidate is tried.
func (r *Resolver) candidate(p string) (bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("reading %s: not a regular file (%s)", p, fi.Mode().Type())
	}
	return true, nil
}

// isNotDir is ENOTDIR: a prefix of the path is a file.
func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

func (r *Resolver) maxSize() int64 {
	if r.MaxFileSize > 0 {
		return r.MaxFileSize
	}
	return DefaultMaxFileSize
}

// readSource reads a regular file of at most max bytes.
func readSource(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("reading %s: not a regular file (%s)", p, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("reading %s: %d bytes, above the %d-byte limit for a source file", p, fi.Size(), max)
	}
	// The file may grow between Stat and Read: never read past the limit.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("reading %s: above the %d-byte limit for a source file", p, max)
	}
	return data, nil
}

// fileEntry is a parsed file with the leniently typed package around it.
type fileEntry struct {
	path   string // as resolved: what Loop.Path reports
	abs    string // absolute: the name in fset and in findings
	lines  int
	fset   *token.FileSet
	file   *ast.File   // the asked file
	files  []*ast.File // the package's files as typed, file first
	pkg    *types.Package
	info   *types.Info
	decls  map[*types.Func]*ast.FuncDecl // functions of the package, for calls
	byName map[string][]*ast.FuncDecl    // the same by name, when types are missing

	mu        sync.Mutex // guards summaries
	summaries map[*ast.FuncDecl]*summary

	lintOnce sync.Once
	lint     []finding.Finding // the analyzers on these files alone
}

// file returns the parsed entry of path, reading it on first use.
func (r *Resolver) file(path string) (*fileEntry, error) {
	r.mu.Lock()
	if fe, ok := r.files[path]; ok {
		r.mu.Unlock()
		return fe, nil
	}
	r.mu.Unlock()
	fe, err := r.parse(path)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[string]*fileEntry{}
	}
	if old, ok := r.files[path]; ok {
		return old, nil // another goroutine parsed it meanwhile
	}
	r.files[path] = fe
	return fe, nil
}

// parse reads path and its package's other files (same directory, same
// package clause, matching this platform's build constraints) and type
// checks them leniently.
func (r *Resolver) parse(path string) (*fileEntry, error) {
	data, err := readSource(path, r.maxSize())
	if err != nil {
		return nil, err
	}
	// The file set holds absolute names: findings are located by them,
	// and comparing them is then a string compare, not a Getwd per finding.
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("locating %s: %w", path, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, abs, data, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	if err != nil && len(f.Decls) == 0 {
		return nil, fmt.Errorf("parsing %s: %w", path, err) // not Go at all
	}
	fe := &fileEntry{path: path, abs: abs, fset: fset, file: f, files: []*ast.File{f}, summaries: map[*ast.FuncDecl]*summary{}}
	fe.lines = bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		fe.lines++
	}
	fe.files = append(fe.files, r.siblings(fset, abs, f.Name.Name)...)
	fe.check()
	return fe, nil
}

// siblings parses the other files of path's package, best effort: a file
// that cannot be read or parsed is left out.
func (r *Resolver) siblings(fset *token.FileSet, path, pkgName string) []*ast.File {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	test := strings.HasSuffix(path, "_test.go")
	var out []*ast.File
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if len(out) == maxSiblings || p == path || !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if strings.HasSuffix(name, "_test.go") && !test {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		data, err := readSource(p, r.maxSize())
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(fset, p, data, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || f.Name.Name != pkgName {
			continue // an external test package, or broken
		}
		out = append(out, f)
	}
	return out
}

// check type checks the files, ignoring every error: the standard library
// comes from export data, other imports are empty packages. What cannot be
// typed is left untyped and the classifier falls back on syntax there.
func (fe *fileEntry) check() {
	fe.info = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		Implicits:    map[ast.Node]types.Object{},
		Scopes:       map[ast.Node]*types.Scope{},
		Instances:    map[*ast.Ident]types.Instance{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer:         lenientImporter{},
		Error:            func(error) {},
		Sizes:            types.SizesFor("gc", runtime.GOARCH),
		FakeImportC:      true,
		IgnoreFuncBodies: false,
	}
	pkg, _ := func() (p *types.Package, err error) {
		// The type checker does not panic on bad input, but a lenient
		// configuration is not its common path: never take the caller down.
		defer func() {
			if recover() != nil {
				err = errors.New("type checker panicked")
			}
		}()
		return conf.Check(fe.file.Name.Name, fe.fset, fe.files, fe.info)
	}()
	fe.pkg = pkg
	fe.decls = map[*types.Func]*ast.FuncDecl{}
	fe.byName = map[string][]*ast.FuncDecl{}
	for _, f := range fe.files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, ok := fe.info.Defs[fd.Name].(*types.Func); ok {
				fe.decls[fn] = fd
			}
			fe.byName[fd.Name.Name] = append(fe.byName[fd.Name.Name], fd)
		}
	}
}

// stdImporter reads the standard library's export data (through the go
// command and its build cache); shared because it caches what it read.
var stdImporter = struct {
	sync.Mutex
	imp    types.Importer
	failed map[string]bool // paths it could not import: asked once, not per file
}{imp: importer.Default(), failed: map[string]bool{}}

// lenientImporter imports the standard library and gives every other path
// an empty, complete package: a binary built elsewhere rarely has its
// dependencies here, and asking the go command for them could reach the
// network.
type lenientImporter struct{}

func (lenientImporter) Import(path string) (*types.Package, error) {
	if finding.StdPackage(path) {
		stdImporter.Lock()
		var p *types.Package
		err := errors.New("failed before")
		if !stdImporter.failed[path] {
			p, err = stdImporter.imp.Import(path)
			if err != nil {
				stdImporter.failed[path] = true
			}
		}
		stdImporter.Unlock()
		if err == nil {
			return p, nil
		}
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i] // gopkg.in/yaml.v3 is package yaml, go-foo is foo (a guess)
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}
