package driver

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/format"
	"os"
	"slices"

	"github.com/schedoctor/schedoctor/finding"
)

// edit is one analysis.TextEdit resolved to byte offsets in a file.
type edit struct {
	start, end int
	text       string
}

// conflicts reports whether two different edits touch the same bytes, or
// insert different text at the same place.
func (a edit) conflicts(b edit) bool {
	if a == b {
		return false // the same edit, from two fixes: applied once
	}
	if a.start == a.end && b.start == b.end {
		return a.start == b.start
	}
	return a.start < b.end && b.start < a.end
}

// fixResult is what applyFixes did.
type fixResult struct {
	fixed     map[int]bool // indexes of diags whose fix was applied
	applied   int
	skipped   int
	rewritten []string // absolute file names, sorted
	// refused are the fixes not applied because they edit a file that is
	// not one of the analysed packages' Go files, or whose real file is
	// unknown.
	refused []refusal
}

// refusal is one fix -fix refused.
type refusal struct {
	at   finding.Location // the finding's
	fix  string           // the fix's message
	file string           // the file it would edit (absolute), or why unknown
}

// text is "file:line: fix "msg" edits F, not a Go file of the analysed
// packages", with F relative to dir like locations.
func (r refusal) text(dir string) string {
	at := r.at
	at.Function = ""
	return fmt.Sprintf("%s: fix %q edits %s, not a Go file of the analysed packages", at, r.fix, relPath(dir, r.file))
}

// applyFixes applies the first suggested fix of each diagnostic to the files
// on disk, the way x/tools' checkers do (their code is internal): fixes are
// taken in order, a fix is applied whole or not at all, one that overlaps an
// edit already taken is skipped (identical edits merge), generated files are
// left alone, and each rewritten file is gofmt'ed. A file that changed since
// it was loaded, or a fix that leaves a file unparsable, is an error and no
// file is written.
//
// Only the analysed packages' own Go files are edited (files: absolute
// names): an edit is located by its token.File, the file the parser read,
// never by the name a //line directive gives (a package could otherwise
// name a file of another module); a fix with an edit elsewhere (the build
// cache's cgo output, another module) is refused whole, and said.
func applyFixes(diags []diag, files map[string]bool) (fixResult, error) {
	res := fixResult{fixed: map[int]bool{}}
	accepted := map[string][]edit{} // by file name
	sizes := map[string]int{}
	for i, d := range diags {
		if d.refused != "" {
			res.refused = append(res.refused, refusal{at: d.finding.Locations[0], fix: d.fixes[0].Message, file: d.refused})
			continue
		}
		if len(d.fixes) == 0 || d.file == nil || ast.IsGenerated(d.file) {
			continue
		}
		fix := d.fixes[0]
		byFile := map[string][]edit{}
		ok, outside := true, ""
		for _, te := range fix.TextEdits {
			tf := d.fset.File(te.Pos)
			end := te.End
			if !end.IsValid() {
				end = te.Pos
			}
			if tf == nil || tf != d.fset.File(end) || end < te.Pos {
				return res, fmt.Errorf("%s: fix %q has an edit outside its file", d.finding.Rule, fix.Message)
			}
			name := tf.Name()
			if !files[name] {
				outside = name
				break
			}
			sizes[name] = tf.Size()
			e := edit{start: tf.Offset(te.Pos), end: tf.Offset(end), text: string(te.NewText)}
			for _, a := range append(accepted[name], byFile[name]...) {
				if e.conflicts(a) {
					ok = false
				}
			}
			byFile[name] = append(byFile[name], e)
		}
		if outside != "" {
			res.refused = append(res.refused, refusal{at: d.finding.Locations[0], fix: fix.Message, file: outside})
			continue
		}
		if !ok {
			res.skipped++
			continue
		}
		for name, es := range byFile {
			for _, e := range es {
				if !slices.Contains(accepted[name], e) {
					accepted[name] = append(accepted[name], e)
				}
			}
		}
		res.fixed[i] = true
		res.applied++
	}

	out := map[string][]byte{}
	for name, es := range accepted {
		src, err := os.ReadFile(name)
		if err != nil {
			return res, fmt.Errorf("applying fixes: %w", err)
		}
		if len(src) != sizes[name] {
			return res, fmt.Errorf("applying fixes: %s changed since it was analyzed (%d bytes, was %d); run again", name, len(src), sizes[name])
		}
		fixed, err := applyEdits(src, es)
		if err != nil {
			return res, fmt.Errorf("applying fixes to %s: %w", name, err)
		}
		out[name] = fixed
	}
	for name, data := range out {
		fi, err := os.Stat(name)
		if err != nil {
			return res, fmt.Errorf("applying fixes: %w", err)
		}
		if err := os.WriteFile(name, data, fi.Mode().Perm()); err != nil {
			return res, fmt.Errorf("applying fixes: %w", err)
		}
		res.rewritten = append(res.rewritten, name)
	}
	slices.Sort(res.rewritten)
	return res, nil
}

// applyEdits applies non-conflicting edits to src and gofmts the result.
func applyEdits(src []byte, es []edit) ([]byte, error) {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	var b bytes.Buffer
	last := 0
	for _, e := range es {
		if e.start < last || e.start > e.end || e.end > len(src) {
			return nil, fmt.Errorf("edit at offset %d..%d out of range or overlapping", e.start, e.end)
		}
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	formatted, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the fixed file does not parse: %w", err)
	}
	return formatted, nil
}
