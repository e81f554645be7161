package textlayout

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		first, rest, s string
		width          int
		want           string
	}{
		{"", "", "one two three", 0, "one two three\n"},
		{"- ", "  ", "one  two\tthree", 80, "- one two three\n"},
		{"- ", "  ", "one two three four", 10, "- one two\n  three\n  four\n"},
		// A word longer than a line stays whole on its own line.
		{"", "", "see /a/very/long/path/to/file.go now", 10, "see\n/a/very/long/path/to/file.go\nnow\n"},
		{"x: ", "   ", "", 10, "x:\n"},
	} {
		if got := Wrap(tc.first, tc.rest, tc.s, tc.width); got != tc.want {
			t.Errorf("Wrap(%q, %q, %q, %d) = %q, want %q", tc.first, tc.rest, tc.s, tc.width, got, tc.want)
		}
	}
}

func TestWrapFitElidesLongWords(t *testing.T) {
	path := "/sys/fs/cgroup/kubepods.slice/" + strings.Repeat("p", 100) + "/cpu.max"
	got := WrapFit("  ", "    ", "read "+path, 40)
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if Width(l) > 40 {
			t.Errorf("line %q is %d wide, want ≤ 40", l, Width(l))
		}
	}
	if !strings.Contains(got, "…") || !strings.Contains(got, "/cpu.max") || !strings.Contains(got, "/sys/") {
		t.Errorf("WrapFit = %q: want the path's start and file name around an ellipsis", got)
	}
	// Words that fit are left whole, as Wrap leaves them.
	if got, want := WrapFit("", "", "a b c", 40), Wrap("", "", "a b c", 40); got != want {
		t.Errorf("WrapFit = %q, want %q", got, want)
	}
	if got := WrapFit("", "", path, 0); got != path+"\n" {
		t.Errorf("WrapFit width 0 = %q: must not cut", got)
	}
}

func TestElide(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"short", 0, "short"},
		{"abcdefghij", 4, "abcd"},
		{"abcdefghijklmnop", 10, "abc…klmnop"},
		{"日本語のファイル名です", 7, "日本…ル名です"},
	} {
		got := Elide(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Elide(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if tc.n > 0 && Width(got) > tc.n {
			t.Errorf("Elide(%q, %d) = %q is %d wide", tc.s, tc.n, got, Width(got))
		}
	}
}

func TestTableFits(t *testing.T) {
	tb := &Table{Indent: "  ", Header: []string{"NAME", "CPU", "WHY"}, Right: []bool{false, true, false}}
	tb.Add("main.f", "1.5", "spin")
	tb.Add("main.longer", "12.25", "")
	var b strings.Builder
	if err := tb.Write(&b, 80); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"  NAME           CPU  WHY\n" +
		"  main.f         1.5  spin\n" +
		"  main.longer  12.25\n"
	if b.String() != want {
		t.Errorf("Table =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTableStacksFirstColumn(t *testing.T) {
	tb := &Table{Header: []string{"CALL SITE", "WAITING", "SHARE"}, Short: []string{"SITE", "WAIT", "%"}}
	tb.Add("github.com/acme/server/internal/store.(*Pool).Get", "3.2s", "40%")
	var b strings.Builder
	if err := tb.Write(&b, 30); err != nil {
		t.Fatal(err)
	}
	// The name goes on a line of its own, elided to the width; the other
	// columns under it, indented by four, with the short headers.
	want := "" +
		"SITE\n" +
		"    WAIT  %\n" +
		"github.com…l/store.(*Pool).Get\n" + // 30 wide: the end kept longer
		"    3.2s  40%\n"
	if b.String() != want {
		t.Errorf("Table =\n%s\nwant\n%s", b.String(), want)
	}
	var wide strings.Builder
	if err := tb.Write(&wide, 0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(wide.String(), "\n"); n != 2 {
		t.Errorf("width 0 wrote %d lines, want one per row:\n%s", n, wide.String())
	}
}

func TestTableStacksLaterColumns(t *testing.T) {
	tb := &Table{Stack: 1, Header: []string{"G", "STATE", "WHERE"}, Short: []string{"G", "", "at"}}
	tb.Add("17", "chan receive", "main.worker at /src/app/worker.go:42")
	tb.Add("18", "", "main.idle")
	var b strings.Builder
	if err := tb.Write(&b, 20); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"G\n" +
		"17\n" +
		"    chan receive\n" + // an empty short header: no label
		"    at main.worker\n" +
		"       at\n" +
		"       /src/…rker.go:42\n" + // too long for a line: elided to 16

		"18\n" +
		"    at main.idle\n"
	if b.String() != want {
		t.Errorf("Table =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestLinesEscapesAndWraps(t *testing.T) {
	got := Lines("  evil\x1b]0;x\a name here\nok\n", 14)
	want := "" +
		"  evil\\x1b]0;x\\a\n" +
		"    name here\n" +
		"ok\n"
	if got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	if Lines("", 10) != "" {
		t.Error("Lines of nothing must be nothing")
	}
}
