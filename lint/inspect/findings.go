package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint"
	"github.com/schedoctor/schedoctor/lint/driver"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
	"github.com/schedoctor/schedoctor/lint/loops"
)

// pkgKey identifies a package load: the directory, and whether the test
// files were asked for (a hot line in a _test.go file of a benchmark).
type pkgKey struct {
	dir   string
	tests bool
}

// pkgEntry is one load's outcome, computed once.
type pkgEntry struct {
	once     sync.Once
	findings []finding.Finding
	err      error
}

// findings returns the analyzers' findings in path between lines start and
// end, from the loaded package when it loads (typed) or from the file's
// leniently typed package.
func (r *Resolver) findings(fe *fileEntry, start, end int) ([]finding.Finding, bool) {
	var all []finding.Finding
	typed := false
	if !r.NoLoad {
		fs, err := r.loadPackage(fe.abs)
		if err == nil {
			all, typed = fs, true
		}
	}
	if !typed {
		all = r.untypedFindings(fe)
	}
	var out []finding.Finding
	for _, f := range all {
		if len(f.Locations) == 0 {
			continue
		}
		l := f.Locations[0]
		if l.File == fe.abs && l.Line >= start && l.Line <= end {
			out = append(out, f)
		}
	}
	return out, typed
}

func (r *Resolver) loadTimeout() time.Duration {
	if r.LoadTimeout > 0 {
		return r.LoadTimeout
	}
	return DefaultLoadTimeout
}

// loadPackage runs the analyzers on the package holding path, once per
// directory; findings carry absolute paths.
func (r *Resolver) loadPackage(abs string) ([]finding.Finding, error) {
	key := pkgKey{dir: filepath.Dir(abs), tests: strings.HasSuffix(abs, "_test.go")}
	r.mu.Lock()
	if r.pkgs == nil {
		r.pkgs = map[pkgKey]*pkgEntry{}
	}
	e, ok := r.pkgs[key]
	if !ok {
		e = &pkgEntry{}
		r.pkgs[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.findings, e.err = runLint(key, abs, r.VetTool, r.loadTimeout()) })
	return e.findings, e.err
}

