package check

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedoctor/schedoctor/internal/textlayout"
)

// WriteText prints what was captured, what failed, and how the sources'
// findings were joined; each source's own tables are in the JSON summary.
// It fits 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth is WriteText within width columns (0: unwrapped). Each
// line is escaped (textsafe): errors and endpoints quote what the target
// answered.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "check of %s\n", s.Target)
	for _, c := range s.Captures {
		switch {
		case c.Absent:
			fmt.Fprintf(&b, "  %-21s absent (%s answered 404)\n", c.Kind, c.Endpoint)
		case c.Skipped != "":
			fmt.Fprintf(&b, "  %-21s not taken: %s\n", c.Kind, c.Skipped)
		case c.Error != "":
			fmt.Fprintf(&b, "  %-21s FAILED after %.1fs\n", c.Kind, c.Duration)
		default:
			fmt.Fprintf(&b, "  %-21s %8d bytes in %.1fs", c.Kind, c.Size(), c.Duration)
			if c.Goroutines > 0 {
				fmt.Fprintf(&b, ", %d goroutines", c.Goroutines)
			}
			if c.ProcessCPU > 0 {
				fmt.Fprintf(&b, ", process CPU %.2fs", c.ProcessCPU)
			}
			b.WriteString("\n")
		}
	}
	if s.Contention != nil {
		for _, p := range s.Contention.Profiles {
			if !p.Enabled {
				fmt.Fprintf(&b, "  %s profile: no samples: not enabled (runtime.Set%sProfile%s), or nothing waited long enough in the window\n",
					p.Kind, title(string(p.Kind)), map[bool]string{true: "Fraction", false: "Rate"}[p.Kind == "mutex"])
			}
		}
	}
	if s.Procs != nil {
		fmt.Fprintf(&b, "  procs: %.4g CPUs available (%s), GOMAXPROCS %d\n", s.Procs.CPUs.Available, s.Procs.CPUs.AvailableFrom, s.Procs.GOMAXPROCS.Value)
	}
	if s.Profile != nil && s.Profile.Source != nil {
		fmt.Fprintf(&b, "  profile %s\n", s.Profile.Source.Text())
	}
	if s.Trace != nil && s.Trace.Source != nil {
		fmt.Fprintf(&b, "  trace %s\n", s.Trace.Source.Text())
	}
	if len(s.Failed) > 0 {
		b.WriteString("failed (the rest is still diagnosed):\n")
		for _, f := range s.Failed {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	if j := s.Join; j != nil {
		fmt.Fprintf(&b, "join: %d finding(s) from the sources made %d cause(s): %d merged into another source's, %d latency finding(s) linked to a spin\n",
			total(j.In), j.Causes, j.Merged, j.Linked)
	}
	if l := s.Live; l != nil {
		fmt.Fprintf(&b, "live monitor: %d finding(s), %d joined another source's", l.Findings, l.Joined)
		if l.Dropped > 0 {
			fmt.Fprintf(&b, ", %d dropped", l.Dropped)
		}
		if l.Snapshot != "" {
			fmt.Fprintf(&b, "; its snapshot %s diagnosed here (%d finding(s))", l.Snapshot, l.SnapshotFindings)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, textlayout.Lines(b.String(), width))
	return err
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
