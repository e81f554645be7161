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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sysread"
)

// maxSiblings bounds how many other files of the package are parsed to
// type the asked file: enough for any hand-written package, not a
// generated monster.
const maxSiblings = 200

// What a Resolver may read. The paths it is asked about come from a
// profile or trace, which may come from anywhere: a remote target (check
// URL, profile URL), a bug report, a directory someone saved. Read as
// given, they made schedoctor open /etc/passwd or /proc/self/environ, or a
// ".go" name that is a symlink to a secret, and quote the start of the file
// in its report; joined under -src DIR, "../" in them climbed out of DIR.
// So:
//
//   - only a regular file whose name ends in ".go" is read;
//   - under a root (SrcDirs, Access.Roots) a recorded path's suffixes are
//     looked up only when filepath.IsLocal (no "..", not absolute), and
//     opened through os.Root: a symlink that stays inside the root is
//     followed, one that leaves it is refused;
//   - a recorded absolute path is opened as recorded by Access.Origin:
//     for the caller's own build anywhere, through its own directory (the
//     final name must be the regular file itself, not a symlink; nothing
//     under /proc, /sys or /dev); for an input file of this machine only
//     inside the roots and the toolchain's source (GOROOT, module cache);
//     for a remote input never, only its suffixes under the roots;
//   - the package around a file (its siblings) is read through the same
//     root, with the same rules;
//   - one Budget bounds the run's reading (files, bytes, packages, time).

// Access says which files a Resolver may open besides those under SrcDirs.
// The zero value is the caller's own build with no further root.
type Access struct {
	// Roots are further directories whose files may be read, after
	// SrcDirs, by the recorded path's suffixes: the module (or GOPATH
	// src) the user runs in (WorkRoots).
	Roots []string
	// Origin says where the recorded paths come from, and so whether
	// they may be opened as recorded.
	Origin Origin
}

// Origin is where the paths a profile or trace records come from.
type Origin int

const (
	// OwnBuild: the caller built and ran the program on this machine (the
	// demo, tests): a recorded path is read as recorded, wherever it is
	// (still only as the regular .go file itself).
	OwnBuild Origin = iota
	// LocalFile: an input file of this machine, whoever made it (the
	// user's profile, or one attached to a bug report): a recorded
	// absolute path is read as recorded only inside the roots (SrcDirs,
	// Roots) and the toolchain's source (GOROOT, the module cache, GOPATH
	// src), which is where a build on this machine records its files.
	LocalFile
	// Remote: a target captured over HTTP, a profile or trace fetched
	// from a URL, a directory saved from a target: the recorded paths are
	// another machine's, never opened as recorded, only looked up under
	// the roots by their suffixes.
	Remote
)

// Budget bounds the source reading of one Resolver, that is of one run: a
// profile of 3.6 KB that names files in 100 packages made the reader parse
// and type check every one of them (35–45 s, up to 2.2 GB, most of it the
// standard library's export data for their imports: about 0.4 s a
// package). A zero field takes DefaultBudget's.
type Budget struct {
	Files    int           // Go files read, the packages' other files included
	Bytes    int64         // bytes of them
	Packages int           // packages parsed and type checked
	Time     time.Duration // from the first read
}

// DefaultBudget: a profile asks for at most 12 hot lines
// (profile.MaxCandidates), each in one package at worst, then the outer
// frames of its hot stacks; 16 packages cover those lines and a few
// callers. At about 0.4 s a package (the measurement above; more on a
// busy machine) 16 packages take some 6 s, hence 10 s. Files and bytes
// are far above what 16 packages of hand-written code hold and bound
// generated ones.
var DefaultBudget = Budget{Files: 2000, Bytes: 64 << 20, Packages: 16, Time: 10 * time.Second}

// ErrBudget is returned (wrapped, with the limit reached) for every file
// asked after the run's Budget was spent: nothing more is read, and the
// report says so.
var ErrBudget = errors.New("source reading stopped: the run's budget is spent")

// spent is what a Resolver read so far.
type spent struct {
	mu       sync.Mutex
	start    time.Time
	files    int
	bytes    int64
	packages int
	stopped  string // the limit reached, "" while within the budget
}

func (r *Resolver) budget() Budget {
	b := r.Budget
	d := DefaultBudget
	if b.Files <= 0 {
		b.Files = d.Files
	}
	if b.Bytes <= 0 {
		b.Bytes = d.Bytes
	}
	if b.Packages <= 0 {
		b.Packages = d.Packages
	}
	if b.Time <= 0 {
		b.Time = d.Time
	}
	return b
}

