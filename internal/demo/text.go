package demo

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// WriteText prints the demo's table: one row per program, one column per
// stage, each cell the rules found and whether they are what the lab marks.
// It fits 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the table within width columns (0: one line per
// program however wide): a table too wide puts each stage's cell on a line
// of its own under the program's name, and the sentences under it are
// wrapped.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	// The check stage has one row, the lab service's: it is a line under
	// the table, not a column of dashes that would push the table past
	// 80 columns.
	var cols []Stage
	for _, st := range s.Stages {
		if st != StageCheck {
			cols = append(cols, st)
		}
	}
	header := []string{"program"}
	for _, st := range cols {
		header = append(header, string(st))
	}
	// Too wide for the width: each program's stages on lines of their own.
	tab := &textlayout.Table{Header: header, Stack: 1}
	cells, rows := 0, 0
	var checks []string
	for _, p := range s.Programs {
		if c := p.Cells[StageCheck]; c != nil {
			checks = append(checks, fmt.Sprintf("%s (check)  %s", p.Name, textsafe.String(c.String())))
			cells++
		}
		row := []string{p.Name}
		for _, st := range cols {
			cell := p.Cells[st]
			if cell == nil {
				row = append(row, "—")
				continue
			}
			row = append(row, textsafe.String(cell.String())) // an error cell quotes input
			cells++
		}
		if len(row) > 1 && slices.ContainsFunc(cols, func(st Stage) bool { return p.Cells[st] != nil }) {
			tab.Add(row...)
			rows++
		}
	}
	if rows > 0 {
		if err := tab.Write(w, width); err != nil {
			return err
		}
	}
	for _, c := range checks {
		fmt.Fprintln(w, c)
	}
	fmt.Fprintln(w)
	// The sentences below are wrapped to the width as they are written.
	w = &wrapWriter{w: w, width: width}
	if s.BusyHost > 0 {
		fmt.Fprintf(w, "the machine was busy: in %d of %d runs the host withheld CPU from the program (! in the table:\n"+
			"SD303 measured against the CPU the program really got, SD406 its threads waiting on a run queue); those\n"+
			"findings describe the machine, not the lab, and other diagnoses may differ from a quiet machine's\n", s.BusyHost, cells)
	}
	if s.Service != nil {
		s.Service.writeText(w)
	}
	if s.Live != nil {
		s.Live.writeText(w)
	}
	if s.BusyMismatch > 0 {
		fmt.Fprintf(w, "the machine was busy (%s), these diagnoses may differ: %d of %d (? in the table) differ from what "+
			"the lab contains while other processes used the CPUs; they are not counted as failures\n", s.Busiest, s.BusyMismatch, cells)
	}
	if s.Mismatch == 0 {
		_, err := fmt.Fprintf(w, "%s %d diagnoses match what the lab programs contain (✓); healthy controls are clean\n",
			map[bool]string{true: "all", false: "the other"}[s.BusyMismatch == 0], cells-s.BusyMismatch)
		return err
	}
	_, err := fmt.Fprintf(w, "%d of %d diagnoses differ from what the lab programs contain (✗): see the rows above\n", s.Mismatch, cells)
	return err
}

// wrapWriter rewraps each write, one sentence written whole with its own
// line breaks (as the sentences above are), to width columns.
type wrapWriter struct {
	w     io.Writer
	width int
}

func (ww *wrapWriter) Write(p []byte) (int, error) {
	out := string(p)
	if ww.width > 0 && strings.HasSuffix(out, "\n") {
		out = textlayout.Wrap("", "", out, ww.width)
	}
	if _, err := io.WriteString(ww.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeText says, per fault of the lab service, which rule and how many
// sources reported it.
func (s *ServiceSummary) writeText(w io.Writer) {
	var parts []string
	for _, c := range s.Causes {
		if p := c.Problem(); p != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", c.Name, p))
			continue
		}
		src := "one source"
		if len(c.Sources) > 0 {
			src = strings.Join(c.Sources, "+")
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", c.Name, c.Rule, src))
	}
	health := "healthy handlers clean"
	if len(s.Healthy) > 0 {
		health = "healthy handlers warned: " + strings.Join(s.Healthy, ", ")
	}
	fmt.Fprintf(w, "check of the lab service (%d requests over loopback, %ds profile): %s; %s\n",
		s.Requests, s.Seconds, strings.Join(parts, ", "), health)
}

// String is a table cell: "✓ SD101 SD204", "✓ clean", "✗ SD201 -SD203 +SD205"
// (a leading - is missing, + unexpected, ! caused by a busy host; "?"
// instead of "✗" when the run was measured on a busy machine; SD204(3):
// three sources agree, in the check stage), or "✗ error".
func (s *StageSummary) String() string {
	if s.Error != "" {
		return "✗ error: " + firstLine(s.Error, 40)
	}
	mark := "✓"
	switch {
	case s.Busy:
		mark = "?" // differs, on a busy machine: not a failure
	case !s.OK():
		mark = "✗"
	}
	var parts []string
	for _, r := range s.Found {
		switch {
		case slices.Contains(s.Unexpected, r):
			parts = append(parts, "+"+r)
		case s.Sources[r] > 1:
			parts = append(parts, fmt.Sprintf("%s(%d)", r, s.Sources[r])) // sources that agree
		default:
			parts = append(parts, r)
		}
	}
	for _, r := range s.Missing {
		parts = append(parts, "-"+r)
	}
	if len(parts) == 0 {
		parts = []string{"clean"}
	}
	for _, r := range s.Host {
		parts = append(parts, "!"+r)
	}
	return mark + " " + strings.Join(parts, " ")
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
