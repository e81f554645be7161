// Package driver runs schedoctor's code analyzers (lint.Analyzers, or any
// others that follow their contract) on a tree of packages and turns their
// diagnostics into findings: Run loads the packages with go/packages and
// analyzes them in this process on go/analysis/checker, or hands them to
// `go vet -vettool` (a schedoctor binary whose main calls VetToolMain when
// IsVetTool says go vet runs it), and applies the suggested fixes on
// request. It is what `schedoctor lint` and lint/inspect run.
//
// It is apart from package lint, the analyzers' registry, because the
// golangci-lint plugin and schedoctor-vet bring their own driver: they
// import lint alone and do not carry go/packages, the checker or os/exec.
package driver

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint"
	"github.com/schedoctor/schedoctor/lint/internal/astutil"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// ErrNoPackages is returned by Run when the patterns match no package.
var ErrNoPackages = errors.New("no packages matched")

// Options control Run. Patterns is required ("./..." for a whole module);
// the zero value of every other field is the default.
type Options struct {
	// Dir is the directory packages are loaded from and the one finding
	// locations are relative to; "" means the current directory.
	Dir string
	// Patterns are go list package patterns: "./...", "std", import paths.
	Patterns []string
	// Tests also loads the packages' _test.go files and their test variants
	// (analyzers may still choose to skip test code; schedoctor's do).
	Tests bool
	// Fix applies the analyzers' suggested fixes to the files on disk.
	// Findings whose fix was applied are not reported.
	Fix bool
	// Analyzers to run; nil means lint.Analyzers. Every one must set
	// Diagnostic.Category to a catalog rule ID, optionally followed by
	// "/" and the finding's severity (see lint.SplitCategory).
	Analyzers []*analysis.Analyzer
	// Env is the environment of the go command that loads the packages;
	// nil means the current process's.
	Env []string
	// VetTool is the path of a schedoctor binary (one whose main calls
	// VetToolMain when IsVetTool says go vet runs it). When set, and
	// Analyzers is nil, Run hands the packages to `go vet -vettool`, which
	// analyzes them one per process with its build cache: memory stays flat
	// on any tree and unchanged packages are not analyzed again. Empty
	// means every package is loaded and analyzed in this process.
	VetTool string
}

// Result is what Run found.
type Result struct {
	Findings []finding.Finding
	Summary  Summary
}

// Summary holds the figures of a lint run, shown with the findings.
type Summary struct {
	Packages  int      `json:"packages"`  // packages linted (a test variant is the same package)
	Files     int      `json:"files"`     // Go files linted
	Analyzers int      `json:"analyzers"` // analyzers run
	Fixed     int      `json:"fixed"`     // suggested fixes applied (-fix)
	Skipped   int      `json:"skipped"`   // suggested fixes not applied because they conflicted
	Rewritten []string `json:"rewritten"` // files rewritten by -fix, relative like locations
	// Refused are the fixes -fix did not apply because they edit a file
	// that is not one of the analysed packages' Go files (a //line
	// directive never redirects an edit), each "file:line: why".
	Refused []string `json:"refused,omitempty"`
}

// WriteText prints the summary above the findings of the text report.
func (s Summary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "linted %s (%s) with %s\n", plural(s.Packages, "package"), plural(s.Files, "file"), plural(s.Analyzers, "analyzer"))
	if err == nil && (s.Fixed > 0 || s.Skipped > 0) {
		_, err = fmt.Fprintf(w, "applied %s, rewrote %s\n", plural(s.Fixed, "fix"), strings.Join(s.Rewritten, ", "))
		if err == nil && s.Skipped > 0 {
			_, err = fmt.Fprintf(w, "skipped %s that overlap others: run again to apply them\n", plural(s.Skipped, "fix"))
		}
	}
	for _, r := range s.Refused {
		if err == nil {
			_, err = fmt.Fprintf(w, "refused a fix: %s\n", r)
		}
	}
	return err
}

