//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/lint"
)

// TestGoVet builds schedoctor-vet and runs go vet -vettool with it on a
// fixture module with a busy select and a Gosched spin.
func TestGoVet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs go vet")
	}
	if len(lint.Analyzers) == 0 {
		t.Fatal("lint.Analyzers is empty")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "schedoctor-vet")
	if out, err := command(ctx, ".", "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := command(ctx, filepath.Join("testdata", "mod"), "go", "vet", "-vettool="+bin, "./...")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("go vet: %v, want a non-zero exit for the diagnostics\n%s", err, out)
	}
	for _, want := range []string{
		`spin[/\\]spin\.go:14:3: SD101 .*select`, // the rule ID first: go vet prints no analyzer name
		`spin[/\\]spin\.go:25:2: SD106 `,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("go vet output does not match %q:\n%s", want, out)
		}
	}
}

// TestDocumentedVetCommand runs the shell block that
// docs/lint-integration.md gives for scripts: with schedoctor-vet on PATH
// it reports the fixture's findings (exit 1), without it it stops with
// exit 2, where $(which schedoctor-vet) would have let go vet run alone
// and exit 0.
func TestDocumentedVetCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs go vet")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "lint-integration.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := shellBlock(string(doc), "command -v schedoctor-vet")
	if block == "" {
		t.Fatal("docs/lint-integration.md has no ```sh block with `command -v schedoctor-vet`")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	goDir := filepath.Dir(goBin)
	if _, err := os.Stat(filepath.Join(goDir, "schedoctor-vet")); err == nil {
		t.Skipf("%s holds a schedoctor-vet: cannot take it off PATH", goDir)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	toolDir := t.TempDir()
	if out, err := command(ctx, ".", "go", "build", "-o", filepath.Join(toolDir, "schedoctor-vet"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(path string) (int, string) {
		cmd := command(ctx, filepath.Join("testdata", "mod"), sh, "-c", block)
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("sh: %v\n%s", err, out)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run(goDir); code != 2 || !strings.Contains(out, "not on PATH") {
		t.Errorf("without the tool on PATH: exit %d, want 2 and a message\n%s", code, out)
	}
	if code, out := run(toolDir + string(os.PathListSeparator) + goDir); code != 1 || !strings.Contains(out, "SD101 ") {
		t.Errorf("with the tool on PATH: exit %d, want 1 and SD101\n%s", code, out)
	}
}

// shellBlock is the body of the first ```sh block of a Markdown text that
// contains marker, or "".
func shellBlock(md, marker string) string {
	for _, part := range strings.Split(md, "```sh\n")[1:] {
		body, _, ok := strings.Cut(part, "```")
		if ok && strings.Contains(body, marker) {
			return body
		}
	}
	return ""
}

// command runs in its own process group, killed with the context.
func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
