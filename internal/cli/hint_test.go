package cli

import (
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// TestHintsBecomeFlags: a library asks for an input in words (a Hint); the
// CLI alone names the flag, on a copy, leaving the caller's notes as the
// library wrote them.
func TestHintsBecomeFlags(t *testing.T) {
	f := finding.Finding{Rule: "SD204", What: "x"}
	f.Note(finding.NoteQualifier, "only 0.010 cores, cheap at this load")
	f.AddHint(finding.HintSourceDir, "source not found: give the module's source directory to read it")
	g := finding.Finding{Rule: "SD607", What: "y"}
	g.AddHint(finding.HintCostProbe, "measure this server's cost per connection")
	in := []finding.Finding{f, g}
	out := withFlags(in)
	if got := out[0].Notes; got[0] != f.Notes[0] ||
		got[1].Text != "source not found: give the module's source directory to read it (-src DIR)" || got[1].Hint != finding.HintSourceDir {
		t.Errorf("source-dir hint: %+v", got)
	}
	if got := out[1].Notes[0].Text; got != "measure this server's cost per connection (-probe or -model)" {
		t.Errorf("cost hint: %q", got)
	}
	if in[0].Notes[1].Text != "source not found: give the module's source directory to read it" {
		t.Errorf("the caller's note was changed: %+v", in[0].Notes)
	}
	// Every hint the finding package defines has a flag here.
	for h := finding.HintNone + 1; !strings.HasPrefix(h.String(), "Hint("); h++ {
		if _, ok := hintFlags[h]; !ok {
			t.Errorf("hint %s has no flag in the CLI", h)
		}
	}
}