// plural is "1 file", "2 files", "3 fixes".
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "x"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Run loads the packages matched by opt.Patterns and runs the analyzers on
// them through go/analysis/checker. Packages that do not compile are refused
// with an error naming the package and its first errors: analyzers on
// ill-typed code report nonsense.
//
// Findings are deduplicated across a package and its test variant, located
// relative to opt.Dir and carry the evidence each analyzer recorded for the
// diagnostic in its *evidence.Result.
func Run(ctx context.Context, opt Options) (Result, error) {
	analyzers := opt.Analyzers
	if analyzers == nil {
		analyzers = lint.Analyzers
	}
	dir, err := workDir(opt.Dir)
	if err != nil {
		return Result{}, err
	}
	if opt.VetTool != "" && opt.Analyzers == nil {
		return runVet(ctx, dir, opt)
	}
	pkgs, err := load(ctx, dir, opt, analyzers)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	graph, err := checker.Analyze(recovering(analyzers), pkgs, nil)
	if err != nil {
		return Result{}, fmt.Errorf("running the analyzers: %w", err)
	}

	c := collector{dir: dir, seen: map[diagKey]bool{}, files: map[*token.File]*ast.File{}, goFiles: map[string]bool{}}
	for _, p := range pkgs {
		// GoFiles, not CompiledGoFiles: for a cgo package those are the
		// build cache's generated files, whose //line directives name these.
		for _, f := range p.GoFiles {
			c.goFiles[f] = true
		}
	}
	var errs []error
	for _, act := range graph.Roots {
		if act.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", act, act.Err))
			continue
		}
		c.add(act)
	}
	if len(errs) > 0 {
		return Result{}, fmt.Errorf("analysis failed: %w", errors.Join(errs...))
	}

	res := Result{Summary: Summary{Analyzers: len(analyzers), Rewritten: []string{}}}
	paths, files := map[string]bool{}, map[string]bool{}
	for _, p := range pkgs {
		paths[p.PkgPath] = true
		for _, f := range p.CompiledGoFiles {
			files[f] = true
		}
	}
	res.Summary.Packages, res.Summary.Files = len(paths), len(files)
	return c.result(res, opt.Fix, dir)
}

// result completes res with the collected diagnostics, applying their
// fixes first when fix is set.
func (c *collector) result(res Result, fix bool, dir string) (Result, error) {
	if fix {
		fr, err := applyFixes(c.diags, c.goFiles)
		if err != nil {
			return Result{}, err
		}
		res.Summary.Fixed, res.Summary.Skipped = fr.applied, fr.skipped
		for _, r := range fr.refused {
			res.Summary.Refused = append(res.Summary.Refused, r.text(dir))
		}
		for _, f := range fr.rewritten {
			res.Summary.Rewritten = append(res.Summary.Rewritten, relPath(dir, f))
		}
		for i := range c.diags {
			if !fr.fixed[i] {
				res.Findings = append(res.Findings, c.diags[i].finding)
			}
		}
	} else {
		for _, d := range c.diags {
			res.Findings = append(res.Findings, d.finding)
		}
	}
	finding.Sort(res.Findings)
	return res, nil
}

// recovering returns copies of analyzers whose Run turns a panic into an
// error naming the analyzer and the package: the checker runs analyzers on
// goroutines of its own, where a panic would kill the process.
func recovering(analyzers []*analysis.Analyzer) []*analysis.Analyzer {
	out := make([]*analysis.Analyzer, len(analyzers))
	for i, a := range analyzers {
		w := *a
		run := a.Run
		w.Run = func(pass *analysis.Pass) (res any, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panicked (a bug in the analyzer; please report it): %v", r)
				}
			}()
			return run(pass)
		}
		out[i] = &w
	}
	return out
}

// workDir resolves Options.Dir to an absolute directory that exists.
func workDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("finding the working directory: %w", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("directory %s: not a directory", dir)
	}
	return abs, nil
}

