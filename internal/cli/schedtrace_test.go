package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// schedtraceFixtures is the schedtrace package's testdata, absolute: runIn
// changes directory into it so that file names in the output are short.
var schedtraceFixtures, _ = filepath.Abs(filepath.Join("..", "..", "schedtrace", "testdata"))

// TestSchedtraceGolden runs every fixture in text and JSON and compares the
// exit code, stderr and stdout with testdata/schedtrace/<fixture>.<format>.
func TestSchedtraceGolden(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join(schedtraceFixtures, "*.txt"))
	if err != nil || len(fixtures) < 10 {
		t.Fatalf("fixtures: %v, %v", fixtures, err)
	}
	for _, fx := range fixtures {
		name := filepath.Base(fx)
		for _, format := range []string{"text", "json"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				args := []string{"schedtrace", name}
				if format == "json" {
					args = []string{"schedtrace", "-json", name}
				}
				code, stdout, stderr := runIn(t, schedtraceFixtures, args...)
				got := fmt.Sprintf("exit %d\n--- stderr\n%s--- stdout\n%s", code, stderr, stdout)
				// checkGolden (lint_test.go) reads under testdata/lint; the
				// schedtrace goldens are its sibling testdata/schedtrace.
				checkGolden(t, filepath.Join("schedtrace", strings.TrimSuffix(name, ".txt")+".golden."+format), got)
				if format == "json" && code != ExitError {
					var out struct {
						Source   string            `json:"source"`
						Findings []finding.Finding `json:"findings"`
						Summary  map[string]any    `json:"summary"`
					}
					if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Source != "schedtrace" || out.Summary["ticks"] == nil {
						t.Errorf("JSON contract: %v, source %q, summary %v", err, out.Source, out.Summary)
					}
				}
			})
		}
	}
}

// TestSchedtraceFindings pins which rule each real capture gives, with its
// location, evidence and fix: positives and the near misses beside them.
func TestSchedtraceFindings(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string // rules, in finding.Sort order
		code    int
	}{
		{"fanout.txt", []string{"SD302"}, ExitFindings},
		{"fanout-detail.txt", []string{"SD302"}, ExitFindings},
		{"fanout-fixed.txt", nil, ExitClean},
		// info: no schedticks, so how long queued goroutines waited is unknown
		{"go120-backlog.txt", []string{"SD302"}, ExitClean},
		// info: about 4 queued per P at 735µs per start is a 3ms wait, under a time slice
		{"interleaved.txt", []string{"SD302"}, ExitClean},
		{"gosched.txt", []string{"SD314"}, ExitFindings},
		{"gosched-fixed.txt", nil, ExitClean},
		{"sleeppoll.txt", []string{"SD313"}, ExitClean}, // info at about 4,000/s
		{"sleeppoll-fixed.txt", []string{"SD313"}, ExitClean},
		{"idle-queued.txt", []string{"SD311"}, ExitFindings},
		{"idle-queued-rare.txt", nil, ExitClean},
		{"threads-locked.txt", []string{"SD312"}, ExitFindings},
		{"threads-plateau.txt", nil, ExitClean},
		{"pingpong.txt", []string{"SD310"}, ExitClean}, // info: the idle P spins at every handoff
		{"workerpool.txt", nil, ExitClean},
		// healthy loopback echo servers: as many starts per second as a sleep-poller, info only
		{"echo-server-9600.txt", []string{"SD313"}, ExitClean},
		{"echo-server-29k.txt", []string{"SD313"}, ExitClean},
		{"overprocs-gomaxprocs8.txt", nil, ExitClean},
		{"gorun-workerpool.txt", nil, ExitClean},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			code, stdout, stderr := runIn(t, schedtraceFixtures, "schedtrace", "-json", tc.fixture)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			var out struct {
				Findings []finding.Finding `json:"findings"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range out.Findings {
				got = append(got, f.Rule)
				if len(f.Locations) != 1 || f.Locations[0].File != tc.fixture || f.Locations[0].Line < 1 {
					t.Errorf("%s: locations %v, want %s:line", f.Rule, f.Locations, tc.fixture)
				}
				if len(f.Evidence) < 3 || f.Fix == "" || f.Text() == "" {
					t.Errorf("%s: evidence %v, fix %q", f.Rule, f.Evidence, f.Fix)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("rules %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSchedtraceStdinAndErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(schedtraceFixtures, "fanout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, string(data), "schedtrace", "-")
	if code != ExitFindings || !strings.Contains(stdout, "at stdin:") {
		t.Errorf("stdin: exit %d, stdout %s", code, stdout)
	}
	if code, _, _ := run(t, string(data), "schedtrace", "-fail", "critical", "-"); code != ExitClean {
		t.Errorf("-fail critical: exit %d, want 0", code)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"schedtrace"}, "want one FILE"},
		{[]string{"schedtrace", "a", "b"}, "want one FILE"},
		{[]string{"schedtrace", "-sarif", "x"}, "flag provided but not defined: -sarif"},
		{[]string{"schedtrace", "/nonexistent/sched.txt"}, "/nonexistent/sched.txt: no such file"},
	} {
		code, _, stderr := run(t, "", tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := run(t, "", "schedtrace", "-")
	if code != ExitError || !strings.Contains(stderr, "stdin is empty") {
		t.Errorf("empty stdin: exit %d, stderr %q", code, stderr)
	}
}
