package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// manyLine is one line of `trace -json A B C`.
type manyLine struct {
	Source   string `json:"source"`
	File     string `json:"file"`
	Error    string `json:"error"`
	Findings []struct {
		Rule string `json:"rule"`
	} `json:"findings"`
}

// parseLines decodes NDJSON: every line one object, nothing else.
func parseLines(t *testing.T, stdout string) []manyLine {
	t.Helper()
	var out []manyLine
	for i, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var m manyLine
		if err := json.Unmarshal([]byte(l), &m); err != nil || !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not one JSON object: %v\n%s", i+1, err, l)
		}
		if m.Source != "trace" || m.File == "" {
			t.Errorf("line %d: source %q, file %q: want trace and the file", i+1, m.Source, m.File)
		}
		if !strings.HasPrefix(l, `{"source":"trace","file":`) {
			t.Errorf("line %d does not start with source, then file: %.60s", i+1, l)
		}
		out = append(out, m)
	}
	return out
}

func ruleIDs(l manyLine) []string {
	var ids []string
	for _, f := range l.Findings {
		ids = append(ids, f.Rule)
	}
	return ids
}

// TestTraceManyJSON: three traces, the middle one broken, give three
// lines in the order given: each good trace's line is the object `trace
// -json` prints for it alone plus "file"; the broken one's is its error,
// and the run goes on to the third. The exit status is 2 (a bad input),
// and the broken trace is named on stderr too. Fails on the old command,
// which refused more than one argument.
func TestTraceManyJSON(t *testing.T) {
	mutex, corrupt, pool := traceFixtures+"mutex.trace", "testdata/trace/corrupt.trace", traceFixtures+"workerpool.trace"
	stdout, stderr, code := runTraceCmd(t, nil, "-json", "-nosrc", mutex, corrupt, pool)
	if code != ExitError {
		t.Errorf("exit %d, want 2 (one input broken); stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "corrupt.trace: reading the trace: broken before its first complete generation") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want the broken trace named, once", stderr)
	}
	lines := parseLines(t, stdout)
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), stdout)
	}
	for i, want := range []string{mutex, corrupt, pool} {
		if lines[i].File != want {
			t.Errorf("line %d: file %q, want %q", i+1, lines[i].File, want)
		}
	}
	if lines[1].Error == "" || lines[1].Findings != nil || !strings.Contains(lines[1].Error, "broken before its first complete generation") {
		t.Errorf("broken trace's line = %+v, want its error and no findings", lines[1])
	}
	if ids := ruleIDs(lines[0]); !slices.Contains(ids, "SD309") {
		t.Errorf("mutex.trace: findings %v, want SD309", ids)
	}
	if ids := ruleIDs(lines[2]); !slices.Equal(ids, []string{"SD301"}) {
		t.Errorf("workerpool.trace: findings %v, want SD301", ids)
	}
	// Each good line is what -json prints for that trace alone, plus file.
	got := strings.Split(stdout, "\n")
	for i, name := range []string{mutex, "", pool} {
		if name == "" {
			continue
		}
		alone, _, _ := runTraceCmd(t, nil, "-json", "-nosrc", name)
		var a, l map[string]any
		if err := json.Unmarshal([]byte(alone), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got[i]), &l); err != nil {
			t.Fatal(err)
		}
		delete(l, "file")
		if !reflect.DeepEqual(a, l) {
			t.Errorf("line %d differs from `trace -json %s`", i+1, name)
		}
	}
	checkGolden(t, filepath.Join("trace", "many.ndjson.golden"), stdout)

	// Without the broken one: the worst over the reports, per -fail.
	if _, _, code := runTraceCmd(t, nil, "-json", "-nosrc", mutex, pool); code != ExitFindings {
		t.Errorf("mutex and workerpool: exit %d, want 1 (mutex has a warning)", code)
	}
	if _, _, code := runTraceCmd(t, nil, "-json", "-nosrc", "-fail", "critical", mutex, pool); code != ExitClean {
		t.Errorf("-fail critical: exit %d, want 0", code)
	}
	if _, _, code := runTraceCmd(t, nil, "-json", "-nosrc", "-fail", "none", mutex, corrupt); code != ExitError {
		t.Errorf("-fail none with a broken input: exit %d, want 2", code)
	}
}

