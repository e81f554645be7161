package sniff

import "strings"

// LooksLikeText tells an HTML page, a JSON error, a text dump or a legacy
// text profile from a binary format: the first 64 bytes are all printable
// text (tabs and line ends allowed), where a protobuf's field tags and
// varints are not.
func LooksLikeText(data []byte) bool {
	for _, c := range data[:min(len(data), 64)] {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}

// FirstLine is the first line of data's first 60 bytes, trimmed: what an
// error quotes (%q) to show what the input was instead.
func FirstLine(data []byte) string {
	s := string(data[:min(len(data), 60)])
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
