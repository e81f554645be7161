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

// run runs the CLI with args and returns the exit code, stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code := Run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestNoArgs(t *testing.T) {
	code, _, stderr := run(t, "")
	if code != ExitError || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no args: code %d, stderr %q", code, stderr)
	}
}

func TestHelp(t *testing.T) {
	code, stdout, _ := run(t, "", "help")
	if code != ExitClean || !strings.Contains(stdout, "rules") || !strings.Contains(stdout, "version") {
		t.Errorf("help: code %d, stdout %q", code, stdout)
	}
	// Help asked for is on stdout (it can be paged); a bad flag's usage
	// is on stderr.
	code, stdout, stderr := run(t, "", "help", "rules")
	if code != ExitClean || !strings.Contains(stdout, "Usage: schedoctor rules") || !strings.Contains(stdout, "Examples:") || stderr != "" {
		t.Errorf("help rules: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "", "trace", "-h")
	if code != ExitClean || !strings.Contains(stdout, "Usage: schedoctor trace") || stderr != "" {
		t.Errorf("trace -h: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "", "trace", "-nosuch")
	if code != ExitError || !strings.Contains(stderr, "Usage: schedoctor trace") || stdout != "" {
		t.Errorf("trace -nosuch: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = run(t, "", "help", "nosuch")
	if code != ExitError || !strings.Contains(stderr, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: code %d, stderr %q", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, stderr := run(t, "", "frobnicate")
	if code != ExitError || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestBadFlag(t *testing.T) {
	code, _, stderr := run(t, "", "rules", "-nosuch")
	if code != ExitError || !strings.Contains(stderr, "flag provided but not defined: -nosuch") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := run(t, "", "version")
	if code != ExitClean || !strings.HasPrefix(stdout, "schedoctor ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("version: code %d, stdout %q", code, stdout)
	}
	if code, _, _ := run(t, "", "version", "extra"); code != ExitError {
		t.Errorf("version extra: code %d, want 2", code)
	}
}

func TestRulesList(t *testing.T) {
	code, stdout, _ := run(t, "", "rules", "-wide")
	if code != ExitClean {
		t.Fatalf("code %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(finding.Rules())+1 {
		t.Errorf("rules printed %d lines for %d rules", len(lines), len(finding.Rules()))
	}
	if !strings.Contains(stdout, "SD101") || !strings.Contains(stdout, "SD704") {
		t.Errorf("rules output lacks the ends of the catalog:\n%s", stdout)
	}
	for _, l := range lines[1:] {
		if !strings.Contains(l, "implemented") && !strings.Contains(l, "planned") {
			t.Errorf("rule line without status: %q", l)
		}
	}
}

func TestRulesExplain(t *testing.T) {
	code, stdout, _ := run(t, "", "rules", "SD101", "sleep-poll")
	if code != ExitClean || !strings.Contains(stdout, "# SD101 busy-select") || !strings.Contains(stdout, "# SD102 sleep-poll") {
		t.Errorf("code %d, stdout %q", code, stdout)
	}
	code, _, stderr := run(t, "", "rules", "SD999")
	if code != ExitError || !strings.Contains(stderr, `no rule "SD999"`) {
		t.Errorf("SD999: code %d, stderr %q", code, stderr)
	}
}

func TestRulesJSON(t *testing.T) {
	code, stdout, _ := run(t, "", "rules", "-json", "SD401")
	if code != ExitClean {
		t.Fatalf("code %d", code)
	}
	var rules []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rules); err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0]["id"] != "SD401" || rules[0]["status"] == nil || rules[0]["url"] == nil {
		t.Errorf("rules -json SD401 = %s", stdout)
	}
}

func TestFailLevel(t *testing.T) {
	fs := []finding.Finding{{Rule: "SD304", Severity: finding.Info}, {Rule: "SD102", Severity: finding.Warning}}
	for _, c := range []struct {
		level string
		want  int
	}{{"info", 1}, {"warning", 1}, {"critical", 0}, {"none", 0}} {
		var fl failLevel
		if err := fl.Set(c.level); err != nil {
			t.Fatal(err)
		}
		if got := exitCode(fl, fs); got != c.want {
			t.Errorf("-fail %s: exit %d, want %d", c.level, got, c.want)
		}
		if fl.String() != c.level {
			t.Errorf("String() = %q, want %q", fl.String(), c.level)
		}
	}
	var fl failLevel
	if err := fl.Set("loud"); err == nil {
		t.Error("-fail loud: want an error")
	}
	if got := exitCode(failLevel{sev: finding.Warning}, nil); got != ExitClean {
		t.Errorf("no findings: exit %d", got)
	}
}

func TestPanicIsAnError(t *testing.T) {
	register(&command{name: "boom-test", order: 1000, run: func(context.Context, *Env, []string) int { panic("kaboom") }})
	defer func() { commands = commands[:len(commands)-1] }()
	code, _, stderr := run(t, "", "boom-test")
	if code != ExitError || !strings.Contains(stderr, "internal error: kaboom") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

// TestWidth80 measures every help text, the list of commands, the rules
// (list and explanations): each line fits 80 columns.
func TestWidth80(t *testing.T) {
	outputs := map[string]string{}
	_, outputs["help"], _ = run(t, "", "help")
	for _, c := range commands {
		_, outputs[c.name+" -h"], _ = run(t, "", c.name, "-h")
	}
	_, outputs["rules"], _ = run(t, "", "rules")
	for _, r := range finding.Rules() {
		_, outputs["rules "+r.ID], _ = run(t, "", "rules", r.ID)
	}
	for name, out := range outputs {
		if out == "" {
			t.Errorf("%s: no output on stdout", name)
		}
		for i, l := range strings.Split(out, "\n") {
			if n := width(l); n > helpWidth {
				t.Errorf("%s: line %d is %d columns: %q", name, i+1, n, l)
			}
		}
	}
	// -wide really is wide: the table on one line per rule.
	_, wide, _ := run(t, "", "rules", "-wide")
	if lines := strings.Count(wide, "\n"); lines != len(finding.Rules())+1 {
		t.Errorf("rules -wide: %d lines for %d rules", lines, len(finding.Rules()))
	}
}

func TestWrapCommand(t *testing.T) {
	l := "  schedoctor sweep -runs 5 -metric 'ops/s=ops/s ([0-9.]+) with spaces inside the quotes' -- ./cpubound -work 4000"
	got := wrapCommand(l, 70)
	for _, gl := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
		if width(gl) > 70 {
			t.Errorf("line %q wider than 70", gl)
		}
	}
	if !strings.Contains(got, "'ops/s=ops/s ([0-9.]+) with spaces inside the quotes'") {
		t.Errorf("a quoted argument was split:\n%s", got)
	}
	if strings.ReplaceAll(strings.ReplaceAll(got, " \\\n      ", " "), "\n", "") != l {
		t.Errorf("joined back, the command differs:\n%s", got)
	}
}

// TestGoldenWidths: the text reports the goldens hold (every source's
// summary tables and the findings) fit 80 columns, except the lines
// schedoctor keeps whole on purpose: a finding's locations (a path split
// over lines cannot be copied or clicked) and stderr messages.
func TestGoldenWidths(t *testing.T) {
	var files []string
	for _, pat := range []string{"*/*.txt", "*/*.text", "*/*.txt.golden", "lint/*.golden"} {
		m, _ := filepath.Glob(filepath.Join(testdataDir, pat))
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d text goldens found", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(b) || strings.HasPrefix(string(b), "{") {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			trim := strings.TrimSpace(l)
			if width(l) <= helpWidth || strings.HasPrefix(trim, "at ") || strings.HasPrefix(trim, "/") ||
				strings.HasPrefix(l, "schedoctor ") {
				continue
			}
			t.Errorf("%s:%d: %d columns: %q", filepath.Base(f), i+1, width(l), l)
		}
	}
}

// TestNumericFlags: every numeric flag is range-checked when parsed, with
// a usage error naming it (exit 2), before any input is read or any child
// started: NaN and Inf pass every comparison, and 9999999999 seconds
// overflows a time.Duration into a negative one.
func TestNumericFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "-cpus", "NaN", "x"}, "-cpus NaN"},
		{[]string{"trace", "-cpus", "-Inf", "x"}, "-cpus -Inf"},
		{[]string{"trace", "-cpus", "-1", "x"}, "-cpus -1"},
		{[]string{"trace", "-cpus", "1e400", "x"}, "-cpus"},
		{[]string{"trace", "-process-cpu", "-1s", "x"}, "-process-cpu"},
		{[]string{"check", "-cpus", "Inf", "http://127.0.0.1:1"}, "-cpus +Inf"},
		{[]string{"check", "-seconds", "9999999999", "http://127.0.0.1:1"}, "-seconds 9999999999"},
		{[]string{"check", "-trace-seconds", "100000", "http://127.0.0.1:1"}, "-trace-seconds 100000"},
		{[]string{"profile", "-seconds", "9999999999", "http://127.0.0.1:1/x"}, "-seconds 9999999999"},
		{[]string{"goroutines", "-seconds", "0", "x"}, "-seconds must be positive"},
		{[]string{"goroutines", "-seconds", "86401", "x"}, "-seconds 86401"},
		{[]string{"sweep", "-load", "http://127.0.0.1:1/", "-rate", "NaN", "--", "true"}, "-rate NaN"},
		{[]string{"sweep", "-load", "http://127.0.0.1:1/", "-rate", "1e9", "--", "true"}, "-rate 1e+09"},
		{[]string{"sweep", "-load", "http://127.0.0.1:1/", "-rate", "10", "-max-inflight", "99999999", "--", "true"}, "-max-inflight 99999999"},
		{[]string{"sweep", "-tolerance", "NaN", "--", "true"}, "want a percentage"},
		{[]string{"demo", "-duration", "0"}, "-duration 0s"},
		{[]string{"demo", "-duration", "1h"}, "-duration 1h0m0s"},
		{[]string{"procs", "-window", "-1s"}, "-window -1s"},
	} {
		code, stdout, stderr := run(t, "", c.args...)
		if code != ExitError || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
