package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
)

func init() {
	// A command that ignores its context, only in the re-executed test
	// binary: the second signal must end it at once.
	if os.Getenv(childEnv) == "1" {
		register(&command{name: "test-deaf", short: "test only", order: 1000, run: func(ctx context.Context, e *Env, args []string) int {
			e.doing("being deaf to the context")
			select {}
		}})
	}
}

// startChild runs the test binary as schedoctor with args, its stdin a
// pipe left open (so a reader blocks on it), and returns once the child
// says (doingHook, on fd 3) that it is doing what: a signal sent earlier
// would interrupt something else, or come before the handler is set.
func startChild(t *testing.T, what string, args ...string) (*exec.Cmd, *bytes.Buffer, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_DOING=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{pw}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill(); stdin.Close(); pr.Close() })
	seen := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if sc.Text() == what {
				seen <- true
				return
			}
		}
		seen <- false
	}()
	select {
	case ok := <-seen:
		if !ok {
			t.Fatalf("the child never said it was %s; stderr:\n%s", what, &stderr)
		}
	case <-time.After(60 * time.Second): // a very busy machine
		t.Fatalf("the child did not start %s within a minute", what)
	}
	return cmd, &stderr, stdin
}

func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, time.Since(start)
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("still running %v after the signal", limit)
		return 0, 0
	}
}

// TestSignalStdin: a signal ends a command blocked reading standard input,
// with a message that says so and the exit status 128+N.
func TestSignalStdin(t *testing.T) {
	for _, c := range []struct {
		args []string
		sig  syscall.Signal
		code int
		msg  string
	}{
		{[]string{"trace", "-"}, syscall.SIGINT, 130, "schedoctor trace: interrupted while reading standard input"},
		{[]string{"schedtrace", "-"}, syscall.SIGTERM, 143, "schedoctor schedtrace: interrupted while reading standard input"},
		{[]string{"profile", "-"}, syscall.SIGINT, 130, "schedoctor profile: interrupted while reading standard input"},
		{[]string{"goroutines", "-"}, syscall.SIGTERM, 143, "schedoctor goroutines: interrupted while reading standard input"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel()
			cmd, stderr, _ := startChild(t, "reading standard input", c.args...)
			m := labtest.StartMeter()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			code, took := waitExit(t, cmd, 10*time.Second)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if got := stderr.String(); !strings.Contains(got, c.msg) || strings.Contains(got, "context canceled") {
				t.Errorf("stderr %q, want %q", got, c.msg)
			}
			// The reader returns on the cancel itself, not after the grace;
			// only a machine too busy to run the child for seconds is slower.
			if took >= interruptGrace {
				what := fmt.Sprintf("took %v to exit: the reader did not see the cancel", took)
				m.SkipIfBusy(t, "%s", what)
				t.Error(what)
			}
		})
	}
}

// TestSignalProcsWindow: a signal during procs' sampling window (here a
// minute) ends it at once, not after the grace: the context reaches
// procs.InspectContext.
func TestSignalProcsWindow(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	pid := strconv.Itoa(os.Getpid())
	doing := "sampling process " + pid + "'s CPU wait over 1m0s"
	cmd, stderr, _ := startChild(t, doing, "procs", "-pid", pid, "-window", "1m")
	m := labtest.StartMeter()
	// The hook fires just before InspectContext reads the first file; the
	// window follows within milliseconds, and a signal before it must
	// stop the reads as promptly.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, took := waitExit(t, cmd, 10*time.Second+interruptGrace)
	if code != 130 || !strings.Contains(stderr.String(), "schedoctor procs: interrupted while "+doing) {
		t.Errorf("exit %d after %v; stderr:\n%s", code, took, stderr)
	}
	if took >= interruptGrace {
		what := fmt.Sprintf("took %v to exit: procs did not see the cancel (grace %v)", took, interruptGrace)
		m.SkipIfBusy(t, "%s", what)
		t.Error(what)
	}
	t.Logf("exit %d %v after SIGINT", code, took.Round(time.Millisecond))
}

// TestSignalTwice: a command that ignores the cancel is ended after the
// grace by the first signal, and at once by a second one.
func TestSignalTwice(t *testing.T) {
	t.Run("grace", func(t *testing.T) {
		t.Parallel()
		cmd, stderr, _ := startChild(t, "being deaf to the context", "test-deaf")
		cmd.Process.Signal(syscall.SIGINT)
		code, took := waitExit(t, cmd, 10*time.Second+interruptGrace)
		if code != 130 || !strings.Contains(stderr.String(), "interrupted while being deaf to the context") {
			t.Errorf("exit %d after %v; stderr %q", code, took, stderr)
		}
		if took < interruptGrace/2 {
			t.Errorf("exited after %v, before the grace of %v", took, interruptGrace)
		}
	})
	t.Run("second", func(t *testing.T) {
		t.Parallel()
		cmd, stderr, _ := startChild(t, "being deaf to the context", "test-deaf")
		m := labtest.StartMeter()
		cmd.Process.Signal(syscall.SIGTERM)
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		code, took := waitExit(t, cmd, 10*time.Second)
		if code != 143 || !strings.Contains(stderr.String(), "second SIGTERM: exiting at once") {
			t.Errorf("exit %d; stderr %q", code, stderr)
		}
		if took >= interruptGrace {
			what := fmt.Sprintf("the second signal took %v to end the run", took)
			m.SkipIfBusy(t, "%s", what)
			t.Error(what)
		}
	})
}

// TestSignalSweepChild: a signal during a sweep ends the sweep and its
// child, whatever the child does, and says what was interrupted.
func TestSignalSweepChild(t *testing.T) {
	// A sleep long and odd enough to be found by its arguments.
	const marker = "737.25"
	cmd, stderr, _ := startChild(t, "running the sweep of /bin/sleep "+marker, "sweep", "-q", "-runs", "1", "-procs", "1", "--", "/bin/sleep", marker)
	// Until the child runs: poll /proc for it.
	deadline := time.Now().Add(30 * time.Second)
	for len(findProcs(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the sweep's child never started; stderr:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	code, took := waitExit(t, cmd, 10*time.Second+interruptGrace)
	if code != 130 || !strings.Contains(stderr.String(), "schedoctor sweep: interrupted while running the sweep of /bin/sleep "+marker) {
		t.Errorf("exit %d after %v; stderr:\n%s", code, took, stderr)
	}
	// The child is killed with its process group; give the kernel a moment.
	for end := time.Now().Add(5 * time.Second); len(findProcs(marker)) > 0 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := findProcs(marker); len(pids) > 0 {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("the sweep's child survived the signal: pids %v", pids)
	}
}

// findProcs returns the pids of processes whose command line holds arg.
func findProcs(arg string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
