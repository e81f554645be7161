//go:build unix

package schedtrace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
)

// TestLabEndToEnd runs lab programs with GODEBUG=schedtrace=50 for a second,
// parses their stderr and checks the diagnosis: the fan-out backlog (SD302)
// and the Gosched spin (SD314) are found, pointing at a SCHED line of the
// capture, and the healthy worker pool gets nothing at warning or above.
// The machine may be shared, so the assertions are the robust ones: the
// anti-patterns are orders of magnitude past the thresholds.
func TestLabEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs lab programs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bins := labtest.Build(t, "fanout", "gosched", "workerpool")
	for _, tc := range []struct {
		name string
		want string // "" for a healthy control
	}{
		{"fanout", "SD302"},
		{"gosched", "SD314"},
		{"workerpool", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What a busy machine can make wrong fails on a quiet machine
			// and skips, with the measured load, on a busy one.
			m := labtest.StartMeter()
			var problems []string
			defer func() {
				if len(problems) > 0 {
					m.SkipIfBusy(t, "%s", strings.Join(problems, "; "))
					for _, p := range problems {
						t.Error(p)
					}
				}
			}()
			stderr := runLab(ctx, t, bins[tc.name])
			file := tc.name + ".stderr"
			tr, err := Read(context.Background(), file, bytes.NewReader(stderr), ReadOptions{})
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if tr.Stats.SchedLines < 10 {
				// sysmon prints them: a starved process prints fewer.
				t.Logf("capture:\n%s", stderr)
				problems = append(problems, fmt.Sprintf("only %d SCHED lines in a second at 50ms", tr.Stats.SchedLines))
				return
			}
			fs, _ := analyze(tr)
			lines := strings.Split(string(stderr), "\n")
			var got []string
			for _, f := range fs {
				got = append(got, f.Rule)
				if tc.want == "" && f.Severity >= finding.Warning {
					problems = append(problems, fmt.Sprintf("healthy control: %s %s", f.Rule, f.Text()))
				}
				if f.Rule != tc.want {
					continue
				}
				l := f.Locations[0]
				if l.File != file || l.Line < 1 || l.Line > len(lines) || !strings.HasPrefix(lines[l.Line-1], "SCHED ") {
					t.Errorf("%s at %s:%d, want a SCHED line of %s", f.Rule, l.File, l.Line, file)
				}
			}
			if tc.want != "" && !strings.Contains(strings.Join(got, ","), tc.want) {
				t.Logf("capture:\n%s", stderr)
				problems = append(problems, fmt.Sprintf("rules %v, want %s", got, tc.want))
			}
		})
	}
}

// runLab runs a lab binary for a second with the scheduler trace on, in its
// own process group so that a timeout kills everything it started.
func runLab(ctx context.Context, t *testing.T, bin string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-duration", "1s")
	cmd.Env = append(os.Environ(), "GODEBUG=schedtrace=50")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	return stderr.Bytes()
}
