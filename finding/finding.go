// Package finding is schedoctor's model: the Finding every source produces
// and every renderer consumes, and the catalog of rules a finding refers to.
//
// It imports nothing of the project, so sources (lint, profile, exectrace,
// procs, sweep, ...) and renderers (report) can both depend on it.
//
// # Findings as data
//
// A finding is data, and text only at the edge. A source sets What (the
// headline: what was measured or found, one line of about 120 characters,
// never more than MaxHeadline), Because (the cause, computed from the
// figures) and the figures themselves in Evidence; the prose does not repeat
// them. Whatever is learned later is a Note appended to Notes, never an edit
// of another source's string: a join's corroboration (NoteCorroboration), a
// link to the finding that causes this one (NoteCause), a qualifier such as
// "cheap at this load" (NoteQualifier), a warning that the evidence is thin
// (NoteThin), a pointer to related evidence such as a live snapshot
// (NoteLink), and a Hint for a front end (NoteHint), such as "pass the source
// directory", which a library writes in words and only the CLI turns into a
// flag name (a library user cannot pass -src).
//
// Renderers compose: Headline is the first line, Text the whole sentence as
// the one-line form always read ("what because why; note; note"). The JSON
// form keeps "message" as that composition, so older consumers see what they
// saw, and adds "what", "because" and "notes". Message, the old one-line
// field, is read only when What is empty: a finding decoded from older JSON
// or built by code that predates What.
package finding

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Severity orders findings. The zero value is Info.
type Severity int

const (
	Info Severity = iota
	Warning
	Critical
)

var severityNames = [...]string{Info: "info", Warning: "warning", Critical: "critical"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity accepts "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning or critical)", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Location is a place in the user's code. File is as the evidence gives it:
// absolute in profiles and traces, relative to the working directory for lint.
type Location struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Function string `json:"function"`
}

func (l Location) String() string {
	var b strings.Builder
	if l.File != "" {
		b.WriteString(l.File)
		if l.Line > 0 {
			fmt.Fprintf(&b, ":%d", l.Line)
			if l.Column > 0 {
				fmt.Fprintf(&b, ":%d", l.Column)
			}
		}
	}
	if l.Function != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString("(" + l.Function + ")")
	}
	return b.String()
}

// Evidence is one number behind a finding: "runtime.futex via wakep", 56.5, "% of samples".
type Evidence struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// MaxHeadline is the hard cap on a headline's length in characters; a
// headline aims at about 120, one line of a wide terminal. A test over the
// demo's and the corpus's findings holds every source to it.
const MaxHeadline = 160

// Finding is one diagnosed problem: "N because X, at file:line; do Y".
type Finding struct {
	Rule     string   // catalog ID, e.g. "SD101"
	Severity Severity // info | warning | critical
	// What is the headline: what was measured or found, in one line
	// (≤ MaxHeadline characters). The figures go in Evidence.
	What string
	// Because is the cause, as computed from the figures; renderers write
	// it after What ("What because Because"). Empty when What says it all.
	Because string
	// Notes are what a later step or a qualifier adds, in order: read
	// beneath the headline, composed after it in the one-line form.
	Notes []Note
	// Message is the legacy one-line form: the headline of a finding whose
	// What is empty (decoded from older JSON, or built by code that
	// predates What). Sources set What; readers call Headline or Text.
	Message   string
	Locations []Location // the user code to change, most relevant first
	Evidence  []Evidence // the numbers behind it
	Fix       string     // what to do, concretely
	// Sources names every source whose evidence backs the finding ("lint",
	// "profile", "trace", ...), when more than one did: a profile's hot
	// line that the source code confirms is a spin carries ["profile",
	// "lint"]. Empty for a single-source finding.
	Sources []string
}

// NoteKind says what a Note adds to a finding.
type NoteKind int

const (
	// NoteQualifier bounds the claim: "cheap at this load", "not
	// recommended: ...", "the price of the hand-off design".
	NoteQualifier NoteKind = iota
	// NoteCorroboration: another source agrees ("the source confirms: ...",
	// "2 sources agree").
	NoteCorroboration
	// NoteCause links to the finding that causes this one ("caused at
	// least in part by ...: fix it first").
	NoteCause
	// NoteThin: the evidence is too thin or disturbed to be sure ("but the
	// machine was busy", "below 20% in a single profile").
	NoteThin
	// NoteLink points at related evidence: a snapshot, a breakdown by label.
	NoteLink
	// NoteHint asks the front end for more input; Hint says which.
	NoteHint
)

var noteKindNames = [...]string{
	NoteQualifier:     "qualifier",
	NoteCorroboration: "corroboration",
	NoteCause:         "cause",
	NoteThin:          "thin",
	NoteLink:          "link",
	NoteHint:          "hint",
}

func (k NoteKind) String() string {
	if k < 0 || int(k) >= len(noteKindNames) {
		return fmt.Sprintf("NoteKind(%d)", int(k))
	}
	return noteKindNames[k]
}

