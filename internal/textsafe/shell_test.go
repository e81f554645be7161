package textsafe

import (
	"os/exec"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"trace.out", "trace.out"},
		{"/tmp/a-b_c/x.pb.gz", "/tmp/a-b_c/x.pb.gz"},
		{"", "''"},
		{"my trace.out", "'my trace.out'"},
		{"it's", `'it'\''s'`},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
		{"a\nb", `$'a\nb'`},
		{"x\x1b]0;pwned\a", `$'x\x1b]0;pwned\a'`},
		{"gnp\u202eexe", `$'gnp\u202eexe'`},
		{"bad\xffutf8 'q' \\", `$'bad\xffutf8 \'q\' \\'`},
	} {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got := ShellQuote(tc.in); !Is(got) {
			t.Errorf("ShellQuote(%q) = %q holds characters to escape", tc.in, got)
		}
	}
}

// What ShellQuote writes, bash reads back as the same argument.
func TestShellQuoteRoundTrip(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, in := range []string{"plain", "my file", "it's", "a\nb\tc", "x\x1b[2J\u202e", "\\'\"$`", "bad\xff"} {
		out, err := exec.Command(bash, "-c", "printf %s "+ShellQuote(in)).Output()
		if err != nil {
			t.Fatalf("bash on %s: %v", ShellQuote(in), err)
		}
		if string(out) != in {
			t.Errorf("bash read %s as %q, want %q", ShellQuote(in), out, in)
		}
	}
}
