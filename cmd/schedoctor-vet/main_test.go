//go:build unix

package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
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
		`spin[/\\]spin\.go:14:3: .*select`,
		`spin[/\\]spin\.go:25:2: `,
	} {
		if !regexp.MustCompile(want).Match(out) {
			t.Errorf("go vet output does not match %q:\n%s", want, out)
		}
	}
}

// command runs in its own process group, killed with the context.
func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
