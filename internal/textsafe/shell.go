package textsafe

import (
	"strings"
	"unicode/utf8"
)

// ShellQuote quotes s for a shell, so that a command printed for the user
// can be pasted and still names the same file: as it is when it holds only
// characters no shell treats specially, in single quotes when it holds
// others, and in bash's $'...' (ANSI-C quoting, which zsh and ksh read
// too) with every character String would escape written as an escape
// (\n, \x1b, \u202e) when it holds any: a line break in single quotes
// would print as a raw line break, and a bidi override would reorder the
// line on screen.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if shellPlain(s) {
		return s
	}
	if firstUnsafe(s, false) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + hex2(s[i]))
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case Unsafe(r):
			writeEscaped(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// ShellJoin quotes each argument with ShellQuote and joins them with
// spaces: a command line that can be pasted.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellPlain reports whether s needs no quoting in any POSIX shell.
func shellPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_./,:=+@%", c) >= 0:
		default:
			return false
		}
	}
	return true
}
