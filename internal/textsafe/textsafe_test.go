package textsafe

import (
	"bytes"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main.handler", "main.handler"},
		{"/home/ünïcode/日本.go", "/home/ünïcode/日本.go"},
		{`C:\src\x.go`, `C:\src\x.go`}, // backslashes stay readable
		{"evil\x1b]0;pwned\a", `evil\x1b]0;pwned\a`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"del\x7f", `del\x7f`},
		{"c1\u009bJ", `c1\u009bJ`},
		{"gnp\u202eexe", `gnp\u202eexe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{"cut\xe6\x97", `cut\xe6\x97`},
		{"\ufffd literal", "\ufffd literal"},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	in := "line 1\n\tline 2\r\x1b[2Kforged\n"
	want := "line 1\n\tline 2\\r\\x1b[2Kforged\n"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}

func TestStringNoAlloc(t *testing.T) {
	s := "runtime.findRunnable"
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String of a safe string allocates %v times", n)
	}
}

// TestWriterSplit writes hostile text one byte at a time: a character or a
// colour sequence split across writes must come out the same as whole.
func TestWriterSplit(t *testing.T) {
	in := "ok \x1b[1;31mred\x1b[0m \x1b[2J 日本 \u202e \xff end\x1b[3"
	for _, sgr := range []bool{false, true} {
		var whole, split bytes.Buffer
		ww := NewWriter(&whole, Options{KeepSGR: sgr})
		ww.Write([]byte(in))
		ww.Flush()
		ws := NewWriter(&split, Options{KeepSGR: sgr})
		for i := 0; i < len(in); i++ {
			ws.Write([]byte{in[i]})
		}
		ws.Flush()
		if whole.String() != split.String() {
			t.Errorf("KeepSGR=%v: split %q, whole %q", sgr, split.String(), whole.String())
		}
		got := whole.String()
		if sgr != strings.Contains(got, "\x1b[1;31mred\x1b[0m") {
			t.Errorf("KeepSGR=%v: colour kept = %v: %q", sgr, !sgr, got)
		}
		for _, bad := range []string{"\x1b[2J", "\u202e", "\xff", "\x1b[3"} {
			if strings.Contains(got, bad) {
				t.Errorf("KeepSGR=%v: %q passed through: %q", sgr, bad, got)
			}
		}
		if !strings.Contains(got, "日本") || !strings.Contains(got, `\x1b[2J`) || !strings.HasSuffix(got, `end\x1b[3`) {
			t.Errorf("KeepSGR=%v: %q", sgr, got)
		}
	}
}

func TestWriterJSON(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, Options{JSON: true})
	w.Write([]byte("{\"f\": \"a\x7fb\u009bc\u202ed\"}\n"))
	w.Flush()
	if want := `{"f": "a\u007fb\u009bc\u202ed"}` + "\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func FuzzString(f *testing.F) {
	f.Add("a\x1b[31mb\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{String(s), Text(s)} {
			if strings.ContainsFunc(out, func(r rune) bool { return Unsafe(r) && r != '\n' && r != '\t' }) {
				t.Fatalf("unsafe character left in %q", out)
			}
		}
		var b bytes.Buffer
		w := NewWriter(&b, Options{})
		w.Write([]byte(s))
		w.Flush()
		if firstUnsafeBytes(b.Bytes()) >= 0 {
			t.Fatalf("Writer left an unsafe byte in %q", b.String())
		}
	})
}
