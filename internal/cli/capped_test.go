package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// The HTML report of a profile whose names carry bidi overrides and
// terminal escapes shows none of them raw, in the page or in the pictures'
// data (a flame-graph label kept a raw right-to-left override); names of
// 1 MiB come out capped, in every format.
func TestReportsEscapeAndCapNames(t *testing.T) {
	dir := t.TempDir()
	if err := genProfileEscapes(dir); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, stderr := run(t, "", "profile", "-nosrc", "-html", html, filepath.Join(dir, "cpu.pb.gz")); code == ExitError {
		t.Fatalf("exit 2: %s", stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []rune{'\u202e', 0x1b, 0x9b} {
		if i := bytes.IndexRune(page, r); i >= 0 {
			t.Errorf("raw %U in the HTML report: %q", r, page[max(0, i-60):min(len(page), i+20)])
		}
	}
	if !bytes.Contains(page, []byte(`main.\\u202eexe.gnp`)) { // escaped, inside the JSON data
		t.Error("the flame graph's data lacks the escaped name")
	}

	big := t.TempDir()
	if err := genProfileHugeNames(big); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(big, "cpu.pb.gz")
	html = filepath.Join(big, "r.html")
	for _, args := range [][]string{
		{"profile", "-nosrc", prof},
		{"profile", "-nosrc", "-json", prof},
		{"profile", "-nosrc", "-wide", prof},
		{"profile", "-nosrc", "-html", html, prof},
	} {
		code, stdout, stderr := run(t, "", args...)
		if code == ExitError {
			t.Fatalf("%q: exit 2: %s", args, stderr)
		}
		if n := len(stdout) + len(stderr); n > 64<<10 {
			t.Errorf("%q: %d bytes of output for names of 1 MiB", args, n)
		}
		mark := "…[cut from 1048576 bytes]" // text wraps it at its spaces
		if args[2] != "-json" {
			mark = "…[cut"
		}
		if !strings.Contains(stdout, mark) && args[2] != "-html" {
			t.Errorf("%q: no cut mark %q", args, mark)
		}
	}
	if st, err := os.Stat(html); err != nil || st.Size() > 256<<10 {
		t.Errorf("HTML report: %v, %d bytes", err, st.Size())
	}
}

// sweep prints the command it runs quoted for a shell, control characters
// escaped: it printed the arguments joined with spaces, raw newlines too.
func TestSweepPrintsTheCommandQuoted(t *testing.T) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		t.Skip("no /bin/sh")
	}
	arg := "two words\nSD999 forged line\x1b]0;t\a\u202e"
	code, stdout, stderr := run(t, "", "sweep", "-q", "-runs", "1", "-procs", "1", "--", sh, "-c", "exit 0", arg)
	if code == ExitError {
		t.Fatalf("exit 2: %s", stderr)
	}
	want := "sweep: /bin/sh -c 'exit 0' " + textsafe.ShellQuote(arg)
	if !strings.Contains(stdout, want+"\n") {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "\nSD999") {
		t.Errorf("a raw line break from the command forged a line:\n%s", stdout)
	}
}