// load loads the patterns with the syntax and types the checker needs, and
// refuses patterns that match nothing and packages that do not compile.
func load(ctx context.Context, dir string, opt Options, analyzers []*analysis.Analyzer) ([]*packages.Package, error) {
	if err := checkPatterns(opt.Patterns); err != nil {
		return nil, err
	}
	// Analyzers with facts run on every dependency and need their syntax;
	// the others only need the roots' (LoadSyntax types the rest from
	// export data, which is much faster on std).
	mode := packages.LoadSyntax | packages.NeedModule
	if needFacts(analyzers) {
		mode = packages.LoadAllSyntax | packages.NeedModule
	}
	cfg := &packages.Config{
		Context: ctx,
		Mode:    mode,
		Dir:     dir,
		Tests:   opt.Tests,
		Env:     opt.Env,
	}
	pkgs, err := packages.Load(cfg, opt.Patterns...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("loading %s: %w", strings.Join(opt.Patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoPackages, strings.Join(opt.Patterns, " "))
	}
	if err := packageErrors(dir, pkgs); err != nil {
		return nil, err
	}
	// With Tests, go list adds each package's generated test main
	// ("p.test"), whose only file is in the build cache: nothing to lint.
	pkgs = slices.DeleteFunc(pkgs, func(p *packages.Package) bool {
		return opt.Tests && p.Name == "main" && strings.HasSuffix(p.ID, ".test")
	})
	return pkgs, nil
}

// maxErrors is how many compile errors a refused package shows.
const maxErrors = 5

// writeErrorLines writes the first maxErrors of lines to b, one per
// indented line, and how many more there were: a package with hundreds of
// compile errors is refused in a screenful.
func writeErrorLines(b *strings.Builder, lines []string) {
	for i, l := range lines {
		if i == maxErrors {
			fmt.Fprintf(b, "\n\t(and %d more)", len(lines)-maxErrors)
			return
		}
		fmt.Fprintf(b, "\n\t%s", l)
	}
}

// packageErrors reports the first package (in the import graph of pkgs,
// dependencies first) that has errors, with its first few errors. A pattern
// that names a missing directory or a package that does not exist shows up
// here too, as a package with a list error.
func packageErrors(dir string, pkgs []*packages.Package) error {
	var bad *packages.Package
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if bad == nil && len(p.Errors) > 0 {
			bad = p
		}
	})
	if bad == nil {
		return nil
	}
	var b strings.Builder
	if bad.Name == "" && len(bad.CompiledGoFiles) == 0 {
		// Not a package but a pattern go list could not resolve.
		fmt.Fprintf(&b, "cannot load %s:", bad.ID)
	} else {
		fmt.Fprintf(&b, "package %s does not compile (fix it, or lint other packages):", bad.PkgPath)
	}
	// go list's build error ("# pkg" then the compiler's lines) and the
	// type checker's often say the same thing: show each line once.
	var lines []string
	for _, e := range bad.Errors {
		msg := e.Msg
		if e.Pos != "" && e.Pos != "-" {
			msg = relPos(dir, e.Pos) + ": " + msg
		}
		for l := range strings.SplitSeq(msg, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "# ") && !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	writeErrorLines(&b, lines)
	return errors.New(b.String())
}

// needFacts reports whether an analyzer, or one it requires, uses facts.
func needFacts(analyzers []*analysis.Analyzer) bool {
	seen := map[*analysis.Analyzer]bool{}
	var visit func([]*analysis.Analyzer) bool
	visit = func(as []*analysis.Analyzer) bool {
		for _, a := range as {
			if seen[a] {
				continue
			}
			seen[a] = true
			if len(a.FactTypes) > 0 || visit(a.Requires) {
				return true
			}
		}
		return false
	}
	return visit(analyzers)
}

// diag is one diagnostic kept for the report, with what -fix needs.
type diag struct {
	finding finding.Finding
	fset    *token.FileSet
	file    *ast.File
	fixes   []analysis.SuggestedFix
	// refused names the file that the fix in fixes[0] would edit when it is
	// known, before applyFixes, not to be one -fix may edit.
	refused string
}

// diagKey identifies a diagnostic across a package and its test variant,
// which share files but not token positions.
type diagKey struct {
	rule, file string
	offset     int
	message    string
}

// collector turns root actions' diagnostics into findings.
type collector struct {
	dir   string
	seen  map[diagKey]bool
	files map[*token.File]*ast.File
	// goFiles are the analysed packages' Go files (absolute): the only
	// files -fix edits, and the only ones a //line directive may move a
	// location to.
	goFiles map[string]bool
	diags   []diag
}