// TestTraceManyText: without -json the reports follow one another, each
// under a header naming its file; stdin is one of the inputs.
func TestTraceManyText(t *testing.T) {
	data, err := os.ReadFile(traceFixtures + "mutex.trace")
	if err != nil {
		t.Fatal(err)
	}
	pool := traceFixtures + "workerpool.trace"
	stdout, stderr, code := runTraceCmd(t, data, "-nosrc", "-", pool)
	if code != ExitFindings || stderr != "" {
		t.Errorf("exit %d, stderr %q; want 1 and nothing", code, stderr)
	}
	alone, _, _ := runTraceCmd(t, nil, "-nosrc", pool)
	fromStdin, _, _ := runTraceCmd(t, data, "-nosrc", "-")
	want := "==> stdin <==\n" + fromStdin + "\n==> " + pool + " <==\n" + alone
	if stdout != want {
		t.Errorf("text of two traces:\n%s\nwant the two reports under their headers:\n%s", stdout, want)
	}
}

// TestTraceManyDir: a directory stands for its files, by name. A symbolic
// link in it is not followed (even to a good trace beside it): its line
// says so and the run exits 2; a subdirectory is skipped with a warning,
// a hidden file silently.
func TestTraceManyDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"mutex.trace", "workerpool.trace"} {
		data, err := os.ReadFile(traceFixtures + n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(n, ".trace")), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, ".DS_Store"), []byte("junk"), 0o644)
	os.Mkdir(filepath.Join(dir, "old"), 0o755)

	stdout, stderr, code := runTraceCmd(t, nil, "-json", "-nosrc", dir)
	if code != ExitFindings || !strings.Contains(stderr, "old: a directory, skipped") {
		t.Errorf("exit %d, stderr %q: want 1 and the subdirectory named", code, stderr)
	}
	lines := parseLines(t, stdout)
	if len(lines) != 2 || lines[0].File != filepath.Join(dir, "mutex") || lines[1].File != filepath.Join(dir, "workerpool") ||
		lines[0].Error != "" || lines[1].Error != "" {
		t.Fatalf("lines %+v, want mutex then workerpool, read", lines)
	}
	if ids := ruleIDs(lines[1]); !slices.Equal(ids, []string{"SD301"}) {
		t.Errorf("workerpool: findings %v, want SD301", ids)
	}

	// A link to a trace in the same directory, and one out of it.
	if err := os.Symlink("mutex", filepath.Join(dir, "a-link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	outside := filepath.Join(t.TempDir(), "outside.trace")
	data, _ := os.ReadFile(traceFixtures + "workerpool.trace")
	os.WriteFile(outside, data, 0o644)
	os.Symlink(outside, filepath.Join(dir, "b-link"))
	stdout, stderr, code = runTraceCmd(t, nil, "-json", "-nosrc", dir)
	if code != ExitError || !strings.Contains(stderr, "a-link: a symbolic link in a directory is not followed") ||
		!strings.Contains(stderr, "b-link: a symbolic link in a directory is not followed") {
		t.Errorf("exit %d, stderr %q: want 2 and both links refused", code, stderr)
	}
	lines = parseLines(t, stdout)
	if len(lines) != 4 || !strings.Contains(lines[0].Error, "symbolic link") || !strings.Contains(lines[1].Error, "symbolic link") ||
		lines[0].Findings != nil || lines[2].File != filepath.Join(dir, "mutex") || len(lines[2].Findings) == 0 {
		t.Errorf("lines %+v: want the two links refused, then the two traces read", lines)
	}
	// The link's target named on the command line is read.
	if _, stderr, code := runTraceCmd(t, nil, "-json", "-nosrc", filepath.Join(dir, "b-link")); code != ExitClean {
		t.Errorf("the link named on the command line: exit %d, %s", code, stderr)
	}
}

func TestTraceManyRefused(t *testing.T) {
	empty := t.TempDir()
	mutex := traceFixtures + "mutex.trace"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-sarif", mutex, mutex}, "-sarif writes the log of one trace"},
		{[]string{"-html", filepath.Join(t.TempDir(), "r.html"), mutex, mutex}, "-html writes the report of one trace"},
		{[]string{"-", mutex, "-"}, "named twice"},
		{[]string{"-json", empty}, "no trace in the directory"},
		{[]string{"-json", mutex, filepath.Join(empty, "missing.trace")}, "missing.trace: no such file"},
	} {
		stdout, stderr, code := runTraceCmd(t, nil, tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(tc.want, "one trace") && stdout != "" {
			t.Errorf("%v: wrote %q before refusing", tc.args, stdout)
		}
	}
	// An input that is not a trace is a line of its own, as it is refused
	// for one.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a trace\n"), 0o644)
	stdout, _, code := runTraceCmd(t, nil, "-json", dir)
	if code != ExitError || !strings.Contains(stdout, `notes.txt: not a readable Go execution trace`) {
		t.Errorf("exit %d, stdout %q: want 2 and the text file's line", code, stdout)
	}
}
