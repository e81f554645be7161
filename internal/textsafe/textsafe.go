// Package textsafe makes strings that come from input safe to print on a
// terminal.
//
// A profile, a trace, a schedtrace log or a process's own /proc entries are
// written by whoever made them: a function named "\x1b]0;pwned\a" retitles
// the terminal, "\x1b[2K\r" erases the line it is printed on, and a
// right-to-left override (U+202E) makes "gnp.exe" read as "exe.png". So
// every string from input is shown with its control characters escaped the
// way %q escapes them (\x1b, \n, \u202e), and is otherwise left readable:
// no quotes are added, backslashes and printable Unicode are kept.
//
// String is for one-line fields (names, paths, reasons); Text keeps line
// breaks and tabs for multi-line text (error messages, logs); Writer is the
// net under every stream that reaches a terminal. Both String and Text cut
// a field (a line) longer than MaxField characters, and Writer's JSON mode
// cuts every string of the document there: a name is as long as its input
// says. Cap and CutMark are that cut on their own; ShellQuote and ShellJoin
// quote a command line shown to the user so that it can be pasted.
//
// The package escapes and caps; it does not lay text out. Widths,
// wrapping and tables are internal/textlayout's, which imports this
// package (never the reverse) and is given strings escaped here.
//
// The package imports only the standard library.
package textsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Unsafe reports whether r must be escaped in any context: C0 controls, DEL,
// C1 controls (U+0080–U+009F: a terminal may read U+009B as CSI), and the
// Unicode bidirectional formatting characters that reorder what follows
// them (embeddings, overrides, isolates, marks).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // ALM, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	case r == utf8.RuneError:
		// A literal U+FFFD is harmless; invalid bytes are handled by the
		// callers, which see the width of the decoded rune.
		return false
	}
	return false
}

// String returns s with every unsafe character escaped as %q would escape
// it (\n, \t, \x1b, \u202e) and every invalid UTF-8 byte as \xNN. It is for
// one-line fields: a line break in a function name is escaped too, so that
// it cannot forge a line of the report. Safe strings are returned as is,
// without allocating.
//
// A field longer than MaxField characters is cut there (Cap): names come
// from input, and one of a MiB would make the report a MiB.
func String(s string) string {
	if wasCut(s, maxEscapedWidth*MaxField) && firstUnsafe(s, false) < 0 {
		return s // String's own output: cut and escaped already
	}
	return escape(Cap(s, MaxField), false)
}

// Text is String for multi-line text: line feeds and tabs are kept, every
// other unsafe character is escaped (a carriage return too: "\r" would let
// a line overwrite the one before it).
// Each line is cut at MaxField characters, as String cuts a field.
func Text(s string) string {
	return escape(capLines(s, MaxField), true)
}

// Is reports whether s needs no escaping as a one-line field.
func Is(s string) bool {
	return String(s) == s
}

func escape(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case Unsafe(r):
			writeEscaped(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte of s to escape, or -1.
func firstUnsafe(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLines && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}

// writeEscaped writes r as strconv.QuoteRune would inside its quotes.
func writeEscaped(b *strings.Builder, r rune) {
	q := strconv.QuoteRuneToASCII(r) // '\x1b', '\n', '\u202e'
	b.WriteString(q[1 : len(q)-1])
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Strings applies String to each element, in a new slice.
func Strings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = String(s)
	}
	return out
}
