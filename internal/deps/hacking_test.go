package deps

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the copy of the layers table in docs/HACKING.md")

// The copy of the table in docs/HACKING.md lies between these two lines.
const (
	hackingBegin = "<!-- layers: the table of internal/deps/deps_test.go, rewritten by `go test ./internal/deps -run TestHackingShowsLayers -update`; do not edit here -->\n"
	hackingEnd   = "<!-- layers: end -->\n"
)

// hackingTable is the table as docs/HACKING.md shows it: layers, then
// testArrows in the same notation, each after its reason.
func hackingTable() []byte {
	var b strings.Builder
	b.WriteString("```\n")
	b.WriteString(strings.TrimSpace(layers))
	b.WriteString("\n\n# Arrows that only tests draw (testArrows), each with its reason.\n")
	for _, a := range testArrows {
		fmt.Fprintf(&b, "#\n# %s\ntest: %s < %s;\n", a.why, a.to, a.from)
	}
	b.WriteString("```\n")
	return []byte(b.String())
}

// TestHackingShowsLayers checks that docs/HACKING.md shows the table as it
// is here, and rewrites the copy with -update.
func TestHackingShowsLayers(t *testing.T) {
	m := loadModule(t)
	path := filepath.Join(m.root, "docs", "HACKING.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spliceTable(doc, hackingTable())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if bytes.Equal(got, doc) {
		return
	}
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the table in %s", path)
		return
	}
	t.Errorf("%s shows another table than internal/deps/deps_test.go: run go test ./internal/deps -run TestHackingShowsLayers -update", path)
}

// spliceTable returns doc with what lies between the markers replaced by
// table.
func spliceTable(doc, table []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(hackingBegin))
	end := bytes.Index(doc, []byte(hackingEnd))
	if begin < 0 || end < 0 || end < begin || bytes.Count(doc, []byte(hackingBegin)) != 1 || bytes.Count(doc, []byte(hackingEnd)) != 1 {
		return nil, errMarkers
	}
	begin += len(hackingBegin)
	return bytes.Join([][]byte{doc[:begin], table, doc[end:]}, nil), nil
}

var errMarkers = errors.New("the table's markers are missing, repeated or out of order:\n" + hackingBegin + hackingEnd)

// TestSpliceTable checks the splice: the copy is replaced whole, the rest
// of the page is kept, and a page without its markers fails.
func TestSpliceTable(t *testing.T) {
	doc := "intro\n" + hackingBegin + "old\ntable\n" + hackingEnd + "rest\n"
	got, err := spliceTable([]byte(doc), []byte("new\n"))
	if want := "intro\n" + hackingBegin + "new\n" + hackingEnd + "rest\n"; err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{
		"no markers\n",
		hackingBegin + "x\n",
		hackingEnd + "x\n" + hackingBegin,
		hackingBegin + hackingEnd + hackingBegin + hackingEnd,
	} {
		if _, err := spliceTable([]byte(bad), []byte("t\n")); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
