package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/schedoctor/schedoctor/internal/textlayout"
)

// helpWidth is the width every help text and table of the command line
// fits by default: a terminal of 80 columns shows them unbroken.
const helpWidth = 80

// width is the display width of s (textlayout.Width: one column per rune;
// the help texts hold no wide characters).
func width(s string) int { return textlayout.Width(s) }

// wrapWords word-wraps s to w columns, the first line starting with first
// and the rest with rest (textlayout.Wrap). A word longer than a line (a URL,
// a path) stays whole on its own line.
func wrapWords(first, rest, s string, w int) string { return textlayout.Wrap(first, rest, s, w) }

// reflow rewraps prose to w columns. Paragraphs are separated by blank
// lines; inside one, a line that starts a list item ("- ") or changes the
// indentation starts a new item, whose continuation lines keep its
// indentation (plus two under a "- "). Lines inside ``` fences are kept.
func reflow(s string, w int) string {
	var b strings.Builder
	var item []string
	first, rest := "", ""
	flushItem := func() {
		if len(item) > 0 {
			b.WriteString(wrapWords(first, rest, strings.Join(item, " "), w))
		}
		item = nil
	}
	fenced := false
	for _, l := range strings.Split(strings.Trim(s, "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			flushItem()
			fenced = !fenced
			b.WriteString(l + "\n")
			continue
		}
		if fenced || strings.TrimSpace(l) == "" || strings.HasPrefix(l, "|") {
			flushItem()
			b.WriteString(l + "\n")
			continue
		}
		if strings.HasPrefix(l, "#") { // a heading: its own item
			flushItem()
			b.WriteString(wrapWords("", "  ", l, w))
			continue
		}
		body := strings.TrimLeft(l, " \t")
		indent := l[:len(l)-len(body)]
		bullet := strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "* ")
		if len(item) == 0 || bullet || indent != rest {
			flushItem()
			first, rest = indent, indent
			if bullet {
				rest = indent + "  "
			}
		}
		item = append(item, body)
	}
	flushItem()
	return b.String()
}

// wrapCommand breaks a shell command line wider than w at spaces outside
// quotes, ending each broken line with " \" and indenting the rest by
// four more: the example still runs when pasted.
func wrapCommand(l string, w int) string {
	if width(l) <= w {
		return l + "\n"
	}
	body := strings.TrimLeft(l, " ")
	indent := l[:len(l)-len(body)]
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range body {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	var b strings.Builder
	line := indent
	for i, word := range words {
		if i > 0 && width(line)+1+width(word)+2 > w {
			b.WriteString(line + " \\\n")
			line = indent + "    " + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// printFlags is flag.PrintDefaults wrapped to w columns: the usage under
// each flag is indented by eight spaces (not a tab, whose width the
// terminal decides) and word-wrapped.
func printFlags(out io.Writer, fs *flag.FlagSet, w int) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		if !zeroDefault(f) {
			if _, isString := f.Value.(interface{ IsBoolFlag() bool }); !isString && isStringFlag(f) {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %v)", f.DefValue)
			}
		}
		fmt.Fprintln(out, head)
		io.WriteString(out, wrapWords("        ", "        ", usage, w))
	})
}

// zeroDefault reports whether f's default is its type's zero value, which
// flag.PrintDefaults leaves unsaid.
func zeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}

// isStringFlag reports whether f is a plain string flag (its default is
// shown quoted, as flag.PrintDefaults does).
func isStringFlag(f *flag.Flag) bool {
	_, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, s := f.Value.(flag.Getter).Get().(string)
	return s
}
