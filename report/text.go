package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// TextOptions tune the text renderer. The zero value is plain 80-column text.
type TextOptions struct {
	Color bool // ANSI colour for severities; the CLI sets it only on a terminal
	Width int  // wrap prose at this many columns; 0 means 80
	// Compact prints one finding per line, "file:line: SDnnn name: message",
	// like go vet, with no evidence or fix (wrapped to the width, unless
	// Wide); the summary is still printed.
	Compact bool
	// Wide lays the summary's tables out one line per row, however wide
	// (for a wide terminal or grep); the findings' prose is still wrapped.
	Wide bool
}

const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
)

var severityColor = map[finding.Severity]string{
	finding.Critical: "\x1b[1;31m",
	finding.Warning:  "\x1b[1;33m",
	finding.Info:     "\x1b[1;36m",
}

// Text writes the summary (when it has a text form) and the findings grouped
// by severity, most severe first: message, locations, evidence, fix, docs.
func Text(w io.Writer, r Report, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 80
	}
	bw := bufio.NewWriter(w)
	p := &textPrinter{w: bw, opt: opt}
	// Thin evidence comes first: the tables and a "no findings" below it
	// rest on too little to rule causes out.
	thin := Thin(r.Summary)
	for _, t := range thin {
		p.wrap("", "  ", p.paint(severityColor[finding.Warning], strings.ToUpper(ThinPrefix))+textsafe.String(t))
	}
	if len(thin) > 0 {
		fmt.Fprintln(bw)
	}
	if ws, ok := r.Summary.(WidthTextSummary); ok && ws != nil {
		width := opt.Width
		if opt.Wide {
			width = 0
		}
		if err := ws.WriteTextWidth(bw, width); err != nil {
			return err
		}
		fmt.Fprintln(bw)
	} else if ts, ok := r.Summary.(TextSummary); ok && ts != nil {
		if err := ts.WriteText(bw); err != nil {
			return err
		}
		fmt.Fprintln(bw)
	}
	for _, h := range r.Hints {
		p.wrap("hint: ", "      ", textsafe.String(h.Text))
	}
	if len(r.Hints) > 0 {
		fmt.Fprintln(bw)
	}
	fs := append([]finding.Finding(nil), r.Findings...)
	finding.Sort(fs)
	if len(fs) == 0 {
		if len(thin) > 0 {
			fmt.Fprintf(bw, "schedoctor %s: no findings, but not enough evidence to rule causes out (see the top)\n",
				textsafe.String(string(r.Source)))
			return bw.Flush()
		}
		fmt.Fprintf(bw, "schedoctor %s: no findings\n", textsafe.String(string(r.Source)))
		return bw.Flush()
	}
	p.header(r.Source, fs, len(thin) > 0)
	if opt.Compact {
		for _, f := range fs {
			p.compact(f)
		}
		return bw.Flush()
	}
	var cur finding.Severity = -1
	for _, f := range fs {
		if f.Severity != cur {
			cur = f.Severity
			fmt.Fprintln(bw)
			fmt.Fprintln(bw, p.paint(severityColor[cur], strings.ToUpper(cur.String())))
		}
		p.finding(f)
	}
	return bw.Flush()
}

type textPrinter struct {
	w   *bufio.Writer
	opt TextOptions
}

func (p *textPrinter) paint(code, s string) string {
	if !p.opt.Color || code == "" {
		return s
	}
	return code + s + ansiReset
}

