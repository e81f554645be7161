// Package textlayout lays out the text renderers' output: every table and
// line of prose fits a width (80 columns by default; the CLI's -wide lifts
// it). Wrap and WrapFit wrap prose, Table aligns columns and stacks them
// when the rows are too wide, Elide shortens a name from its middle.
//
// It measures a string's width in runes, which is right for the ASCII,
// escaped names and box characters the reports print. It lays out what it
// is given and escapes nothing, except Lines, which escapes each line with
// internal/textsafe before wrapping it: a caller passes cells and prose
// that are already safe (textsafe.String on every string from input).
// Escaping and capping untrusted strings is internal/textsafe's job; this
// package imports it, never the reverse.
//
// The package imports only the standard library and internal/textsafe.
package textlayout

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Width is the display width of s, one column per rune.
func Width(s string) int { return utf8.RuneCountInString(s) }

// Wrap word-wraps s to width columns, the first line starting with first
// and the rest with rest, and ends it with a newline. A word longer than a
// line (a path, a URL) stays whole on a line of its own. width <= 0 does
// not wrap.
func Wrap(first, rest, s string, width int) string {
	if width <= 0 {
		return first + strings.Join(strings.Fields(s), " ") + "\n"
	}
	var b strings.Builder
	line, empty := first, true
	for _, word := range strings.Fields(s) {
		if !empty && Width(line)+1+Width(word) > width {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
	return b.String()
}

// WrapFit is Wrap that also fits the words: a word longer than a whole
// line (a cgroup path of a Kubernetes pod runs to 200 characters) loses
// its middle (Elide), keeping its start and its file name. For tables
// whose full text is in -wide and -json.
func WrapFit(first, rest, s string, width int) string {
	if width <= 0 {
		return Wrap(first, rest, s, width)
	}
	room := width - max(Width(first), Width(rest))
	words := strings.Fields(s)
	for i, w := range words {
		if Width(w) > room {
			words[i] = Elide(w, max(room, 16))
		}
	}
	return Wrap(first, rest, strings.Join(words, " "), width)
}

// Table is a table of text cells for a terminal: columns aligned, two
// spaces apart, after Indent. When the rows are wider than the width, the
// wide columns are stacked: with Stack 0 (the default) the first column (a
// name, a call site) goes on a line of its own above the row's other
// columns, which are indented by four more; with Stack N > 0 the columns
// from N on each go on a line of their own under the row, after their
// header. The stacked layout uses the Short headers if given (an empty
// Short header for a column stacked under the row prints no label).
type Table struct {
	Indent string
	Stack  int
	Header []string
	// Short are narrower headers for the stacked layout (same length as
	// Header, or nil to keep Header).
	Short []string
	// Right aligns a column's cells to the right (numbers); same length
	// as Header, or nil.
	Right []bool
	Rows  [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write prints the table within width columns (width <= 0: one line per
// row however wide).
func (t *Table) Write(w io.Writer, width int) error {
	var b strings.Builder
	all := append([][]string{t.Header}, t.Rows...)
	widths := colWidths(all, 0)
	total := Width(t.Indent)
	for i, cw := range widths {
		total += cw
		if i > 0 {
			total += 2
		}
	}
	if width <= 0 || total <= width || len(widths) < 2 {
		for _, r := range all {
			t.line(&b, t.Indent, r, widths, 0)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	head := t.Header
	if len(t.Short) == len(t.Header) {
		head = t.Short
	}
	if t.Stack > 0 {
		return t.writeStackedLater(w, head, width)
	}
	sub := make([][]string, 0, len(all))
	sub = append(sub, head)
	sub = append(sub, t.Rows...)
	rest := colWidths(sub, 1)
	for i, r := range sub {
		if len(r) == 0 {
			continue
		}
		// A name wider than the line loses its middle; -wide shows it whole.
		b.WriteString(t.Indent + Elide(r[0], width-Width(t.Indent)) + "\n")
		if i == 0 && len(r) > 1 && strings.TrimSpace(strings.Join(r[1:], "")) == "" {
			continue
		}
		t.line(&b, t.Indent+"    ", r, rest, 1)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStackedLater lays the table out with the columns from t.Stack on
// each moved to a line of its own under the row.
func (t *Table) writeStackedLater(w io.Writer, head []string, width int) error {
	front := func(r []string) []string { return r[:min(t.Stack, len(r))] }
	rows := [][]string{front(head)}
	for _, r := range t.Rows {
		rows = append(rows, front(r))
	}
	inner := &Table{Right: t.Right}
	widths := colWidths(rows, 0)
	lw := 0 // the labels, aligned
	for c := t.Stack; c < len(head); c++ {
		lw = max(lw, Width(head[c]))
	}
	var b strings.Builder
	for i, r := range rows {
		inner.line(&b, t.Indent, r, widths, 0)
		if i == 0 {
			continue
		}
		full := t.Rows[i-1]
		for c := t.Stack; c < len(full); c++ {
			if full[c] == "" {
				continue
			}
			label := ""
			if c < len(head) && head[c] != "" {
				label = head[c] + strings.Repeat(" ", lw-Width(head[c])+1)
			}
			b.WriteString(WrapFit(t.Indent+"    "+label, t.Indent+"    "+strings.Repeat(" ", Width(label)), full[c], width))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// colWidths is the widest cell of each column from column from on.
func colWidths(rows [][]string, from int) []int {
	var widths []int
	for _, r := range rows {
		for i := from; i < len(r); i++ {
			for len(widths) <= i-from {
				widths = append(widths, 0)
			}
			widths[i-from] = max(widths[i-from], Width(r[i]))
		}
	}
	return widths
}

func (t *Table) line(b *strings.Builder, indent string, r []string, widths []int, from int) {
	var l strings.Builder
	l.WriteString(indent)
	for i := from; i < len(r); i++ {
		if i > from {
			l.WriteString("  ")
		}
		pad := widths[i-from] - Width(r[i])
		right := i < len(t.Right) && t.Right[i]
		if right {
			l.WriteString(strings.Repeat(" ", pad))
		}
		l.WriteString(r[i])
		if !right && i < len(r)-1 {
			l.WriteString(strings.Repeat(" ", pad))
		}
	}
	b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
}

// Elide shortens s to at most n runes by replacing its middle with "…",
// keeping the end (a path's file name) longer than the start.
func Elide(s string, n int) string {
	if n <= 0 || Width(s) <= n {
		return s
	}
	if n < 5 {
		return string([]rune(s)[:n])
	}
	r := []rune(s)
	keepEnd := (n - 1) * 2 / 3
	keepStart := n - 1 - keepEnd
	return string(r[:keepStart]) + "…" + string(r[len(r)-keepEnd:])
}

// Lines escapes each line of text (textsafe.String: no control character of a
// line survives, the line breaks between them do) and wraps it to width
// columns, its continuation lines indented two more than the line. For
// renderers that build their text line by line from input.
func Lines(text string, width int) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	text = strings.TrimSuffix(text, "\n")
	for _, l := range strings.Split(text, "\n") {
		l = textsafe.String(l)
		if width <= 0 || Width(l) <= width {
			b.WriteString(l + "\n")
			continue
		}
		body := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(body)]
		b.WriteString(Wrap(indent, indent+"  ", body, width))
	}
	return b.String()
}
