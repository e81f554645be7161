package deps

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outside matches the names of the design notes kept beside the module,
// in a folder of their own, while it was built: a reader of the module has
// none of them, so a comment must point at its docs/ instead, or say the
// fact itself.
var outside = regexp.MustCompile(`DESIGN\.md|RUNTIME-FACTS|STYLE\.md|\.\./shared\b`)

// docLink matches a page of the module's docs named in a comment.
var docLink = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_./-]*\.md)`)

// checkComments returns an error for each comment of one Go file that
// points outside the module, or at a page of docs/ that exists() says is
// not there. A name with "xxx" in it is a pattern (docs/rules/SDxxx.md),
// not a page.
func checkComments(file string, src []byte, exists func(page string) bool) []error {
	var errs []error
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(file, -1, len(src)), src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		for i, line := range strings.Split(lit, "\n") {
			at := fset.Position(pos)
			at.Line += i
			if m := outside.FindString(line); m != "" {
				errs = append(errs, fmt.Errorf("%s:%d: a comment points at %s, outside the module: point at a page of docs/ or say the fact itself", file, at.Line, m))
			}
			for _, m := range docLink.FindAllStringSubmatch(line, -1) {
				page := strings.TrimRight(m[1], ".")
				if strings.Contains(strings.ToLower(page), "xxx") || exists(page) {
					continue
				}
				errs = append(errs, fmt.Errorf("%s:%d: a comment points at %s, which the module does not have", file, at.Line, page))
			}
		}
	}
	return errs
}

// TestCommentsStayInModule checks every Go file of the module (tests
// included): no comment points at a design note outside the module, and
// every docs/*.md page a comment names exists.
func TestCommentsStayInModule(t *testing.T) {
	m := loadModule(t)
	exists := func(page string) bool {
		_, err := os.Stat(filepath.Join(m.root, filepath.FromSlash(page)))
		return err == nil
	}
	for _, file := range m.files {
		src, err := os.ReadFile(filepath.Join(m.root, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range checkComments(file, src, exists) {
			t.Error(err)
		}
	}
}

// TestCheckComments plants comments that point outside the module, and
// close ones that do not.
func TestCheckComments(t *testing.T) {
	src := `// Package p is the model (DESIGN.md).
package p

/* The thresholds are measured
   (../shared/RUNTIME-FACTS.md). */
var x = "DESIGN.md" // a string is not a comment

// See docs/profile.md and docs/gone.md. Pages are docs/rules/SDxxx.md.
// Not a path: mydocs/x.md; the STYLE.md rules.
func f() {}
`
	have := map[string]bool{"docs/profile.md": true}
	got := checkComments("p/p.go", []byte(src), func(page string) bool { return have[page] })
	want := []string{
		"p/p.go:1: a comment points at DESIGN.md, outside the module: point at a page of docs/ or say the fact itself",
		"p/p.go:5: a comment points at ../shared, outside the module: point at a page of docs/ or say the fact itself",
		"p/p.go:8: a comment points at docs/gone.md, which the module does not have",
		"p/p.go:9: a comment points at STYLE.md, outside the module: point at a page of docs/ or say the fact itself",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i].Error() != want[i] {
			t.Errorf("error %d: %s\nwant %s", i, got[i], want[i])
		}
	}
}
