// Package diagnose is the one place where evidence from several sources is
// joined: a runtime source's hot line is read in the source code
// (lint/inspect) so that "selectgo at 0.95 cores under main.go:37" becomes
// "a select with a default spins at main.go:37", and findings that share a
// cause are reported once with every source's evidence.
//
// Check is the join of a check (schedoctor check): every source's findings,
// the live monitor's claims and the snapshot its caller diagnosed included
// (CheckInput.Live), become one finding per cause. The join keys on data,
// not on rule IDs: a rule's family (finding.Rule.Family, set for every rule
// in the finding catalog) says which findings at one line are one cause
// and which are effects linked to a cause; a finding's source is the input
// it came in. Callers (check) capture, parse and bound what they read,
// run each source's analysis, and hand the findings over; they join
// nothing themselves.
//
// Sources never import this package; it imports them.
package diagnose

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// SourceReader reads the loop around a line that a profile or trace
// recorded. *inspect.Resolver is the real one; tests inject loops. The
// error wraps inspect.ErrNoSource when the file is not found.
type SourceReader interface {
	At(file string, line int) (*inspect.Loop, error)
}

// Options say where the source code is.
type Options struct {
	// Source reads the files that profiles and traces name. Nil means no
	// source look-ups: the runtime findings are returned as their source
	// made them, and SourceReport says so.
	Source SourceReader
}

// SourceReport tells the reader how much of the source was found, so that
// a finding's missing source evidence is never silent.
type SourceReport struct {
	// Given is false when no source look-ups were made at all (no
	// SourceReader): every runtime finding is the runtime source's alone.
	Given   bool     `json:"given"`
	Looked  int      `json:"looked"`            // distinct files asked for
	Found   int      `json:"found"`             // of them, read
	Missing []string `json:"missing,omitempty"` // recorded paths not found (at most a few)
	// Errors are files found but not usable (too large, not Go, lines
	// beyond the end: the source is not the one the binary was built
	// from), at most a few, with the reason.
	Errors []string `json:"errors,omitempty"`
	// Stopped says why the source reading stopped before every file was
	// read (inspect.ErrBudget: the run's budget was spent); the findings
	// of the files not read carry no source verdict.
	Stopped string `json:"stopped,omitempty"`
	Skipped int    `json:"skipped,omitempty"` // files not read because of it
}

// maxListed bounds Missing and Errors: the counts say the rest.
const maxListed = 5

// Text is the one-line account of the look-ups that reports print.
func (r *SourceReport) Text() string {
	switch {
	case r == nil || !r.Given:
		return "source: not read (no source reader given)"
	case r.Looked == 0:
		return "source: no hot user line to read" + r.stoppedText()
	case r.Found == 0:
		s := fmt.Sprintf("source: none of the %d file(s) the hot lines name was found", r.Looked)
		if len(r.Missing) > 0 {
			s += fmt.Sprintf(" (e.g. %s)", r.Missing[0])
		}
		return s + "; the module's source is needed to judge them" + r.stoppedText()
	}
	s := fmt.Sprintf("source: read %d of %d file(s) the hot lines name", r.Found, r.Looked)
	if n := r.Looked - r.Found - r.Skipped; n > 0 {
		s += fmt.Sprintf("; %d not found (e.g. %s)", n, firstOf(r.Missing, r.Errors))
	}
	return s + r.stoppedText()
}

// Hints asks for the module's source when files the hot lines name were
// not found.
func (r *SourceReport) Hints() []finding.Note {
	if r == nil || !r.Given || r.Looked-r.Found-r.Skipped <= 0 {
		return nil
	}
	return []finding.Note{finding.HintNote(finding.HintSourceDir, "give the module's source directory, to judge the code at the hot lines")}
}

// stoppedText is Stopped as a sentence for Text.
func (r *SourceReport) stoppedText() string {
	switch {
	case r.Stopped == "":
		return ""
	case r.Skipped == 0:
		return fmt.Sprintf("; %s: outer frames of the hot stacks left unread", r.Stopped)
	}
	return fmt.Sprintf("; %d not read: %s, and their findings carry no source verdict", r.Skipped, r.Stopped)
}

