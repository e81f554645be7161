package report

import (
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// TestTextEscapesInput: a finding built from a crafted profile (function
// and file names with terminal escapes, a line break, a bidi override)
// prints with every control character escaped and no forged line.
func TestTextEscapesInput(t *testing.T) {
	evil := "main.evil\x1b]0;pwned\a\nSD999 forged: 100%\u202e\xff"
	f := finding.Finding{
		Rule:      "SD204",
		Severity:  finding.Warning,
		Message:   "1.0 core spins because " + evil + " never blocks",
		Locations: []finding.Location{{File: "/src/\x1b[2Jx.go", Line: 3, Function: evil}},
		Evidence:  []finding.Evidence{{Label: "share of " + evil, Value: 99, Unit: "%"}},
		Fix:       "stop " + evil,
	}
	for _, opt := range []TextOptions{{}, {Compact: true}, {Color: true}} {
		var b strings.Builder
		if err := Text(&b, Report{Source: finding.SourceProfile, Findings: []finding.Finding{f}}, opt); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		// A fix of several lines keeps its line breaks (it is text to
		// paste), so a name with a line break can add a line to its own
		// fix block, indented under "fix:", and nowhere else: never a line
		// that reads as a finding, a location or evidence.
		for i, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "SD999") && !strings.HasPrefix(l, "         SD999") {
				t.Errorf("%+v: line %d forged by a name: %q", opt, i+1, l)
			}
		}
		// Only the renderer's own colour may be raw.
		plain := out
		for _, c := range []string{ansiReset, ansiBold, ansiDim, severityColor[finding.Warning]} {
			plain = strings.ReplaceAll(plain, c, "")
		}
		if s := textsafe.Text(plain); s != plain {
			t.Errorf("%+v: raw control characters in:\n%q", opt, plain)
		}
		for _, want := range []string{`\x1b]0;pwned\a`, `\u202e`, `\xff`, `\n`} {
			if !strings.Contains(out, want) {
				t.Errorf("%+v: %q not shown escaped in:\n%s", opt, want, out)
			}
		}
	}
}
