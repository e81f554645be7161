package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// procsFixtures are the fixture trees of package procs.
// Relative, as the tests run in this directory: an absolute path would make
// the goldens depend on where the checkout is (the target line wraps by its
// length).
var procsFixtures = filepath.Join("..", "..", "procs", "testdata", "fixtures")

// runProcsCmd runs schedoctor procs with args, with the fixtures' absolute
// path replaced by $FIXTURES in the output.
func runProcsCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), &Env{Stdout: &out, Stderr: &errb}, append([]string{"procs"}, args...))
	strip := func(s string) string { return strings.ReplaceAll(s, procsFixtures, "$FIXTURES") }
	return code, strip(out.String()), strip(errb.String())
}

// checkProcsGolden compares got with testdata/procs/name through the
// package's golden helper (lint_test.go), which -update rewrites.
func checkProcsGolden(t *testing.T, name, got string) {
	t.Helper()
	checkGolden(t, filepath.Join("procs", name), got)
}

// TestProcsGolden renders every fixture tree as text and JSON.
func TestProcsGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(procsFixtures, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures under %s: %v", procsFixtures, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runProcsCmd(t, "-sysroot", dir, "-pid", "4242")
			wantCode, wantStderr := ExitClean, ""
			if strings.Contains(stdout, "\nWARNING\n") || strings.Contains(stdout, "\nCRITICAL\n") {
				wantCode = ExitFindings
			} else if strings.Contains(stdout, "could not decide") {
				// Partial input without findings is not a clean bill.
				wantCode, wantStderr = ExitError, "input incomplete: could not decide"
			}
			if wantStderr == "" && stderr != "" || !strings.Contains(stderr, wantStderr) {
				t.Errorf("stderr: %q, want %q", stderr, wantStderr)
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			checkProcsGolden(t, name+".txt", stdout)

			code, stdout, _ = runProcsCmd(t, "-json", "-sysroot", dir, "-pid", "4242")
			if code != wantCode {
				t.Errorf("-json: exit %d, want %d", code, wantCode)
			}
			var v struct {
				Source   string            `json:"source"`
				Findings []json.RawMessage `json:"findings"`
				Summary  map[string]any    `json:"summary"`
			}
			if err := json.Unmarshal([]byte(stdout), &v); err != nil || v.Source != "procs" || v.Summary["gomaxprocs"] == nil {
				t.Errorf("-json output is not the contract's object (%v): %.200s", err, stdout)
			}
			checkProcsGolden(t, name+".json", stdout)
		})
	}
}

func TestProcsErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no such process", []string{"-sysroot", filepath.Join(procsFixtures, "bare-host"), "-pid", "777"}, ExitError,
			"schedoctor procs: process 777 does not exist (/proc/777: no such file or directory)"},
		{"nothing to analyse", []string{"-sysroot", empty}, ExitError, "nothing could be analysed under " + empty},
		{"no such sysroot", []string{"-sysroot", filepath.Join(empty, "nope")}, ExitError, "sysroot " + filepath.Join(empty, "nope") + " is not a directory"},
		{"negative pid", []string{"-pid", "-3"}, ExitError, "-pid -3: want a process ID"},
		{"stray argument", []string{"1234"}, ExitError, "unexpected arguments: [1234]"},
		{"missing binary", []string{"-binary", filepath.Join(empty, "server")}, ExitError, "-binary: stat " + filepath.Join(empty, "server") + ": no such file or directory"},
		{"binary is a directory", []string{"-binary", empty}, ExitError, "-binary " + empty + ": not a regular file"},
		{"-fail none", []string{"-fail", "none", "-sysroot", filepath.Join(procsFixtures, "v1-quota"), "-pid", "4242"}, ExitClean, ""},
		{"-fail critical with a critical finding", []string{"-fail", "critical", "-sysroot", filepath.Join(procsFixtures, "v1-quota"), "-pid", "4242"}, ExitFindings, ""},
		{"-fail critical with warnings only", []string{"-fail", "critical", "-sysroot", filepath.Join(procsFixtures, "no-limit"), "-pid", "4242"}, ExitClean, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runProcsCmd(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.want)
			}
		})
	}
}

// TestProcsNonGoBinary: a binary that is not Go is a warning in the summary,
// and the rest is still analysed (exit by the findings, not 2).
func TestProcsNonGoBinary(t *testing.T) {
	script := filepath.Join(t.TempDir(), "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec sleep 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// -wide: the phrases looked for are not split by the 80-column wrap.
	code, stdout, stderr := runProcsCmd(t, "-wide", "-sysroot", filepath.Join(procsFixtures, "v2-nested"), "-pid", "4242", "-binary", script)
	if code != ExitFindings || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"not a Go binary (no Go build information)", "GOMAXPROCS   does not apply", "SD405 parent-limit-tighter"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "SD401") {
		t.Errorf("SD401 for a program that is not Go:\n%s", stdout)
	}
}