// position is where a finding at pos is reported: the place in the file
// the parser read (PositionFor(pos, false)), unless a //line directive
// moves it to another Go file of the analysed packages (what cgo's
// generated files do, naming the .go file the user wrote). A directive
// naming anything else (a goyacc grammar, a file of another module) is
// not followed: the report names the real file. A directive without a
// column ("//line f.go:12") gives column 0.
func (c *collector) position(fset *token.FileSet, pos token.Pos) token.Position {
	raw := fset.PositionFor(pos, false)
	if adj := fset.PositionFor(pos, true); adj.Filename != raw.Filename && c.goFiles[adj.Filename] {
		return adj
	}
	return raw
}

func (c *collector) add(act *checker.Action) {
	if len(act.Diagnostics) == 0 {
		return
	}
	ev, _ := act.Result.(*evidence.Result)
	fset := act.Package.Fset
	for _, f := range act.Package.Syntax {
		c.files[fset.File(f.FileStart)] = f
	}
	for _, d := range act.Diagnostics {
		pos := c.position(fset, d.Pos)
		k := diagKey{rule: d.Category, file: fset.PositionFor(d.Pos, false).Filename, offset: pos.Offset, message: d.Message}
		if c.seen[k] {
			continue
		}
		c.seen[k] = true
		f := finding.Finding{
			Message: d.Message,
			Locations: []finding.Location{{
				File:   relPath(c.dir, pos.Filename),
				Line:   pos.Line,
				Column: pos.Column,
			}},
		}
		f.Rule, f.Severity, f.Fix = ruleOf(d.Category, act.Analyzer.Name)
		file := c.files[fset.File(d.Pos)]
		if file != nil {
			f.Locations[0].Function = enclosingFunc(act.Package.Types, file, d.Pos)
		}
		if ev != nil {
			f.Evidence = slices.Clone(ev.ByPos[d.Pos])
		}
		if rep, ok := ev.Parts(d.Pos, d.Message); ok {
			rep.Apply(&f)
		}
		c.diags = append(c.diags, diag{finding: f, fset: fset, file: file, fixes: d.SuggestedFixes})
	}
}

// relPath makes file relative to dir when it lies under dir, and leaves it
// absolute otherwise (a std package linted from a module is not "../..").
func relPath(dir, file string) string {
	rel, err := filepath.Rel(dir, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return rel
}

// relPos applies relPath to the file of a "file:line:col" position.
func relPos(dir, pos string) string {
	file, rest := pos, ""
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		if strings.Trim(file[i+1:], "0123456789") != "" {
			break
		}
		file, rest = file[:i], file[i:]+rest
	}
	return relPath(dir, file) + rest
}

// enclosingFunc names the function that contains pos as the Go toolchain
// (and so a CPU profile) names it: "pkg.F", "pkg.(*T).M", "pkg.F.func1",
// "pkg.F.func1.2", with "main" for the path of a command. That lets a lint
// finding be matched with a profile's hot function.
func enclosingFunc(pkg *types.Package, file *ast.File, pos token.Pos) string {
	prefix := file.Name.Name
	if pkg != nil && pkg.Name() != "main" {
		prefix = pkg.Path()
	}
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || pos < fd.Pos() || pos >= fd.End() {
			continue
		}
		name := prefix + "." + astutil.FuncDeclName(fd)
		if fd.Body == nil {
			return name
		}
		return name + closureSuffix(fd.Body, pos)
	}
	return ""
}

// closureSuffix numbers the function literals around pos the way the
// compiler does: literals directly in a function are func1, func2, ... in
// source order; those inside func1 are func1.1, func1.2, ...
func closureSuffix(body ast.Node, pos token.Pos) string {
	var suffix strings.Builder
	depth := 0
	for {
		n := 0
		var inner *ast.FuncLit
		ast.Inspect(body, func(node ast.Node) bool {
			if inner != nil {
				return false
			}
			lit, ok := node.(*ast.FuncLit)
			if !ok || node == body {
				return true
			}
			n++
			if pos >= lit.Pos() && pos < lit.End() {
				inner = lit
			}
			return false // literals inside lit are numbered on the next round
		})
		if inner == nil {
			return suffix.String()
		}
		if depth == 0 {
			fmt.Fprintf(&suffix, ".func%d", n)
		} else {
			fmt.Fprintf(&suffix, ".%d", n)
		}
		depth++
		body = inner
	}
}