// runLint is driver.Run on the package of file, bounded in time, with a go
// command that never reaches the network, and never panicking.
func runLint(key pkgKey, file, vetTool string, timeout time.Duration) (fs []finding.Finding, err error) {
	defer func() {
		if p := recover(); p != nil {
			fs, err = nil, fmt.Errorf("analysing the package of %s panicked: %v", file, p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	env := append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local")
	opt := driver.Options{
		Dir:      key.dir,
		Patterns: []string{"file=" + file},
		Tests:    key.tests,
		Env:      env,
	}
	if vetTool != "" {
		// go vet takes packages, not files: the directory is the package.
		opt.VetTool, opt.Patterns = vetTool, []string{"."}
	}
	res, err := driver.Run(ctx, opt)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("loading the package of %s: took longer than %v", file, timeout)
		}
		return nil, fmt.Errorf("loading the package of %s: %w", file, err)
	}
	for i := range res.Findings {
		for j, l := range res.Findings[i].Locations {
			if l.File != "" && !filepath.IsAbs(l.File) {
				res.Findings[i].Locations[j].File = filepath.Join(key.dir, l.File)
			}
		}
	}
	return res.Findings, nil
}

// analysed is what the analyzers said of one leniently typed file's
// package: the loops' verdicts and the diagnostics, computed once.
type analysed struct {
	once     sync.Once
	loops    *loops.Result
	findings []finding.Finding
	err      error
}

// analysis runs the analyzers and lint/loops on the file's leniently
// typed package, once per file.
func (r *Resolver) analysis(fe *fileEntry) *analysed {
	r.mu.Lock()
	if r.analyses == nil {
		r.analyses = map[*fileEntry]*analysed{}
	}
	a, ok := r.analyses[fe]
	if !ok {
		a = &analysed{}
		r.analyses[fe] = a
	}
	r.mu.Unlock()
	a.once.Do(func() { a.loops, a.findings, a.err = fe.analyse(!r.NoFindings) })
	return a
}

// untypedFindings returns the analyzers' findings on the file's
// leniently typed package.
func (r *Resolver) untypedFindings(fe *fileEntry) []finding.Finding {
	return r.analysis(fe).findings
}

// analyse runs lint/loops, and the other analyzers too when withLint
// (their findings are wanted), on the file's leniently typed package.
func (fe *fileEntry) analyse(withLint bool) (res *loops.Result, out []finding.Finding, err error) {
	if fe.pkg == nil {
		return nil, nil, fmt.Errorf("%s: the file could not be type checked, even leniently", fe.path)
	}
	defer func() {
		if p := recover(); p != nil {
			res, out, err = nil, nil, fmt.Errorf("%s: the analyzers failed on the file (a bug; please report it): %v", fe.path, p)
		}
	}()
	var names []string
	for _, f := range fe.files {
		names = append(names, fe.fset.File(f.FileStart).Name())
	}
	pkg := &packages.Package{
		ID:              "inspect:" + fe.abs,
		Name:            fe.file.Name.Name,
		PkgPath:         fe.pkg.Path(),
		GoFiles:         names,
		CompiledGoFiles: names,
		Fset:            fe.fset,
		Syntax:          fe.files,
		Types:           fe.pkg,
		TypesInfo:       fe.info,
		TypesSizes:      types.SizesFor("gc", runtime.GOARCH),
	}
	roots := []*analysis.Analyzer{loops.Analyzer}
	if withLint {
		roots = append(roots, lint.Analyzers...)
	}
	roots = recovering(roots)
	graph, err := checker.Analyze(roots, []*packages.Package{pkg}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: running the analyzers: %w", fe.path, err)
	}
	for _, act := range graph.Roots {
		if act.Err != nil {
			if act.Analyzer.Name == loops.Analyzer.Name {
				return nil, nil, fmt.Errorf("%s: judging the loops: %w", fe.path, act.Err)
			}
			continue
		}
		if l, ok := act.Result.(*loops.Result); ok {
			res = l
			continue
		}
		ev, _ := act.Result.(*evidence.Result)
		for _, d := range act.Diagnostics {
			out = append(out, fe.toFinding(act.Analyzer.Name, d, ev))
		}
	}
	finding.Sort(out)
	out = slices.CompactFunc(out, func(a, b finding.Finding) bool {
		return a.Rule == b.Rule && a.Text() == b.Text() && a.Locations[0] == b.Locations[0]
	})
	return res, out, nil
}

func (fe *fileEntry) toFinding(analyzer string, d analysis.Diagnostic, ev *evidence.Result) finding.Finding {
	pos := fe.fset.Position(d.Pos)
	rule, sev, _ := lint.SplitCategory(d.Category)
	if rule == "" {
		rule = analyzer
	}
	f := finding.Finding{Rule: rule, Message: d.Message, Severity: sev}
	if rep, ok := ev.Parts(d.Pos, d.Message); ok {
		rep.Apply(&f)
	}
	if c, ok := finding.Lookup(rule); ok {
		f.Fix = c.Fix
	}
	fn := ""
	if pos.Filename == fe.abs {
		if name := funcName(fe.chain(pos.Line)); name != "" {
			fn = fe.file.Name.Name + "." + name
		}
	}
	f.Locations = []finding.Location{{File: pos.Filename, Line: pos.Line, Column: pos.Column, Function: fn}}
	if ev != nil {
		f.Evidence = slices.Clone(ev.ByPos[d.Pos])
	}
	return f
}

// recovering returns copies of analyzers, and of every analyzer they
// require, whose Run turns a panic into an error: the checker runs them
// on goroutines of its own, where a panic on a leniently typed file would
// take the whole process down. Each pass finds its requirements' results
// under the originals too, where the analyzers look them up.
func recovering(analyzers []*analysis.Analyzer) []*analysis.Analyzer {
	copies := map[*analysis.Analyzer]*analysis.Analyzer{}
	var cp func(a *analysis.Analyzer) *analysis.Analyzer
	cp = func(a *analysis.Analyzer) *analysis.Analyzer {
		if c, ok := copies[a]; ok {
			return c
		}
		c := *a
		copies[a] = &c
		c.Requires = make([]*analysis.Analyzer, len(a.Requires))
		for i, r := range a.Requires {
			c.Requires[i] = cp(r)
		}
		run := a.Run
		c.Run = func(pass *analysis.Pass) (res any, err error) {
			defer func() {
				if p := recover(); p != nil {
					res, err = nil, fmt.Errorf("analyzer %s panicked on %s: %v", a.Name, pass.Pkg.Path(), p)
				}
			}()
			// The pass's ResultOf is keyed by the copies; an analyzer
			// that reads a requirement's result by the original's
			// pointer finds it under both.
			for orig, c := range copies {
				if r, ok := pass.ResultOf[c]; ok {
					pass.ResultOf[orig] = r
				}
			}
			return run(pass)
		}
		return &c
	}
	out := make([]*analysis.Analyzer, len(analyzers))
	for i, a := range analyzers {
		out[i] = cp(a)
	}
	return out
}
