package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

func TestDemoLintJSON(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
	code, stdout, stderr := run(t, "", "demo", "-stages", "lint", "-json")
	if code != ExitClean {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var out struct {
		Source   string           `json:"source"`
		Findings []map[string]any `json:"findings"`
		Summary  struct {
			Stages     []string `json:"stages"`
			Mismatches int      `json:"mismatches"`
			Programs   []struct {
				Name string `json:"name"`
			} `json:"programs"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, stdout)
	}
	if out.Source != "demo" || len(out.Findings) < 6 || out.Summary.Mismatches != 0 || len(out.Summary.Programs) == 0 {
		t.Errorf("demo -json = source %q, %d findings, %d mismatches, %d programs", out.Source, len(out.Findings), out.Summary.Mismatches, len(out.Summary.Programs))
	}
}

func TestDemoText(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the demo needs the go command")
	}
	code, stdout, _ := run(t, "", "demo", "-stages", "lint", "-programs", "busyselect,workerpool")
	if code != ExitClean {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"busyselect", "✓ SD101", "workerpool", "✓ clean", "internal/lab/busyselect/main.go:36:3: SD101 busy-select:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestDemoBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "-stages", "bogus"},
		{"demo", "-stages", ""},
		{"demo", "extra"},
		{"demo", "-programs", "nosuch", "-stages", "lint"},
	} {
		code, _, stderr := run(t, "", args...)
		if code != ExitError || stderr == "" || strings.Contains(stderr, "goroutine ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// An unknown stage's message names every stage the demo has.
	if _, _, stderr := run(t, "", "demo", "-stages", "lint,bogus"); !strings.Contains(stderr, `unknown stage "bogus" in -stages (want lint, profile, trace, check)`) {
		t.Errorf("-stages lint,bogus: stderr %q does not name the stages", stderr)
	}
}

// TestDemoHelp: the default runs every stage, the check stage included,
// and the help says when the exit status is 0 on a busy machine.
func TestDemoHelp(t *testing.T) {
	code, stdout, stderr := run(t, "", "demo", "-h")
	help := stdout + stderr
	if code != ExitClean {
		t.Fatalf("demo -h: exit %d\n%s", code, help)
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, want := range []string{`(default "lint,profile,trace,check")`, "-fail level", "(default none)",
		"differs only in runs measured on a busy machine", "-html FILE"} {
		if !strings.Contains(flat, want) {
			t.Errorf("demo -h lacks %q:\n%s", want, help)
		}
	}
}
