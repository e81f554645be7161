package cli

import (
	"bytes"
	"context"
	"encoding/json"
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
	code, _, stderr := run(t, "", "help", "rules")
	if code != ExitClean || !strings.Contains(stderr, "Usage: schedoctor rules") || !strings.Contains(stderr, "Examples:") {
		t.Errorf("help rules: code %d, stderr %q", code, stderr)
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
	code, stdout, _ := run(t, "", "rules")
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
