package textsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCap(t *testing.T) {
	long := strings.Repeat("é", 2000) // 2 bytes each: the cut counts characters
	got := Cap(long, 10)
	if want := strings.Repeat("é", 10) + "…[cut from 4000 bytes]"; got != want {
		t.Errorf("Cap = %q, want %q", got, want)
	}
	for _, s := range []string{"", "short", strings.Repeat("x", 10)} {
		if got := Cap(s, 10); got != s {
			t.Errorf("Cap(%q) = %q: cut what fits", s, got)
		}
	}
	if got := Cap("\xff\xff\xffabc", 2); got != "\xff\xff…[cut from 6 bytes]" {
		t.Errorf("invalid bytes count one each: %q", got)
	}
	// Cut once: the mark keeps the whole length through a second pass.
	once := Cap(strings.Repeat("x", 5000), 100)
	if twice := Cap(once, 100); twice != once {
		t.Errorf("Cap(Cap(s)) = %q, want %q", twice[90:], once[90:])
	}
	if s := String(String(strings.Repeat("\u202e", 5000))); !strings.HasSuffix(s, CutMark(15000)) {
		t.Errorf("String(String(s)) lost the length: %q", s[len(s)-40:])
	}
}

// String and Text cut what no program names: a MiB-long name comes out
// at MaxField characters, escaped, with its length.
func TestStringCaps(t *testing.T) {
	name := "main." + strings.Repeat("x", 1<<20) + "\u202e"
	got := String(name)
	if !strings.HasSuffix(got, CutMark(len(name))) || utf8.RuneCountInString(got) > MaxField+40 {
		t.Errorf("String of %d bytes: %d bytes, ends %q", len(name), len(got), got[max(0, len(got)-40):])
	}
	// A bidi override just before the cut is still escaped.
	s := strings.Repeat("x", MaxField-1) + "\u202e" + strings.Repeat("y", 10)
	if got := String(s); strings.ContainsRune(got, '\u202e') || !strings.Contains(got, `\u202e…[cut from`) {
		t.Errorf("override at the cut: %q", got[len(got)-60:])
	}
	text := "line one\n" + strings.Repeat("z", 5000) + "\nline three"
	got = Text(text)
	if !strings.HasPrefix(got, "line one\n") || !strings.HasSuffix(got, CutMark(5000)+"\nline three") {
		t.Errorf("Text cuts the long line alone: %q…%q", got[:20], got[len(got)-60:])
	}
	// Real fields are untouched.
	real := "p99 scheduling latency 16.78ms after a wait because runnable goroutines queued behind " + strings.Repeat("busy Ps ", 60)
	if len(real) > MaxField || String(real) != real {
		t.Errorf("a %d-byte field was changed", len(real))
	}
}

// The JSON writer cuts every string of a document after MaxField
// characters, escape sequences whole, and the document stays valid.
func TestWriterJSONCaps(t *testing.T) {
	huge := strings.Repeat("a\"\\\u202e\x01é", 100_000)
	doc := map[string]any{
		"function": huge,
		"short":    "kept \"as\" is \u202e",
		"list":     []string{huge, "x"},
		"n":        3,
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1, 7, 4096, len(raw)} { // the cut holds across writes
		var out bytes.Buffer
		w := NewWriter(&out, Options{JSON: true})
		for i := 0; i < len(raw); i += chunk {
			w.Write(raw[i:min(len(raw), i+chunk)])
		}
		w.Flush()
		var back map[string]any
		if err := json.Unmarshal(out.Bytes(), &back); err != nil {
			t.Fatalf("chunk %d: not JSON: %v\n%.300s", chunk, err, out.String())
		}
		if out.Len() > 4*MaxField*6 {
			t.Errorf("chunk %d: %d bytes from %d", chunk, out.Len(), len(raw))
		}
		f := back["function"].(string)
		if !strings.HasPrefix(f, huge[:60]) || !strings.Contains(f, "…[cut from ") || utf8.RuneCountInString(f) > MaxField+40 {
			t.Errorf("chunk %d: function %d characters, ends %q", chunk, utf8.RuneCountInString(f), f[max(0, len(f)-40):])
		}
		if back["short"] != "kept \"as\" is \u202e" || back["n"] != 3.0 || back["list"].([]any)[1] != "x" {
			t.Errorf("chunk %d: short fields changed: %v %v %v", chunk, back["short"], back["n"], back["list"].([]any)[1])
		}
	}
}