// deadline is when the run's time budget ends: its first read plus
// Budget.Time (from now, before the first read).
func (r *Resolver) deadline() time.Time {
	b := r.budget()
	r.spent.mu.Lock()
	defer r.spent.mu.Unlock()
	if r.spent.start.IsZero() {
		return time.Now().Add(b.Time)
	}
	return r.spent.start.Add(b.Time)
}

// charge counts a package (pkg) or one file of size bytes against the
// budget and returns ErrBudget, wrapped with the limit, once it is spent.
// A file is charged before it is parsed: the one that reaches a limit is
// not read.
func (r *Resolver) charge(pkg bool, size int64) error {
	b := r.budget()
	sp := &r.spent
	sp.mu.Lock()
	defer sp.mu.Unlock()
	first := sp.start.IsZero()
	if first {
		sp.start = time.Now()
	}
	if sp.stopped == "" {
		switch {
		case !first && time.Since(sp.start) > b.Time:
			sp.stopped = fmt.Sprintf("%v of reading (the limit)", b.Time)
		case pkg && sp.packages >= b.Packages:
			sp.stopped = fmt.Sprintf("%d packages read (the limit)", b.Packages)
		case !pkg && sp.files >= b.Files:
			sp.stopped = fmt.Sprintf("%d files read (the limit)", b.Files)
		case !pkg && sp.bytes+size > b.Bytes:
			sp.stopped = fmt.Sprintf("%d MB read (the limit)", b.Bytes>>20)
		}
	}
	if sp.stopped != "" {
		return fmt.Errorf("%w after %s", ErrBudget, sp.stopped)
	}
	if pkg {
		sp.packages++
	} else {
		sp.files++
		sp.bytes += size
	}
	return nil
}

// WorkRoots returns the roots of the source the user runs in: the module
// around the working directory (the directory of the nearest go.mod
// above it), else the GOPATH src directory that holds it; none outside
// both.
func WorkRoots() []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	for d := wd; ; {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return []string{d}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for _, gp := range filepath.SplitList(build.Default.GOPATH) {
		src := filepath.Join(gp, "src")
		if rel, err := filepath.Rel(src, wd); err == nil && filepath.IsLocal(rel) {
			return []string{src}
		}
	}
	return nil
}

// toolchainRoots are where a build on this machine records the files of
// the standard library and of dependencies: GOROOT, the module cache,
// GOPATH's src directories.
func toolchainRoots() []string {
	var roots []string
	if build.Default.GOROOT != "" {
		roots = append(roots, build.Default.GOROOT)
	}
	gopath := filepath.SplitList(build.Default.GOPATH)
	if mc := os.Getenv("GOMODCACHE"); mc != "" {
		roots = append(roots, mc)
	} else if len(gopath) > 0 {
		roots = append(roots, filepath.Join(gopath[0], "pkg", "mod"))
	}
	for _, gp := range gopath {
		roots = append(roots, filepath.Join(gp, "src"))
	}
	return roots
}

// srcLoc is where a recorded file was found: rel inside the directory
// base, opened as an os.Root. follow says whether symlinks that stay
// inside base are followed (a root the user named) or refused (the
// recorded path's own directory: its final name must be the file).
type srcLoc struct {
	base, rel string
	follow    bool
}

