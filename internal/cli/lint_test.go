package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// lintTestdata is testdata/lint, absolute: the tests change directory.
var lintTestdata, _ = filepath.Abs(filepath.Join("testdata", "lint"))

// runIn runs schedoctor with args in dir and returns the exit code and the
// output, with dir replaced by $DIR.
func runIn(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(abs)
	var out, errb bytes.Buffer
	code = Run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, args)
	strip := func(s string) string { return strings.ReplaceAll(s, abs, "$DIR") }
	return code, strip(out.String()), strip(errb.String())
}

// TestLintGolden lints the fixture module in every output format.
func TestLintGolden(t *testing.T) {
	fixture := filepath.Join(lintTestdata, "mod")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"text.golden", []string{"lint"}},
		{"json.golden", []string{"lint", "-json"}},
		{"sarif.golden", []string{"lint", "-sarif", "./..."}},
		{"test.golden", []string{"lint", "-test", "./worker"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := runIn(t, fixture, tc.args...)
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			if code != ExitFindings {
				t.Errorf("exit %d, want %d (findings)", code, ExitFindings)
			}
			checkGolden(t, filepath.Join("lint", tc.golden), stdout)
		})
	}
}

// TestLintRules checks that the fixture, which has one instance of each
// code rule, gets a finding for every rule the catalog says is implemented,
// located and with evidence.
func TestLintRules(t *testing.T) {
	_, stdout, _ := runIn(t, filepath.Join(lintTestdata, "mod"), "lint", "-json", "-test")
	var out struct {
		Source   string            `json:"source"`
		Findings []finding.Finding `json:"findings"`
		Summary  struct {
			Packages int `json:"packages"`
			Files    int `json:"files"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if out.Source != "lint" || out.Summary.Packages != 1 || out.Summary.Files != 2 {
		t.Errorf("source %q, summary %+v: want lint, 1 package, 2 files", out.Source, out.Summary)
	}
	found := map[string]bool{}
	for _, f := range out.Findings {
		found[f.Rule] = true
		if len(f.Locations) == 0 || !strings.HasPrefix(f.Locations[0].File, "worker/") || f.Locations[0].Function == "" {
			t.Errorf("%s: location %v, want worker/... with a function", f.Rule, f.Locations)
		}
		if len(f.Evidence) == 0 || f.Fix == "" {
			t.Errorf("%s at %v: no evidence or fix", f.Rule, f.Locations)
		}
	}
	for _, r := range finding.Rules() {
		if strings.HasPrefix(r.ID, "SD1") && r.Status == finding.Implemented && !found[r.ID] {
			t.Errorf("%s is implemented but not reported on the fixture", r.ID)
		}
	}
}

func TestLintExitCodes(t *testing.T) {
	fixture := filepath.Join(lintTestdata, "mod")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"lint", "-fail", "warning"}, ExitFindings},
		{[]string{"lint", "-fail", "critical"}, ExitClean}, // all are warnings
		{[]string{"lint", "-fail", "none", "-json"}, ExitClean},
	} {
		if code, _, stderr := runIn(t, fixture, tc.args...); code != tc.want {
			t.Errorf("%q: exit %d, want %d; stderr %s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestLintFix applies the fixes on a copy of the fixture and compares the
// rewritten file and the report with golden files.
func TestLintFix(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(lintTestdata, "mod"))); err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr := runIn(t, dir, "lint", "-fix")
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "worker", "worker.go"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "lint/fix.golden", stdout)
	checkGolden(t, "lint/worker.go.fixed", string(fixed))
}

// TestLintBadInput: what cannot be linted is exit 2 with a message that
// names what failed, and never a stack.
func TestLintBadInput(t *testing.T) {
	broken := filepath.Join(lintTestdata, "broken")
	mod := filepath.Join(lintTestdata, "mod")
	for _, tc := range []struct {
		name string
		dir  string
		args []string
		want []string
	}{
		{"does not compile", broken, []string{"lint", "./..."},
			[]string{"schedoctor lint: package example.com/broken/bad does not compile", "bad/bad.go:5:25: undefined: undefinedName"}},
		{"missing directory", mod, []string{"lint", "./nosuchdir"},
			[]string{"schedoctor lint: cannot load ./nosuchdir", "directory not found"}},
		{"empty pattern", mod, []string{"lint", ""},
			[]string{`schedoctor lint: no packages matched: empty package pattern ""`}},
		{"no such package", mod, []string{"lint", "example.com/nosuchpkg"},
			[]string{"schedoctor lint: cannot load example.com/nosuchpkg"}},
		{"json and sarif", mod, []string{"lint", "-json", "-sarif"},
			[]string{"-json and -sarif cannot be used together"}},
		{"bad fail level", mod, []string{"lint", "-fail", "loud"},
			[]string{"want info, warning, critical or none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, tc.dir, tc.args...)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if stdout != "" {
				t.Errorf("stdout: %s", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not contain %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr has a stack or panic: %s", stderr)
			}
		})
	}
}
