// Package finding is schedoctor's model: the Finding every source produces
// and every renderer consumes, and the catalog of rules a finding refers to.
//
// It imports nothing of the project, so sources (lint, profile, exectrace,
// procs, sweep, ...) and renderers (report) can both depend on it.
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

// Finding is one diagnosed problem: "N because X, at file:line; do Y".
type Finding struct {
	Rule      string     // catalog ID, e.g. "SD101"
	Severity  Severity   // info | warning | critical
	Message   string     // one line, "N because X"
	Locations []Location // the user code to change, most relevant first
	Evidence  []Evidence // the numbers behind it
	Fix       string     // what to do, concretely
	// Sources names every source whose evidence backs the finding ("lint",
	// "profile", "trace", ...), when more than one did: a profile's hot
	// line that the source code confirms is a spin carries ["profile",
	// "lint"]. Empty for a single-source finding.
	Sources []string
}

// findingJSON is the wire form of the JSON contract (docs/contract.md): name and url
// come from the catalog so that every consumer sees them without a lookup.
type findingJSON struct {
	Rule      string     `json:"rule"`
	Name      string     `json:"name"`
	Severity  Severity   `json:"severity"`
	Message   string     `json:"message"`
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
		Message:   f.Message,
		Locations: f.Locations,
		Evidence:  f.Evidence,
		Fix:       f.Fix,
		Sources:   f.Sources,
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

func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Finding{
		Rule:      j.Rule,
		Severity:  j.Severity,
		Message:   j.Message,
		Locations: j.Locations,
		Evidence:  j.Evidence,
		Fix:       j.Fix,
		Sources:   j.Sources,
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
