package textsafe

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Options tune a Writer.
type Options struct {
	// KeepSGR lets ANSI colour sequences (ESC [ digits and semicolons m)
	// through: the renderers' own colour on a terminal. Nothing else of
	// ESC passes; an SGR sequence from input cannot reach the stream
	// anyway, because the renderers escape input with String first.
	KeepSGR bool
	// JSON escapes as JSON does (\u007f, \u009b, \u202e): valid inside a
	// JSON string, which is the only place such characters can be in a
	// JSON document. encoding/json already escapes C0 controls but not
	// DEL, C1 or the bidi controls. Every string of the document is cut
	// after MaxField characters, its rest replaced by CutMark.
	JSON bool
}

// Writer escapes every unsafe character (see Unsafe) and invalid UTF-8
// that passes through it, except line feeds and tabs (and, with KeepSGR,
// colour sequences). It is the net under the standard output and error of
// the command line: a renderer that forgot to call String still cannot let
// an escape sequence through. A character split across two writes is held
// until the next write; call Flush at the end.
type Writer struct {
	w       io.Writer
	opt     Options
	pending []byte
	out     []byte
	capped  []byte
	js      jsonCap // JSON: where the stream is in its strings
}

// NewWriter returns a Writer that writes the escaped stream to w.
func NewWriter(w io.Writer, opt Options) *Writer {
	return &Writer{w: w, opt: opt}
}

// maxSGR bounds how long a colour sequence may be; a longer ESC [ run is
// not colour and is escaped.
const maxSGR = 32

// Write escapes p (with what was held from the last write) and writes it.
// It reports len(p) written unless the underlying writer fails.
func (w *Writer) Write(p []byte) (int, error) {
	data := p
	if len(w.pending) > 0 {
		data = append(w.pending, p...)
		w.pending = nil
	}
	cut := w.completeUpTo(data)
	if cut < len(data) {
		w.pending = append([]byte(nil), data[cut:]...)
	}
	if err := w.emit(data[:cut]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back (an incomplete character at the end of
// the stream, escaped as invalid bytes).
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	data := w.pending
	w.pending = nil
	return w.emit(data)
}

// completeUpTo returns the length of the prefix of data that can be
// escaped now: a trailing incomplete UTF-8 sequence, or an incomplete
// colour sequence with KeepSGR, waits for the next write.
func (w *Writer) completeUpTo(data []byte) int {
	n := len(data)
	// An incomplete multi-byte character: at most 3 bytes from the end.
	for i := n - 1; i >= 0 && i >= n-3; i-- {
		c := data[i]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[i:]) {
				return i
			}
			break
		}
	}
	if w.opt.KeepSGR {
		// An ESC [ digits-and-semicolons run at the very end.
		for i := n - 1; i >= 0 && i >= n-maxSGR; i-- {
			c := data[i]
			if c == 0x1b {
				if sgrPrefix(data[i:]) {
					return i
				}
				break
			}
			if !(c == '[' || c == ';' || (c >= '0' && c <= '9')) {
				break
			}
		}
	}
	return n
}

// sgrPrefix reports whether b (starting with ESC) could still become a
// colour sequence.
func sgrPrefix(b []byte) bool {
	if len(b) >= maxSGR {
		return false
	}
	if len(b) == 1 {
		return true
	}
	if b[1] != '[' {
		return false
	}
	for _, c := range b[2:] {
		if !(c == ';' || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// sgrLen is the length of the colour sequence at the start of b, or 0.
func sgrLen(b []byte) int {
	if len(b) < 3 || b[0] != 0x1b || b[1] != '[' {
		return 0
	}
	for i := 2; i < len(b) && i < maxSGR; i++ {
		c := b[i]
		switch {
		case c == 'm':
			return i + 1
		case c == ';' || (c >= '0' && c <= '9'):
		default:
			return 0
		}
	}
	return 0
}

func (w *Writer) emit(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if w.opt.JSON {
		w.capped = w.js.filter(w.capped[:0], b)
		b = w.capped
	}
	if firstUnsafeBytes(b) < 0 {
		_, err := w.w.Write(b)
		return err
	}
	out := w.out[:0]
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				out = append(out, c)
			case c == 0x1b && w.opt.KeepSGR && sgrLen(b[i:]) > 0:
				n := sgrLen(b[i:])
				out = append(out, b[i:i+n]...)
				i += n
				continue
			case c < 0x20 || c == 0x7f:
				out = w.appendEscaped(out, rune(c))
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if w.opt.JSON {
				out = append(out, `\ufffd`...)
			} else {
				out = append(out, `\x`...)
				out = append(out, hex2(c)...)
			}
		case Unsafe(r):
			out = w.appendEscaped(out, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	w.out = out[:0]
	_, err := w.w.Write(out)
	return err
}

func (w *Writer) appendEscaped(out []byte, r rune) []byte {
	if w.opt.JSON {
		s := strconv.FormatInt(int64(r), 16)
		out = append(out, `\u`...)
		for i := len(s); i < 4; i++ {
			out = append(out, '0')
		}
		return append(out, s...)
	}
	q := strconv.QuoteRuneToASCII(r)
	return append(out, q[1:len(q)-1]...)
}

// firstUnsafeBytes is the index of the first byte of b that is not plain
// (printable ASCII, \n, \t, or a safe UTF-8 character), or -1.
func firstUnsafeBytes(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && c != '\n' && c != '\t' {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}
