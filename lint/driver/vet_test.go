package driver

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// TestMain lets this test binary serve as go vet's tool, as cmd/schedoctor
// does, so that the go vet driver is tested without building a binary.
func TestMain(m *testing.M) {
	if IsVetTool(os.Args[1:]) {
		VetToolMain()
	}
	os.Exit(m.Run())
}

// driver is one way Run can analyze: in this process (with the test's own
// analyzer) or through go vet (with the real ones).
type driver struct {
	name    string
	options func(dir string, patterns ...string) Options
}

func drivers(t *testing.T) []driver {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []driver{
		{"in-process", testOptions},
		{"go-vet", func(dir string, patterns ...string) Options {
			return Options{Dir: dir, Patterns: patterns, VetTool: exe}
		}},
	}
}

func TestIsVetTool(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"-V=full"}, true},
		{[]string{"-flags"}, true},
		{[]string{"-json", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-busyselect", "-json", "x/vet.cfg"}, true},
		{nil, false},
		{[]string{"lint", "./..."}, false},
		{[]string{"profile", "cpu.cfg"}, false}, // a subcommand, whatever its argument's name
	} {
		if got := IsVetTool(tc.args); got != tc.want {
			t.Errorf("IsVetTool(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestVetMatchesInProcess: the same analyzers through go vet give the same
// findings, with the same functions and evidence, as in this process.
func TestVetMatchesInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	dir := "../../internal/cli/testdata/lint/mod"
	exe, _ := os.Executable()
	for _, tests := range []bool{false, true} {
		in, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Tests: tests})
		if err != nil {
			t.Fatal(err)
		}
		vet, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Tests: tests, VetTool: exe})
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Findings) == 0 {
			t.Fatal("no findings on the fixture")
		}
		if !reflect.DeepEqual(in.Findings, vet.Findings) {
			t.Errorf("tests=%v: go vet's findings differ:\nin process: %+v\ngo vet:     %+v", tests, in.Findings, vet.Findings)
		}
		if in.Summary.Packages != vet.Summary.Packages || in.Summary.Analyzers != vet.Summary.Analyzers {
			t.Errorf("tests=%v: summaries differ: in process %+v, go vet %+v", tests, in.Summary, vet.Summary)
		}
	}
}

// TestVetFix applies the real analyzers' fixes through go vet, as in this
// process, on two copies of the fixture.
func TestVetFix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	exe, _ := os.Executable()
	var got []string
	for _, vet := range []string{"", exe} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS("../../internal/cli/testdata/lint/mod")); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./..."}, Fix: true, VetTool: vet})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Fixed == 0 {
			t.Fatalf("vettool %q: nothing fixed: %+v", vet, res.Summary)
		}
		b, err := os.ReadFile(filepath.Join(dir, "worker", "worker.go"))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	if got[0] != got[1] {
		t.Errorf("go vet's fixes differ from the in-process ones")
	}
	if !strings.Contains(got[1], "runtime.Gosched()") {
		t.Errorf("the fixed file has no runtime.Gosched() call")
	}
}

// TestSeverityThroughDrivers: a severity an analyzer computed for one
// finding (SD104 at info for a timer the go 1.24 runtime collects) reaches
// the finding through the Diagnostic's Category in both drivers, while a
// finding at the catalog's severity keeps it.
func TestSeverityThroughDrivers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	exe, _ := os.Executable()
	want := map[int]finding.Severity{19: finding.Info, 28: finding.Warning}
	for _, vet := range []string{"", exe} {
		res, err := Run(context.Background(), Options{Dir: "testdata/severity", Patterns: []string{"./..."}, VetTool: vet})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]finding.Severity{}
		for _, f := range res.Findings {
			if f.Rule != "SD104" {
				t.Errorf("vettool %q: rule %q (category not split?)", vet, f.Rule)
			}
			if f.Fix != finding.MustLookup("SD104").Fix {
				t.Errorf("vettool %q: line %d: fix %q, want the catalog's", vet, f.Locations[0].Line, f.Fix)
			}
			got[f.Locations[0].Line] = f.Severity
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("vettool %q: severities by line %v, want %v", vet, got, want)
		}
	}
}

// TestVetErrorTwoHeaders: go vet names a package that does not type-check
// twice, "# pkg" and "# [pkg]", before its messages; the error must carry
// the messages, not "(no message)" (seen on tidwall/evio's benchmarks).
func TestVetErrorTwoHeaders(t *testing.T) {
	stderr := "# example.com/m/bench\n# [example.com/m/bench]\nvet: bench/a.go:12:21: cannot use \"x\" (untyped string constant) as font.Font value in assignment\n"
	err := vetError("/src", stderr)
	if msg := err.Error(); !strings.Contains(msg, "package example.com/m/bench does not compile") || !strings.Contains(msg, "a.go:12:21: cannot use") || strings.Contains(msg, "(no message)") {
		t.Errorf("vetError = %q", msg)
	}
	// Two different packages: the first one's messages only.
	err = vetError("/src", "# example.com/m/a\nvet: a/a.go:1:1: bad\n# example.com/m/b\nvet: b/b.go:1:1: worse\n")
	if msg := err.Error(); !strings.Contains(msg, "example.com/m/a does not compile") || strings.Contains(msg, "worse") {
		t.Errorf("vetError = %q", msg)
	}
}
