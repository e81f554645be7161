package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traceFixtures is where the exectrace fixtures live, relative to this package.
const traceFixtures = "../../exectrace/testdata/"

func runTraceCmd(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdin: bytes.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code = Run(context.Background(), e, append([]string{"trace"}, args...))
	return out.String(), errb.String(), code
}

func TestTraceGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"mutex.txt", []string{traceFixtures + "mutex.trace"}, ExitFindings},
		{"mutex.json", []string{"-json", traceFixtures + "mutex.trace"}, ExitFindings},
		{"mutex.sarif", []string{"-sarif", traceFixtures + "mutex.trace"}, ExitFindings},
		{"overprocs-cpus.txt", []string{"-cpus", "2", traceFixtures + "overprocs.trace"}, ExitFindings},
		{"workerpool.txt", []string{traceFixtures + "workerpool.trace"}, ExitClean},
		{"workerpool.json", []string{"-json", traceFixtures + "workerpool.trace"}, ExitClean},
		// issue 9's busy handler: the source (found under -src, wherever the
		// repository is) turns "compute or spin" into a spin at the select
		{"busyhandler.txt", []string{"-src", "../..", traceFixtures + "busyhandler.trace"}, ExitFindings},
		{"busyhandler.json", []string{"-json", "-src", "../..", traceFixtures + "busyhandler.trace"}, ExitFindings},
		{"busyhandler-nosrc.txt", []string{"-nosrc", traceFixtures + "busyhandler.trace"}, ExitClean},
		// the process got 0.3 cores while its Ps were busy 1.97: the host took the CPU
		{"busyhandler-process-cpu.txt", []string{"-nosrc", "-process-cpu", "300ms", traceFixtures + "busyhandler.trace"}, ExitFindings},
		{"httpserver.txt", []string{"-src", "../..", traceFixtures + "httpserver.trace"}, ExitClean},
		// issue 22: spikes of a burst every 500ms and a close waking 1,000
		{"spikes.txt", []string{traceFixtures + "spikes.trace"}, ExitFindings},
		{"spikes.json", []string{"-json", traceFixtures + "spikes.trace"}, ExitFindings},
		{"spikes-window.txt", []string{"-window", "50ms", "-spike-p99", "20ms", "-spike-runnable", "4", traceFixtures + "spikes.trace"}, ExitFindings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runTraceCmd(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			checkGolden(t, filepath.Join("trace", tc.name+".golden"), stdout)
		})
	}
}

func TestTraceStdinAndFail(t *testing.T) {
	data, err := os.ReadFile(traceFixtures + "mutex.trace")
	if err != nil {
		t.Fatal(err)
	}
	fromFile, _, _ := runTraceCmd(t, nil, "-json", traceFixtures+"mutex.trace")
	fromStdin, _, code := runTraceCmd(t, data, "-json", "-")
	if code != ExitFindings || fromStdin != fromFile {
		t.Errorf("stdin: exit %d, output differs from the file's: %v", code, fromStdin != fromFile)
	}
	if _, _, code := runTraceCmd(t, data, "-fail", "none", "-"); code != ExitClean {
		t.Errorf("-fail none: exit %d", code)
	}
	if _, _, code := runTraceCmd(t, data, "-fail", "critical", "-"); code != ExitClean {
		t.Errorf("-fail critical: exit %d", code)
	}
}

func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a trace\n"), 0o644)
	old := filepath.Join(dir, "old.trace")
	os.WriteFile(old, []byte("go 1.10 trace\x00\x00\x00\x00\x00\x00\x00\x00"), 0o644)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{text}, "notes.txt: not a readable Go execution trace"},
		{[]string{old}, "unsupported trace version go 1.10"},
		{[]string{filepath.Join(dir, "missing.trace")}, "missing.trace: no such file"},
		{[]string{}, "want one trace file"},
		// several inputs are read one after another (tracemany_test.go):
		// each missing one is named, and the status is 2
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}, "b: no such file"},
		{[]string{"-cpus", "-1", text}, "-cpus -1"},
		{[]string{"-process-cpu", "-1s", text}, "-process-cpu -1s"},
		{[]string{"-json", "-sarif", text}, "cannot be used together"},
		{[]string{"-window", "1ms", text}, "-window 1ms: want 10ms or more"},
		{[]string{"-spike-p99", "0s", text}, "-spike-p99 0s"},
		{[]string{"-spike-runnable", "-2", text}, "-spike-runnable -2"},
	} {
		_, stderr, code := runTraceCmd(t, nil, tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
			t.Errorf("%v: stack dump: %s", tc.args, stderr)
		}
	}
}

// A -src directory that does not exist is a usage error (the flag's
// message, then the usage text).
func TestTraceBadSrc(t *testing.T) {
	_, stderr, code := runTraceCmd(t, nil, "-src", filepath.Join(t.TempDir(), "nowhere"), traceFixtures+"busyhandler.trace")
	if code != ExitError || !strings.Contains(stderr, "nowhere: no such file or directory") || strings.Contains(stderr, "panic") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestTraceTruncated(t *testing.T) {
	data, err := os.ReadFile(traceFixtures + "workerpool.trace")
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)*97/100]
	stdout, stderr, code := runTraceCmd(t, cut, "-json", "-")
	if code == ExitError {
		t.Fatalf("truncated trace: exit 2: %s", stderr)
	}
	if !strings.Contains(stderr, "warning: stdin: trace breaks in generation 2") {
		t.Errorf("stderr = %q, want the warning saying where", stderr)
	}
	if !strings.Contains(stdout, `"truncated": {`) {
		t.Errorf("JSON lacks the truncation")
	}
	// Broken in its first generation: nothing analysed, exit 2.
	_, stderr, code = runTraceCmd(t, data[:len(data)/3], "-")
	if code != ExitError || !strings.Contains(stderr, "broken before its first complete generation") {
		t.Errorf("cut in generation 1: exit %d, %q", code, stderr)
	}
}

// TestTraceHTMLTimeline: the P timeline is followed only when the report is
// drawn (-html): a plain read leaves it out for speed, but the HTML report
// of a trace must still have it.
func TestTraceHTMLTimeline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	code, _, stderr := run(t, "", "trace", "-fail", "none", "-html", out, traceFixtures+"pingpong.trace")
	if code != ExitClean {
		t.Fatalf("trace -html: code %d, stderr %q", code, stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-kind="timeline"`, `data-kind="histogram"`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the trace's HTML report lacks %s", want)
		}
	}
}

// TestHTMLNotAnInput: -html never replaces an input named beside it, by
// its own name or through a symbolic link; the input is left as it was.
func TestHTMLNotAnInput(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(profileData("busyselect.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "cpu.pb.gz")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.html")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, link} {
		code, _, stderr := run(t, "", "profile", "-html", out, in)
		if code != ExitError || !strings.Contains(stderr, "is an input of this run") {
			t.Errorf("profile -html %s %s: code %d, stderr %q; want a usage error", out, in, code, stderr)
		}
	}
	if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the input changed (err %v)", err)
	}
	// Another file is written as before.
	if code, _, stderr := run(t, "", "profile", "-fail", "none", "-html", filepath.Join(dir, "r.html"), in); code != ExitClean {
		t.Errorf("profile -html r.html: code %d, stderr %q", code, stderr)
	}
}
