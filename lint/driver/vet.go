package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint"
	"github.com/schedoctor/schedoctor/lint/internal/evidence"
)

// runVet is Run through `go vet -vettool=opt.VetTool -json`: go vet
// analyzes one package per process, in parallel, with the dependencies'
// facts and its own results in the build cache, so memory stays that of one
// package whatever the size of the tree, and an unchanged package is not
// analyzed again. The tool (a schedoctor binary; see IsVetTool) hands
// each diagnostic's evidence and function back in a related-information
// note.
func runVet(ctx context.Context, dir string, opt Options) (Result, error) {
	if err := checkPatterns(opt.Patterns); err != nil {
		return Result{}, err
	}
	// go list runs beside go vet: it only reads metadata, and the summary
	// and the errors for patterns that match nothing need it, while a warm
	// go vet takes about as long as go list does.
	type listResult struct {
		pkgs []listedPackage
		err  error
	}
	listed := make(chan listResult, 1)
	go func() {
		pkgs, err := listPackages(ctx, dir, opt)
		listed <- listResult{pkgs, err}
	}()

	// "--": a pattern is never read as a flag (checkPatterns refuses
	// them already).
	args := append([]string{"vet", "-vettool=" + opt.VetTool, "-json", "--"}, opt.Patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, opt.Env
	setProcessGroup(cmd)
	var stdout bytes.Buffer
	stderr := &cappedBuffer{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	runErr := cmd.Run()
	lr := <-listed
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if lr.err != nil {
		return Result{}, lr.err
	}
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return Result{}, fmt.Errorf("running go vet: %w", runErr)
	}
	if runErr != nil {
		// go vet -json exits 0 on diagnostics; a failure is a package that
		// does not build or a tool that failed.
		return Result{}, vetError(dir, stderr.String())
	}

	c := collector{dir: dir, seen: map[diagKey]bool{}, files: map[*token.File]*ast.File{}, goFiles: map[string]bool{}}
	for _, p := range lr.pkgs {
		// go vet analyses the test files too, whatever opt.Tests says.
		for _, l := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles} {
			for _, f := range l {
				c.goFiles[filepath.Join(p.Dir, f)] = true
			}
		}
	}
	fset := token.NewFileSet()
	files := map[string]*token.File{}
	if err := decodeVet(&stdout, func(pkg, analyzer string, d jsonDiagnostic) error {
		return c.addVet(fset, files, opt, analyzer, d)
	}); err != nil {
		return Result{}, fmt.Errorf("reading go vet's output: %w", err)
	}

	res := Result{Summary: Summary{Analyzers: len(lint.Analyzers), Rewritten: []string{}}}
	res.Summary.Packages = len(lr.pkgs)
	for _, p := range lr.pkgs {
		res.Summary.Files += len(p.GoFiles) + len(p.CgoFiles)
		if opt.Tests {
			res.Summary.Files += len(p.TestGoFiles) + len(p.XTestGoFiles)
		}
	}
	return c.result(res, opt.Fix, dir)
}

