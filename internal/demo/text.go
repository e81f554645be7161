package demo

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText prints the demo's table: one row per program, one column per
// stage, each cell the rules found and whether they are what the lab marks.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"program"}
	for _, st := range s.Stages {
		header = append(header, string(st))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	cells := 0
	for _, p := range s.Programs {
		row := []string{p.Name}
		for _, st := range s.Stages {
			row = append(row, p.Cells[st].String())
			cells++
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if s.BusyHost > 0 {
		fmt.Fprintf(w, "the machine was busy: in %d of %d runs the host withheld CPU from the program (! in the table:\n"+
			"SD303 measured against the CPU the program really got); those findings describe the machine, not the lab,\n"+
			"and other diagnoses may differ from a quiet machine's\n", s.BusyHost, cells)
	}
	if s.Mismatch == 0 {
		_, err := fmt.Fprintf(w, "all %d diagnoses match what the lab programs contain (✓); healthy controls are clean\n", cells)
		return err
	}
	_, err := fmt.Fprintf(w, "%d of %d diagnoses differ from what the lab programs contain (✗): see the rows above\n", s.Mismatch, cells)
	return err
}

// String is a table cell: "✓ SD101 SD204", "✓ clean", "✗ SD201 -SD203 +SD205"
// (a leading - is missing, + unexpected, ! caused by a busy host), or
// "✗ error".
func (s *StageSummary) String() string {
	if s.Error != "" {
		return "✗ error: " + firstLine(s.Error, 40)
	}
	mark := "✓"
	if !s.OK() {
		mark = "✗"
	}
	var parts []string
	for _, r := range s.Found {
		if slices.Contains(s.Unexpected, r) {
			parts = append(parts, "+"+r)
		} else {
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