// resolve finds the file a profile recorded: as recorded when the input
// is local, else (or when it is missing) under each root by the recorded
// path's suffixes, longest first. It returns the path to report and where
// to open it.
func (r *Resolver) resolve(file string) (string, srcLoc, error) {
	if file == "" {
		return "", srcLoc{}, fmt.Errorf("empty file name: %w", ErrNoSource)
	}
	// Recorded paths use slashes (profiles of Windows builds included).
	slashed := filepath.ToSlash(file)
	if !strings.Contains(slashed, "/") {
		slashed = strings.ReplaceAll(slashed, `\`, "/") // a Windows path read on Unix
	}
	if !strings.HasSuffix(slashed, ".go") {
		return "", srcLoc{}, fmt.Errorf("%s: %w (not a .go file: not read)", file, ErrNoSource)
	}
	roots := append(slices.Clone(r.SrcDirs), r.Access.Roots...)
	if r.Access.Origin != Remote {
		if p, loc, ok, err := r.asRecorded(file, roots); ok || err != nil {
			return p, loc, err
		}
	}
	elems := strings.Split(strings.Trim(slashed, "/"), "/")
	if len(elems) > 0 && strings.HasSuffix(elems[0], ":") {
		elems = elems[1:] // a Windows drive, "C:"
	}
	for _, dir := range roots {
		for i := range elems {
			rel := filepath.FromSlash(strings.Join(elems[i:], "/"))
			if !filepath.IsLocal(rel) {
				continue
			}
			loc := srcLoc{base: dir, rel: rel, follow: true}
			if ok, err := candidate(loc); ok || err != nil {
				return filepath.Join(dir, rel), loc, err
			}
		}
	}
	switch {
	case len(roots) == 0 && r.Access.Origin == Remote:
		return "", srcLoc{}, finding.WithHint(fmt.Errorf("%s: %w (recorded by a remote target: read only under a source root given)", file, ErrNoSource), finding.HintSourceDir)
	case len(roots) == 0:
		return "", srcLoc{}, finding.WithHint(fmt.Errorf("%s: %w (no source root given)", file, ErrNoSource), finding.HintSourceDir)
	case r.Access.Origin != OwnBuild:
		return "", srcLoc{}, fmt.Errorf("%s: %w under %s", file, ErrNoSource, strings.Join(roots, ", "))
	}
	return "", srcLoc{}, fmt.Errorf("%s: %w, neither as recorded nor under %s", file, ErrNoSource, strings.Join(roots, ", "))
}

// asRecorded finds a local input's recorded path where it says: inside a
// root when it lies in one (that root's rules; for a LocalFile the
// toolchain's source counts as roots), else, for OwnBuild only, through
// its own directory. ok is false when there is no such file (the roots
// are tried next).
func (r *Resolver) asRecorded(file string, roots []string) (string, srcLoc, bool, error) {
	if r.Access.Origin == LocalFile {
		roots = append(slices.Clone(roots), toolchainRoots()...)
	}
	clean := filepath.Clean(file)
	if !filepath.IsAbs(clean) {
		// Relative to the working directory: the caller's own build run
		// from here; any other input finds it by suffix under the roots.
		if r.Access.Origin != OwnBuild || !filepath.IsLocal(clean) {
			return "", srcLoc{}, false, nil // "../x.go": only its suffixes
		}
		loc := srcLoc{base: ".", rel: clean, follow: true}
		ok, err := candidate(loc)
		return file, loc, ok, err
	}
	for _, dir := range roots {
		absDir, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(absDir, clean); err == nil && filepath.IsLocal(rel) {
			loc := srcLoc{base: dir, rel: rel, follow: true}
			ok, err := candidate(loc)
			return file, loc, ok, err
		}
	}
	if r.Access.Origin != OwnBuild {
		return "", srcLoc{}, false, nil
	}
	for _, sys := range []string{"/proc", "/sys", "/dev"} {
		if clean == sys || strings.HasPrefix(clean, sys+string(filepath.Separator)) {
			return "", srcLoc{}, false, nil
		}
	}
	// Lstat first: a path that is missing, or not a regular file, leads to
	// no open at all (not even of its directory).
	fi, err := os.Lstat(clean)
	switch {
	case err != nil:
		return "", srcLoc{}, false, nil
	case fi.Mode().Type() == fs.ModeSymlink:
		return "", srcLoc{}, false, finding.WithHint(fmt.Errorf("reading %s: a symlink (a recorded name is read only when it is the file itself; give a source root to read it under)", file), finding.HintSourceDir)
	case !fi.Mode().IsRegular():
		return "", srcLoc{}, false, fmt.Errorf("reading %s: not a regular file (%s)", file, fi.Mode().Type())
	}
	return file, srcLoc{base: filepath.Dir(clean), rel: filepath.Base(clean)}, true, nil
}

// candidate reports whether loc names a file; an error when it exists but
// may not be read as a source file (a directory, a device, a FIFO, a link
// out of its root). A missing path is not an error: the next candidate is
// tried.
func candidate(loc srcLoc) (bool, error) {
	root, err := os.OpenRoot(loc.base)
	if err != nil {
		return false, nil
	}
	defer root.Close()
	fi, err := statIn(root, loc)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %s: %w", filepath.Join(loc.base, loc.rel), unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("reading %s: not a regular file (%s)", filepath.Join(loc.base, loc.rel), fi.Mode().Type())
	}
	return true, nil
}

func statIn(root *os.Root, loc srcLoc) (fs.FileInfo, error) {
	if loc.follow {
		return root.Stat(loc.rel)
	}
	return root.Lstat(loc.rel)
}

// unwrapPath drops an *fs.PathError's own path (os.Root's is relative to
// the root): the message names the file itself.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
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

// readSource reads rel, a regular file of at most max bytes, through root
// by loc's rules, and charges it to the budget.
func (r *Resolver) readSource(root *os.Root, rel string, follow bool, display string, max int64) ([]byte, error) {
	fi, err := statIn(root, srcLoc{rel: rel, follow: follow})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("reading %s: not a regular file (%s)", display, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("reading %s: %d bytes, above the %d-byte limit for a source file", display, fi.Size(), max)
	}
	if err := r.charge(false, fi.Size()); err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	// Checked regular, opened without blocking (a swap to a FIFO), and
	// checked to be the file that was checked.
	f, err := root.OpenFile(rel, os.O_RDONLY|sysread.OpenFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, unwrapPath(err))
	}
	defer f.Close()
	ofi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, err)
	}
	if !os.SameFile(fi, ofi) {
		return nil, fmt.Errorf("reading %s: changed while being opened", display)
	}
	// The file may grow between Stat and Read: never read past the limit.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", display, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("reading %s: above the %d-byte limit for a source file", display, max)
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

// file returns the parsed entry of path (found at loc), reading it on
// first use.
func (r *Resolver) file(path string, loc srcLoc) (*fileEntry, error) {
	r.mu.Lock()
	if fe, ok := r.files[path]; ok {
		r.mu.Unlock()
		return fe, nil
	}
	r.mu.Unlock()
	fe, err := r.parse(path, loc)
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
// checks them leniently. Every file is read through loc's root.
func (r *Resolver) parse(path string, loc srcLoc) (*fileEntry, error) {
	if err := r.charge(true, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root, err := os.OpenRoot(loc.base)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer root.Close()
	data, err := r.readSource(root, loc.rel, loc.follow, path, r.maxSize())
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
	fe.files = append(fe.files, r.siblings(fset, root, loc, abs, f.Name.Name)...)
	fe.check(r.deadline())
	return fe, nil
}

// siblings parses the other files of path's package, best effort: a file
// that cannot be read or parsed is left out, and the reading stops when
// the budget is spent. They are read through root, by loc's rules.
func (r *Resolver) siblings(fset *token.FileSet, root *os.Root, loc srcLoc, path, pkgName string) []*ast.File {
	dir := filepath.Dir(path)
	relDir := filepath.Dir(loc.rel)
	d, err := root.Open(relDir)
	if err != nil {
		return nil
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return nil
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
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
		data, err := r.readSource(root, filepath.Join(relDir, name), loc.follow, p, r.maxSize())
		if errors.Is(err, ErrBudget) {
			break
		}
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
// comes from export data until deadline (see lenientImporter), other
// imports are empty packages. What cannot be typed is left untyped and the
// classifier falls back on syntax there.
func (fe *fileEntry) check(deadline time.Time) {
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
		Importer:         lenientImporter{deadline: deadline},
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
	// late is set while an import that outlived a run's deadline is still
	// running: the go command is building the package (a cold build
	// cache: 19 s for net/http on two CPUs). Imports asked meanwhile are not
	// queued behind it; once it ends, the export data is in the cache.
	late atomic.Bool
}{imp: importer.Default(), failed: map[string]bool{}}

// lenientImporter imports the standard library and gives every other path
// an empty, complete package: a binary built elsewhere rarely has its
// dependencies here, and asking the go command for them could reach the
// network. A standard-library import still running at deadline is given
// up (the go command finishes in the background): the source reading keeps
// its time budget, and the file is typed without that package.
type lenientImporter struct {
	deadline time.Time
}

func (li lenientImporter) Import(path string) (*types.Package, error) {
	if finding.StdPackage(path) && !stdImporter.late.Load() {
		type result struct {
			p   *types.Package
			err error
		}
		done := make(chan result, 1)
		go func() {
			stdImporter.Lock()
			defer stdImporter.Unlock()
			if stdImporter.failed[path] {
				done <- result{err: errors.New("failed before")}
				return
			}
			p, err := stdImporter.imp.Import(path)
			if err != nil {
				stdImporter.failed[path] = true
			}
			stdImporter.late.Store(false)
			done <- result{p, err}
		}()
		t := time.NewTimer(time.Until(li.deadline))
		defer t.Stop()
		select {
		case r := <-done:
			if r.err == nil {
				return r.p, nil
			}
		case <-t.C:
			stdImporter.late.Store(true)
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