// jsonDiagnostic is one diagnostic of go vet's -json output
// (x/tools/internal/analysis/driverutil.JSONDiagnostic).
type jsonDiagnostic struct {
	Category       string `json:"category"`
	Posn           string `json:"posn"`
	Message        string `json:"message"`
	SuggestedFixes []struct {
		Message string `json:"message"`
		Edits   []struct {
			Filename string `json:"filename"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
			New      string `json:"new"`
		} `json:"edits"`
	} `json:"suggested_fixes"`
	Related []struct {
		Posn    string `json:"posn"`
		Message string `json:"message"`
	} `json:"related"`
}

// decodeVet reads go vet's -json stream: one object per package, mapping
// the package ID to each analyzer's diagnostics, or to {"error": "..."}.
func decodeVet(r io.Reader, each func(pkg, analyzer string, d jsonDiagnostic) error) error {
	dec := json.NewDecoder(r)
	for {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		for _, pkg := range slices.Sorted(mapKeys(tree)) {
			for _, analyzer := range slices.Sorted(mapKeys(tree[pkg])) {
				raw := tree[pkg][analyzer]
				var failed struct {
					Err string `json:"error"`
				}
				if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
					if err := json.Unmarshal(raw, &failed); err != nil {
						return err
					}
					return fmt.Errorf("analyzer %s failed on %s: %s", analyzer, pkg, failed.Err)
				}
				var diags []jsonDiagnostic
				if err := json.Unmarshal(raw, &diags); err != nil {
					return fmt.Errorf("package %s, analyzer %s: %w", pkg, analyzer, err)
				}
				for _, d := range diags {
					if err := each(pkg, analyzer, d); err != nil {
						return err
					}
				}
			}
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// addVet turns one of go vet's diagnostics into a finding, like add does for
// the checker's.
func (c *collector) addVet(fset *token.FileSet, files map[string]*token.File, opt Options, analyzer string, d jsonDiagnostic) error {
	var note *vetNote
	for _, rel := range d.Related {
		if text, ok := strings.CutPrefix(rel.Message, noteMarker); ok {
			note = new(vetNote)
			if err := json.Unmarshal([]byte(text), note); err != nil {
				return fmt.Errorf("%s: evidence note: %w", d.Posn, err)
			}
		}
	}
	// go vet's position is the one a //line directive claims; the note
	// has the real one. The location follows collector.position's rule.
	file, line, col, err := splitPosn(d.Posn)
	if err != nil {
		return err
	}
	if note != nil && note.Posn != "" {
		rfile, rline, rcol, err := splitPosn(note.Posn)
		if err != nil {
			return err
		}
		if rfile != file && !c.goFiles[file] {
			file, line, col = rfile, rline, rcol
		}
	}
	if !opt.Tests && strings.HasSuffix(file, "_test.go") {
		return nil
	}
	k := diagKey{rule: d.Category, file: file, offset: line<<16 | col, message: d.Message}
	if c.seen[k] {
		return nil // the package and its test variant share the file
	}
	c.seen[k] = true
	f := finding.Finding{
		Message:   d.Message,
		Locations: []finding.Location{{File: relPath(c.dir, file), Line: line, Column: col}},
	}
	f.Rule, f.Severity, f.Fix = ruleOf(d.Category, analyzer)
	if note != nil {
		f.Locations[0].Function, f.Evidence = note.Function, note.Evidence
		if note.What != "" {
			evidence.Report{What: note.What, Because: note.Because, Notes: note.Notes}.Apply(&f)
		}
	}
	dg := diag{finding: f, fset: fset}
	if opt.Fix && len(d.SuggestedFixes) > 0 {
		fix := d.SuggestedFixes[0]
		sf := analysis.SuggestedFix{Message: fix.Message}
		for i, e := range fix.Edits {
			// The file the edit's offsets belong to: the note's, never
			// the name a //line directive gave go vet.
			name := ""
			if note != nil && len(note.Edits) == len(fix.Edits) {
				name = note.Edits[i]
			}
			if name == "" || !c.goFiles[name] {
				if name == "" {
					name = e.Filename + " (or the file a //line directive named so: the real one is unknown)"
				}
				dg.refused = name
				break
			}
			tf, err := tokenFile(fset, files, name)
			if err != nil {
				return err
			}
			if e.Start < 0 || e.End < e.Start || e.End > tf.Size() {
				return fmt.Errorf("%s: fix %q has an edit outside %s", d.Posn, fix.Message, name)
			}
			sf.TextEdits = append(sf.TextEdits, analysis.TextEdit{Pos: tf.Pos(e.Start), End: tf.Pos(e.End), NewText: []byte(e.New)})
			if dg.file == nil {
				// applyFixes reads only the header: is the file generated?
				dg.file, _ = parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
			}
		}
		dg.fixes = []analysis.SuggestedFix{sf}
	}
	c.diags = append(c.diags, dg)
	return nil
}

// tokenFile gives a file of the size it has now a place in fset, so that
// go vet's byte offsets become positions applyFixes understands.
func tokenFile(fset *token.FileSet, files map[string]*token.File, name string) (*token.File, error) {
	if tf, ok := files[name]; ok {
		return tf, nil
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("applying fixes: %w", err)
	}
	tf := fset.AddFile(name, -1, int(fi.Size()))
	files[name] = tf
	return tf, nil
}

// splitPosn splits token.Position's String: "file:line:col", or
// "file:line" when the column is unknown (after a //line directive
// without one, "//line parser.y:12", which goyacc writes), col then 0.
func splitPosn(posn string) (file string, line, col int, err error) {
	var nums []int // the trailing numbers, last first
	file = posn
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil || n < 0 || strings.Trim(file[i+1:], "0123456789") != "" {
			break
		}
		nums = append(nums, n)
		file = file[:i]
	}
	switch {
	case file == "" || len(nums) == 0:
		return "", 0, 0, fmt.Errorf("go vet position %q is not file:line[:column]", posn)
	case len(nums) == 1:
		return file, nums[0], 0, nil
	}
	return file, nums[1], nums[0], nil
}

// vetError words go vet's failure like load's: the first package that does
// not compile, with its first errors ("# pkg" then the compiler's lines).
func vetError(dir, stderr string) error {
	var pkg string
	var lines []string
	for l := range strings.SplitSeq(stderr, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case strings.HasPrefix(l, "# "):
			// go vet names a package twice: "# pkg" from the build, then
			// "# [pkg]" from vet's own check of it, before the messages.
			name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(l, "# "), "["), "]")
			if pkg != "" && name != pkg {
				goto done
			}
			pkg = name
		default:
			l = strings.TrimPrefix(l, "vet: ")
			if !slices.Contains(lines, l) {
				lines = append(lines, relPos(dir, l))
			}
		}
	}
done:
	var b strings.Builder
	if pkg != "" {
		fmt.Fprintf(&b, "package %s does not compile (fix it, or lint other packages):", pkg)
	} else {
		b.WriteString("go vet failed:")
	}
	if len(lines) == 0 {
		lines = []string{"(no message)"}
	}
	writeErrorLines(&b, lines)
	return errors.New(b.String())
}

// listedPackage is what go list says of one package.
type listedPackage struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	Error        *struct{ Err string }
}

// listPackages resolves the patterns with go list, for the summary and for
// the same errors as the in-process loader: a pattern that matches nothing,
// a directory that does not exist.
func listPackages(ctx context.Context, dir string, opt Options) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,Name,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Error", "--"}, opt.Patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, opt.Env
	setProcessGroup(cmd)
	var stdout bytes.Buffer
	stderr := &cappedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("cannot load %s:\n\t%s", strings.Join(opt.Patterns, " "), strings.ReplaceAll(strings.TrimSpace(stderr.String()), "\n", "\n\t"))
	}
	var out []listedPackage
	dec := json.NewDecoder(&stdout)
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		if p.Error != nil {
			if p.Name == "" && len(p.GoFiles) == 0 {
				return nil, fmt.Errorf("cannot load %s:\n\t%s", p.ImportPath, relPos(dir, p.Error.Err))
			}
			return nil, fmt.Errorf("package %s does not compile (fix it, or lint other packages):\n\t%s", p.ImportPath, relPos(dir, p.Error.Err))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %s", ErrNoPackages, strings.Join(opt.Patterns, " "))
	}
	return out, nil
}

// ErrFlagPattern is returned by Run for a pattern that is a flag.
var ErrFlagPattern = errors.New("a flag is not a package pattern")

// checkPatterns refuses what go list would read as "the current directory",
// and any pattern that starts with "-": it would reach go vet as a flag,
// and some of go's flags run a program (-toolexec, -exec, -vettool,
// -overlay's files, -modfile...). No flag is passed through: build flags
// belong in GOFLAGS, which the user sets (e.g. GOFLAGS=-tags=integration).
func checkPatterns(patterns []string) error {
	if len(patterns) == 0 {
		return fmt.Errorf("%w: no package patterns given", ErrNoPackages)
	}
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("%w: empty package pattern %q", ErrNoPackages, p)
		}
		if strings.HasPrefix(p, "-") {
			return fmt.Errorf("%w: %q (no flag is passed to go; set build flags such as -tags in GOFLAGS)", ErrFlagPattern, p)
		}
	}
	return nil
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// ruleOf is the rule, severity and fix of a diagnostic with category
// (analyzer's name when the category is empty).
func ruleOf(category, analyzer string) (string, finding.Severity, string) {
	rule, sev, _ := lint.SplitCategory(category)
	if rule == "" {
		rule = analyzer
	}
	fix := ""
	if r, ok := finding.Lookup(rule); ok {
		fix = r.Fix
	}
	return rule, sev, fix
}
