package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/lint/inspect"
)

// budgetReader reads the first file and then runs out of budget, as
// inspect.Resolver does.
type budgetReader struct{ n int }

func (b *budgetReader) At(file string, line int) (*inspect.Loop, error) {
	b.n++
	if b.n > 1 {
		return nil, fmt.Errorf("%s: %w after 32 packages read (the limit)", file, inspect.ErrBudget)
	}
	return &inspect.Loop{Path: file, Line: line, Kind: inspect.Compute}, nil
}

// TestSourceReportBudget: files left unread by the budget are counted
// apart from the missing ones, and the report says why they were not read.
func TestSourceReportBudget(t *testing.T) {
	lk := newLookups(&budgetReader{})
	for _, f := range []string{"/a/x.go", "/b/y.go", "/c/z.go"} {
		lk.at(f, 3)
	}
	rep := lk.report()
	if rep.Found != 1 || rep.Skipped != 2 || len(rep.Missing) != 0 || len(rep.Errors) != 0 {
		t.Errorf("report %+v, want 1 found, 2 skipped, none missing", rep)
	}
	text := rep.Text()
	for _, want := range []string{"read 1 of 3", "2 not read", "budget", "32 packages read", "no source verdict"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() = %q, lacks %q", text, want)
		}
	}
	if strings.Contains(text, "-src") {
		t.Errorf("Text() = %q: files left by the budget are not missing source", text)
	}

	// A stop met on an outer frame (a quiet look-up) is reported too.
	lk = newLookups(&budgetReader{n: 1})
	lk.quiet("/d/w.go", 3)
	if rep := lk.report(); !strings.Contains(rep.Text(), "32 packages read") {
		t.Errorf("a stop on a quiet look-up: Text() = %q, want the limit named", rep.Text())
	}
}
