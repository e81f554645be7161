package analysisutil

import (
	"strings"
	"testing"
)

const sample = `// Package x does things.
//
// # Analyzer x
//
// x: report things
//
// The long description.
//
// # Analyzer y
//
// y: report other things
package x
`

func TestExtractDoc(t *testing.T) {
	for _, tt := range []struct {
		content, name, want, err string
	}{
		{sample, "x", "report things\n\nThe long description.", ""},
		{sample, "y", "report other things", ""},
		{sample, "z", "", "no 'Analyzer z' heading"},
		{"// Package x.\n//\n// # Analyzer x\n//\n// report things\npackage x\n", "x", "", "not followed by a 'x: summary' line"},
		{"package x\n", "x", "", "no package comment"},
		{"", "x", "", "empty doc.go"},
		{"// Doc.\npackage", "x", "", "parsing doc.go"},
		// A heading whose name only starts with the one asked for.
		{"// P.\n//\n// # Analyzer xy\n//\n// xy: s\npackage x\n", "x", "", "no 'Analyzer x' heading"},
	} {
		got, err := ExtractDoc(tt.content, tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ExtractDoc(%q, %q) error = %v, want one containing %q", tt.content, tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ExtractDoc(%q, %q) = %q, %v; want %q", tt.content, tt.name, got, err, tt.want)
		}
	}
}

func TestMustExtractDocPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustExtractDoc of a missing section did not panic")
		}
	}()
	MustExtractDoc(sample, "missing")
}

// FuzzExtractDoc feeds arbitrary files to the doc.go parser: it must
// return a section or an error, never panic, and a section it returns
// never holds the heading of another.
func FuzzExtractDoc(f *testing.F) {
	f.Add(sample, "x")
	f.Add(sample, "y")
	f.Add("// P.\n//\n// # Analyzer x\npackage x\n", "x")
	f.Add("/* # Analyzer x\n\nx: y */ package x", "x")
	f.Fuzz(func(t *testing.T, content, name string) {
		doc, err := ExtractDoc(content, name)
		if err == nil && strings.Contains(doc, "\n# ") {
			t.Errorf("section %q holds another heading", doc)
		}
	})
}
