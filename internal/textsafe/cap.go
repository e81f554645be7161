package textsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxField is the most characters of one field that schedoctor prints:
// a function name, a file path, a label, a message, a string of a JSON
// report. Input decides how long its names are: a profile naming a
// function of 1 MiB made 15 MB text reports and 28 MB JSON ones. The
// longest field of a real report here is under 600 characters (a trace
// finding's message; a message naming a Kubernetes cgroup path, 461),
// so 1024 cuts only what no program writes.
const MaxField = 1024

// Cap returns s cut after max characters (runes; an invalid UTF-8 byte
// counts as one), followed by CutMark(len(s)), or s itself when it is not
// longer. The cut never splits a character. A field Cap already cut is
// left as it is (renderers call String on what a source may have cut):
// its mark keeps the whole field's length.
func Cap(s string, max int) string {
	if len(s) <= max { // bytes ≥ characters
		return s
	}
	if wasCut(s, max) {
		return s
	}
	i, n := 0, 0
	for i < len(s) && n < max {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + CutMark(len(s))
}

// CutMark is what follows a field cut at MaxField: an ellipsis and the
// field's whole length in bytes, "…[cut from 1048576 bytes]". In JSON the
// length is that of the string as encoded.
func CutMark(total int) string {
	return cutPrefix + strconv.Itoa(total) + cutSuffix
}

const cutPrefix, cutSuffix = "…[cut from ", " bytes]"

// wasCut reports whether s ends with a CutMark after at most max
// characters: a field cut before. The bound keeps a forged mark at the end
// of a huge name from passing it whole.
func wasCut(s string, max int) bool {
	i := strings.LastIndex(s, cutPrefix)
	if i < 0 || !strings.HasSuffix(s, cutSuffix) || i > 4*max*utf8.UTFMax {
		return false
	}
	if _, err := strconv.Atoi(s[i+len(cutPrefix) : len(s)-len(cutSuffix)]); err != nil {
		return false
	}
	return utf8.RuneCountInString(s[:i]) <= max
}

// maxEscapedWidth is the most characters String writes for one: ‮.
const maxEscapedWidth = 6

// capLines caps each line of s at max characters.
func capLines(s string, max int) string {
	if len(s) <= max {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if len(l) > max {
			nl := strings.HasSuffix(l, "\n")
			l = Cap(strings.TrimSuffix(l, "\n"), max)
			if nl {
				l += "\n"
			}
			lines[i] = l
		}
	}
	return strings.Join(lines, "")
}

// jsonCap is the state of a JSON stream's strings, for the Writer's JSON
// mode: every string literal is cut after MaxField characters (an escape
// sequence counts as one), and the rest of it is replaced by CutMark, so
// that the document stays valid and every value is bounded.
type jsonCap struct {
	inStr    bool
	esc      bool // after a backslash
	hex      int  // hex digits left of a \uXXXX
	n        int  // characters of this string written
	kept     int  // bytes of this string written
	dropping bool
	dropped  int // bytes of this string dropped
}

// filter appends to out what of b survives the cap.
func (j *jsonCap) filter(out, b []byte) []byte {
	for _, c := range b {
		if !j.inStr {
			out = append(out, c)
			if c == '"' {
				*j = jsonCap{inStr: true}
			}
			continue
		}
		if j.dropping {
			switch {
			case j.esc:
				j.esc = false
			case c == '\\':
				j.esc = true
			case c == '"':
				out = append(out, CutMark(j.kept+j.dropped)...)
				out = append(out, c)
				j.inStr, j.dropping = false, false
				continue
			}
			j.dropped++
			continue
		}
		switch {
		case j.hex > 0:
			j.hex--
		case j.esc:
			j.esc = false
			if c == 'u' {
				j.hex = 4
			}
		case c == '"':
			j.inStr = false
			out = append(out, c)
			continue
		case c >= utf8.RuneSelf && !utf8.RuneStart(c):
			// a continuation byte: part of the character counted
		default: // a character starts: an ASCII byte, a lead byte, a backslash
			if j.n >= MaxField {
				j.dropping = true
				j.esc = c == '\\'
				j.dropped++
				continue
			}
			j.n++
			j.esc = c == '\\'
		}
		j.kept++
		out = append(out, c)
	}
	return out
}