func (p *textPrinter) header(src finding.Source, fs []finding.Finding, thin bool) {
	counts := map[finding.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []finding.Severity{finding.Critical, finding.Warning, finding.Info} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	noun := "findings"
	if len(fs) == 1 {
		noun = "finding"
	}
	more := ""
	if thin {
		more = "; not enough evidence to rule other causes out (see the top)"
	}
	fmt.Fprintf(p.w, "schedoctor %s: %d %s (%s)%s\n", textsafe.String(string(src)), len(fs), noun, strings.Join(parts, ", "), more)
}

func (p *textPrinter) compact(f finding.Finding) {
	where := ""
	if len(f.Locations) > 0 {
		l := f.Locations[0]
		l.Function = ""
		where = l.String() + ": "
	}
	name := ""
	if r, ok := finding.Lookup(f.Rule); ok {
		name = " " + r.Name
	}
	line := fmt.Sprintf("%s%s%s: %s", textsafe.String(where), p.paint(severityColor[f.Severity], textsafe.String(f.Rule)), name, textsafe.String(f.Text()))
	if p.opt.Wide {
		fmt.Fprintln(p.w, line) // one line per finding, for grep and editors
		return
	}
	p.wrap("", "    ", line)
}

func (p *textPrinter) finding(f finding.Finding) {
	name := ""
	if r, ok := finding.Lookup(f.Rule); ok {
		name = " " + r.Name
	}
	fmt.Fprintln(p.w)
	// Everything from the finding may quote the input (function and file
	// names, wait reasons, labels): escaped before it is wrapped or painted,
	// so a name cannot forge a line or colour the terminal.
	head := p.paint(ansiBold, textsafe.String(f.Rule)+name)
	// The headline on the first line; the cause and the notes beneath it.
	p.wrap("  ", "    ", head+": "+textsafe.String(f.Headline()))
	if f.Because != "" {
		p.wrap("    ", "      ", "because "+textsafe.String(f.Because))
	}
	for _, n := range f.Notes {
		if n.Text == "" {
			continue
		}
		label := "note: "
		if n.Kind == finding.NoteHint {
			label = "hint: "
		}
		p.wrap("    ", "      ", label+textsafe.String(n.Text))
	}
	// Locations are not wrapped: a path split over two lines cannot be
	// copied or clicked.
	for i, l := range f.Locations {
		if i == 0 {
			fmt.Fprintln(p.w, "    at "+textsafe.String(l.String()))
		} else {
			fmt.Fprintln(p.w, "       "+textsafe.String(l.String()))
		}
	}
	if len(f.Evidence) > 0 {
		fmt.Fprintln(p.w, "    evidence:")
		for _, e := range f.Evidence {
			p.wrap("      ", "        ", textsafe.String(fmt.Sprintf("%s: %s", e.Label, FormatValue(e.Value, e.Unit))))
		}
	}
	if f.Fix != "" {
		p.fix(f.Fix)
	}
	if r, ok := finding.Lookup(f.Rule); ok {
		fmt.Fprintln(p.w, "    "+p.paint(ansiDim, "docs: "+r.URL()))
	}
}

// fix prints a finding's fix. Prose is word-wrapped; a fix of several lines
// is text to paste (sysctl.d, limits.conf or systemd lines), so each line is
// printed as it is, under the first, never re-flowed or joined.
func (p *textPrinter) fix(fix string) {
	lines := strings.Split(strings.TrimRight(fix, "\n"), "\n")
	if len(lines) == 1 {
		p.wrap("    ", "         ", "fix: "+textsafe.String(fix))
		return
	}
	for i, l := range lines {
		prefix := "         "
		if i == 0 {
			prefix = "    fix: "
		}
		if strings.HasPrefix(l, "#") && !p.opt.Wide {
			// A comment can wrap, as comments, without changing what is
			// pasted; a setting cannot.
			p.wrap(prefix, "         # ", textsafe.String(l))
			continue
		}
		fmt.Fprintln(p.w, strings.TrimRight(prefix+textsafe.String(l), " "))
	}
}

// wrap prints s word-wrapped to the width, the first line indented by first
// and the rest by rest. Words longer than a line (paths, URLs) are not split.
func (p *textPrinter) wrap(first, rest, s string) {
	indent := first
	line := indent
	empty := true
	for _, word := range strings.Fields(s) {
		if !empty && visibleLen(line)+1+visibleLen(word) > p.opt.Width {
			fmt.Fprintln(p.w, line)
			indent = rest
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	fmt.Fprintln(p.w, line)
}

// visibleLen is the length of s without ANSI escape sequences.
func visibleLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case r == '\x1b':
			esc = true
		case esc:
			if r == 'm' {
				esc = false
			}
		default:
			n++
		}
	}
	return n
}

// FormatValue prints an evidence value with its unit compactly: integers
// without decimals, others with up to three significant decimals.
func FormatValue(v float64, unit string) string {
	var s string
	switch {
	case v == float64(int64(v)) && v < 1e15 && v > -1e15:
		s = strconv.FormatInt(int64(v), 10)
	case v >= 100 || v <= -100:
		s = trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
	case v >= 1 || v <= -1:
		s = trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	default:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	switch {
	case unit == "":
		return s
	case strings.HasPrefix(unit, "%"):
		return s + unit
	default:
		return s + " " + unit
	}
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