func firstOf(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return "?"
}

// lookups reads lines through a SourceReader and keeps the SourceReport:
// one verdict per file:line, each file counted once. Safe for concurrent
// use.
type lookups struct {
	src SourceReader

	mu      sync.Mutex
	rep     SourceReport
	files   map[string]bool // recorded file → found, for the files counted in rep
	lines   map[string]lineResult
	counted map[string]bool // file:line whose result rep holds
	gone    map[string]bool // files not found, counted or not
}

type lineResult struct {
	loop *inspect.Loop
	err  error
}

func newLookups(src SourceReader) *lookups {
	return &lookups{src: src, rep: SourceReport{Given: src != nil}, files: map[string]bool{},
		lines: map[string]lineResult{}, counted: map[string]bool{}, gone: map[string]bool{}}
}

// at returns the loop at file:line, nil when the source is not there or
// not usable (the report says which).
func (l *lookups) at(file string, line int) *inspect.Loop {
	return l.lookup(file, line, true)
}

// quiet is at for a line the report does not list unless it is asked with
// at too: an outer frame of a stack, read to see whether its loop spins.
// A caller's file that is not found (a dependency whose source is not
// here) is not a hot line's missing source.
func (l *lookups) quiet(file string, line int) *inspect.Loop {
	return l.lookup(file, line, false)
}

func (l *lookups) lookup(file string, line int, count bool) *inspect.Loop {
	if l.src == nil {
		return nil
	}
	key := fmt.Sprintf("%s:%d", file, line)
	l.mu.Lock()
	r, ok := l.lines[key]
	l.mu.Unlock()
	if !ok {
		loop, err := l.src.At(file, line)
		r = lineResult{loop, err}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !ok {
		l.lines[key] = r
		if errors.Is(r.err, inspect.ErrNoSource) {
			l.gone[file] = true
		}
		l.noteStop(r.err)
	}
	if count && !l.counted[key] {
		l.counted[key] = true
		l.count(file, r.err)
	}
	if r.err != nil {
		return nil
	}
	return r.loop
}

// count adds one line's result to the report; l.mu is held.
func (l *lookups) count(file string, err error) {
	found, seen := l.files[file]
	if !seen {
		l.rep.Looked++
	}
	switch {
	case err == nil:
		if !found {
			l.rep.Found++
			l.files[file] = true
			l.rep.Missing = slices.DeleteFunc(l.rep.Missing, func(m string) bool { return m == file })
		}
	case errors.Is(err, inspect.ErrNoSource):
		if !seen {
			l.files[file] = false
			if len(l.rep.Missing) < maxListed {
				l.rep.Missing = append(l.rep.Missing, file)
			}
		}
	case errors.Is(err, inspect.ErrBudget):
		if !seen {
			l.files[file] = false
			l.rep.Skipped++
		}
	default:
		if !seen {
			l.files[file] = false
		}
		if len(l.rep.Errors) < maxListed {
			l.rep.Errors = append(l.rep.Errors, err.Error())
		}
	}
}

// noteStop keeps the first budget stop, from any look-up (an outer frame's
// too: the stop holds for every later file); l.mu is held.
func (l *lookups) noteStop(err error) {
	if l.rep.Stopped != "" || !errors.Is(err, inspect.ErrBudget) {
		return
	}
	l.rep.Stopped = inspect.ErrBudget.Error()
	if _, limit, ok := strings.Cut(err.Error(), inspect.ErrBudget.Error()+" "); ok {
		l.rep.Stopped += " " + limit
	}
}

// asked reports whether file:line was looked up already.
func (l *lookups) asked(file string, line int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.lines[fmt.Sprintf("%s:%d", file, line)]
	return ok
}

// missing reports whether file was looked up and not found: its other
// lines need not be asked.
func (l *lookups) missing(file string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gone[file]
}

// report returns a copy of the SourceReport so far.
func (l *lookups) report() *SourceReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rep
	r.Missing = slices.Clone(r.Missing)
	r.Errors = slices.Clone(r.Errors)
	return &r
}