func (k NoteKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name. A kind this version does not know
// (written by a newer schedoctor: a live monitor in the target) reads as
// NoteQualifier, so that the note's text is still shown and the rest of
// the document still read.
func (k *NoteKind) UnmarshalText(b []byte) error {
	*k = NoteQualifier
	for i, n := range noteKindNames {
		if string(b) == n {
			*k = NoteKind(i)
		}
	}
	return nil
}

// Note is one thing added beneath a finding's headline. Text is a clause,
// lower case, no final period, composed after "; ".
type Note struct {
	Kind NoteKind `json:"kind"`
	Text string   `json:"text"`
	Hint Hint     `json:"hint,omitempty"` // with NoteHint: the input asked for
}

// Note appends a note of kind k, and returns f for chaining. An empty text
// adds nothing. The notes are copied first, so that appending to a copy of
// a finding (g := f) never writes into the original's notes.
func (f *Finding) Note(k NoteKind, text string) *Finding {
	if text != "" {
		f.Notes = append(f.Notes[:len(f.Notes):len(f.Notes)], Note{Kind: k, Text: text})
	}
	return f
}

// AddHint appends a NoteHint asking for h, in the library's words (the
// CLI replaces them with its flag).
func (f *Finding) AddHint(h Hint, text string) *Finding {
	f.Notes = append(f.Notes[:len(f.Notes):len(f.Notes)], Note{Kind: NoteHint, Text: text, Hint: h})
	return f
}

// HasNote reports whether f carries a note of kind k.
func (f Finding) HasNote(k NoteKind) bool {
	return slices.ContainsFunc(f.Notes, func(n Note) bool { return n.Kind == k })
}

// Hints lists the hints f's notes carry, in order.
func (f Finding) Hints() []Hint {
	var hs []Hint
	for _, n := range f.Notes {
		if n.Kind == NoteHint && n.Hint != HintNone {
			hs = append(hs, n.Hint)
		}
	}
	return hs
}

// Headline is the first line a reader sees: What, or the legacy Message
// when What is empty.
func (f Finding) Headline() string {
	if f.What != "" {
		return f.What
	}
	return f.Message
}

// Reason is the headline and the cause, "What because Because", without
// the notes.
func (f Finding) Reason() string {
	h := f.Headline()
	if f.Because == "" {
		return h
	}
	if h == "" {
		return f.Because
	}
	return h + " because " + f.Because
}

// Text composes the one-line form: "What because Because; note; note".
// It is the "message" of the JSON form and what renderers without room for
// structure print.
func (f Finding) Text() string {
	var b strings.Builder
	b.WriteString(f.Reason())
	for _, n := range f.Notes {
		if n.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(n.Text)
	}
	return b.String()
}

// findingJSON is the wire form of the JSON contract (docs/contract.md): name and url
// come from the catalog so that every consumer sees them without a lookup.
// message is the composed Text, as it always was; what, because and notes
// are the parts, added later and omitted when empty.
type findingJSON struct {
	Rule      string     `json:"rule"`
	Name      string     `json:"name"`
	Severity  Severity   `json:"severity"`
	Message   string     `json:"message"`
	What      string     `json:"what,omitempty"`
	Because   string     `json:"because,omitempty"`
	Notes     []Note     `json:"notes,omitempty"`
	Locations []Location `json:"locations"`
	Evidence  []Evidence `json:"evidence"`
	Fix       string     `json:"fix"`
	URL       string     `json:"url"`
	Sources   []string   `json:"sources,omitempty"`
}

func (f Finding) MarshalJSON() ([]byte, error) {
	j := findingJSON{
		Rule:      f.Rule,
		Severity:  f.Severity,
		Message:   f.Text(),
		What:      f.What,
		Because:   f.Because,
		Notes:     f.Notes,
		Locations: f.Locations,
		Evidence:  f.Evidence,
		Fix:       f.Fix,
		Sources:   f.Sources,
	}
	if j.What == "" && (j.Because != "" || len(j.Notes) > 0) {
		// A legacy headline with parts added: name it, so that a reader
		// of the parts has the headline too.
		j.What = f.Message
	}
	if j.Locations == nil {
		j.Locations = []Location{}
	}
	if j.Evidence == nil {
		j.Evidence = []Evidence{}
	}
	if r, ok := Lookup(f.Rule); ok {
		j.Name = r.Name
		j.URL = r.URL()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads both forms: with "what", the parts (and message is
// their composition, not kept); without, the legacy message as Message.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Finding{
		Rule:      j.Rule,
		Severity:  j.Severity,
		What:      j.What,
		Because:   j.Because,
		Notes:     j.Notes,
		Locations: j.Locations,
		Evidence:  j.Evidence,
		Fix:       j.Fix,
		Sources:   j.Sources,
	}
	if j.What == "" {
		f.Message = j.Message
	}
	return nil
}

// Sort orders findings most severe first, then by rule, then by first
// location, so that output is deterministic whatever order a source found
// them in.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		var la, lb Location
		if len(a.Locations) > 0 {
			la = a.Locations[0]
		}
		if len(b.Locations) > 0 {
			lb = b.Locations[0]
		}
		if c := cmp.Compare(la.File, lb.File); c != 0 {
			return c
		}
		if c := cmp.Compare(la.Line, lb.Line); c != 0 {
			return c
		}
		return cmp.Compare(la.Column, lb.Column)
	})
}

// Max returns the highest severity among fs, and false when fs is empty.
func Max(fs []Finding) (Severity, bool) {
	if len(fs) == 0 {
		return 0, false
	}
	m := fs[0].Severity
	for _, f := range fs[1:] {
		m = max(m, f.Severity)
	}
	return m, true
}
