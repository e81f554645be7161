package sniff

import "testing"

func TestLooksLikeTextAndFirstLine(t *testing.T) {
	for _, c := range []struct {
		in    string
		text  bool
		first string
	}{
		{"<!DOCTYPE html>\n<html>", true, "<!DOCTYPE html>"},
		{"  goroutine 1 [running]:\r\n\tmain.main()", true, "goroutine 1 [running]:\r"},
		{"\x0a\x04\x08\x01\x10\x02", false, ""},
		{"text then \x00 a zero", false, "text then \x00 a zero"},
		{"caf\xc3\xa9", false, "caf\xc3\xa9"},
		{"", true, ""},
	} {
		if got := LooksLikeText([]byte(c.in)); got != c.text {
			t.Errorf("LooksLikeText(%q) = %v, want %v", c.in, got, c.text)
		}
		if c.first != "" {
			if got := FirstLine([]byte(c.in)); got != c.first {
				t.Errorf("FirstLine(%q) = %q, want %q", c.in, got, c.first)
			}
		}
	}
}
