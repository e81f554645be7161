package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/sweep/proc"
)

// The test binary doubles as the sweep's command: SWEEP_TEST_MODE selects
// what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("SWEEP_TEST_MODE") {
	case "":
		os.Exit(m.Run())
	case "exit":
	case "sleep":
		time.Sleep(time.Minute)
	case "spin":
		for end := time.Now().Add(time.Minute); time.Now().Before(end); {
		}
	case "setsid", "setsid-hang":
		// Start a grandchild in a session of its own, as a daemon does,
		// append "childpid grandchildpid" to the pid file, exit or hang.
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "SWEEP_TEST_MODE=sleep")
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f, err := os.OpenFile(os.Getenv("SWEEP_TEST_PIDFILE"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(f, "%d %d\n", os.Getpid(), gc.Process.Pid)
		f.Close()
		if os.Getenv("SWEEP_TEST_MODE") == "setsid-hang" {
			time.Sleep(time.Hour)
		}
	case "serve":
		// A server on SWEEP_TEST_ADDR ("127.0.0.1:0" picks a port); it
		// prints its address and serves until killed.
		ln, err := net.Listen("tcp", os.Getenv("SWEEP_TEST_ADDR"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr())
		_ = http.Serve(ln, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	}
	os.Exit(0)
}

// helper starts the test binary in mode, in its own process group, killed
// with its group when the test ends whatever happens.
func helper(t *testing.T, mode string, env ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	out := new(lockedBuffer)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "SWEEP_TEST_MODE="+mode), env...)
	cmd.Stdout = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd, out
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond every 10ms for at most d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || len(b) < i+3 || b[i+2] != 'Z'
}

// pidsIn reads every pid in the pid file; none when it does not exist.
func pidsIn(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q", b)
		}
		pids = append(pids, pid)
	}
	return pids
}

// killPidsOnCleanup kills, when the test ends, every pid the file names,
// so that a failing test leaves nothing behind either.
func killPidsOnCleanup(t *testing.T, file string) {
	t.Cleanup(func() {
		for _, pid := range pidsIn(t, file) {
			if running(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// assertNoSurvivor fails for every listed pid still running 15s on (a
// guard on a crowded machine needs a moment to be scheduled).
func assertNoSurvivor(t *testing.T, what string, pids []int) {
	t.Helper()
	waitFor(15*time.Second, func() bool {
		for _, pid := range pids {
			if running(pid) {
				return false
			}
		}
		return true
	})
	for _, pid := range pids {
		if running(pid) {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			t.Errorf("%s: pid %d (%q) survived", what, pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
}

// TestSetsidGrandchildDoesNotSurvive: each run's command starts a
// grandchild that calls setsid (out of the process group the sweep kills)
// and exits; no grandchild may outlive the sweep, and each run names what
// it left.
func TestSetsidGrandchildDoesNotSurvive(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	killPidsOnCleanup(t, pidfile)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Run(ctx, Options{
		Command: []string{os.Args[0]},
		Procs:   []int{1, 2},
		Runs:    2,
		Env:     append(os.Environ(), "SWEEP_TEST_MODE=setsid", "SWEEP_TEST_PIDFILE="+pidfile),
		Timeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	pids := pidsIn(t, pidfile)
	if len(pids) != 8 {
		t.Fatalf("pid file holds %v, want 4 runs × (child, grandchild)", pids)
	}
	assertNoSurvivor(t, "after the sweep", pids)
	for i, r := range s.Runs {
		gc := pids[2*i+1]
		if len(r.Leftovers) == 0 {
			t.Errorf("run %d names no leftover; the grandchild was pid %d", r.Seq, gc)
		}
	}
	var left []string
	for _, w := range s.Warnings {
		if strings.Contains(w, "the command left") {
			left = append(left, w)
		}
	}
	if len(left) != len(s.Runs) || !strings.Contains(left[0], "left 1 process(es) running when it ended, killed: pid") {
		t.Errorf("warnings %q, want one per run naming the killed grandchild", s.Warnings)
	}
}

// TestSweepOfQuietCommandWarnsOfNothing is the close negative: a command
// that leaves nothing behind, on a port nothing else holds, draws no
// warning and the load reaches it.
func TestSweepOfQuietCommandWarnsOfNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Run(ctx, Options{
		Command: []string{os.Args[0]},
		Procs:   []int{1},
		Runs:    2,
		Env:     append(os.Environ(), "SWEEP_TEST_MODE=serve", "SWEEP_TEST_ADDR="+addr),
		Timeout: 30 * time.Second,
		Load:    &LoadOptions{URL: "http://" + addr + "/", Rate: 50, Duration: 200 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		// Processes of other sweeps (another package's tests sweeping at
		// the same time) are named truly; a warning about this sweep's
		// own runs would be false.
		if strings.Contains(w, "the command left") || strings.Contains(w, "earlier runs of this sweep") || strings.Contains(w, "no guard") {
			t.Errorf("warning: %s", w)
		} else {
			t.Logf("warning about other processes: %s", w)
		}
	}
	for _, r := range s.Runs {
		if r.Load == nil || r.Load.OK == 0 || len(r.Leftovers) > 0 {
			t.Errorf("run %d: load %+v, leftovers %v", r.Seq, r.Load, r.Leftovers)
		}
	}
}

// TestPortHeldByLeftover: a server from an earlier run still holds the
// load address. The sweep must refuse before its first run and name the
// process that holds the port, rather than measure the stranger.
func TestPortHeldByLeftover(t *testing.T) {
	old, out := helper(t, "serve", "SWEEP_TEST_ADDR=127.0.0.1:0")
	if !waitFor(20*time.Second, func() bool { return strings.Contains(out.String(), "\n") }) {
		t.Fatalf("the leftover server printed %q", out.String())
	}
	addr := strings.TrimSpace(out.String())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, Options{
		Command: []string{os.Args[0]},
		Procs:   []int{1},
		Runs:    1,
		Env:     append(os.Environ(), "SWEEP_TEST_MODE=serve", "SWEEP_TEST_ADDR="+addr),
		Timeout: 30 * time.Second,
		Load:    &LoadOptions{URL: "http://" + addr + "/", Rate: 50, Duration: 200 * time.Millisecond},
	})
	var re *RunError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a refused run", err)
	}
	t.Log(err)
	want := fmt.Sprintf("%s already accepts connections, held by pid %d (", addr, old.Process.Pid)
	if re.Seq != 1 || !strings.Contains(re.Err, want) || !strings.Contains(re.Err, "would take this run's load") {
		t.Errorf("error %q, want run 1 refused with %q", re.Err, want)
	}
}

// TestLeftoverOfKilledSweepIsReported: a spinning process tagged by a
// sweep whose schedoctor is gone is named before the first run, with the
// CPU it was measured to use.
func TestLeftoverOfKilledSweepIsReported(t *testing.T) {
	// PIDs stop below 2^22, so this owner cannot be alive.
	spin, _ := helper(t, "spin", proc.TagVar+"=99999999-0dead.1")
	if !waitFor(10*time.Second, func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(spin.Process.Pid) + "/environ")
		return bytes.Contains(b, []byte(proc.TagVar))
	}) {
		t.Fatal("the tagged helper did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Run(ctx, Options{
		Command: []string{os.Args[0]}, Procs: []int{1}, Runs: 2,
		Env: append(os.Environ(), "SWEEP_TEST_MODE=exit"), Timeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var hit []string
	for _, w := range s.Warnings {
		if strings.Contains(w, fmt.Sprintf("pid %d (", spin.Process.Pid)) {
			hit = append(hit, w)
		}
	}
	if len(hit) != 1 || !strings.Contains(hit[0], "left by an earlier sweep whose schedoctor (pid 99999999) is gone") ||
		!strings.Contains(hit[0], fmt.Sprintf("kill -9 %d", spin.Process.Pid)) {
		t.Errorf("warnings %q, want one naming pid %d as a leftover to kill", s.Warnings, spin.Process.Pid)
	}
	if !running(spin.Process.Pid) {
		t.Error("another sweep's process was killed: only this sweep's own are")
	}
}

// TestKilledSchedoctorLeavesNoSurvivor builds the real schedoctor, starts
// a sweep whose command starts a setsid grandchild and hangs, kills
// schedoctor with SIGKILL mid-run and checks that nothing it started
// survives: the child (parent-death signal), the grandchild and the guard
// (the guard kills the tagged processes, then exits).
func TestKilledSchedoctorLeavesNoSurvivor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds schedoctor")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build schedoctor")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "schedoctor")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/schedoctor/schedoctor/cmd/schedoctor").CombinedOutput(); err != nil {
		t.Fatalf("building schedoctor: %v\n%s", err, out)
	}
	pidfile := filepath.Join(dir, "pids")
	killPidsOnCleanup(t, pidfile)
	sd := exec.Command(bin, "sweep", "-q", "-procs", "1", "-runs", "1", "-timeout", "2m", "--", os.Args[0])
	sd.Env = append(os.Environ(), "SWEEP_TEST_MODE=setsid-hang", "SWEEP_TEST_PIDFILE="+pidfile)
	sd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sd.Start(); err != nil {
		t.Fatal(err)
	}
	var children []int // schedoctor's: the run's child and the guard
	t.Cleanup(func() {
		_ = syscall.Kill(-sd.Process.Pid, syscall.SIGKILL)
		for _, pid := range children {
			if running(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if !waitFor(time.Minute, func() bool { return len(pidsIn(t, pidfile)) == 2 }) {
		t.Fatalf("the sweep's command did not start: pid file %v", pidsIn(t, pidfile))
	}
	children = childPIDs(sd.Process.Pid)
	if len(children) != 2 {
		t.Errorf("schedoctor has children %v, want the run's child and the guard", children)
	}
	if err := sd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = sd.Wait()
	assertNoSurvivor(t, "after kill -9 of schedoctor", append(pidsIn(t, pidfile), children...))
}

// childPIDs lists pid's children from /proc/PID/task/*/children.
func childPIDs(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestStrangersOnTheLoadAddress: a listener on the load address that is
// not the run's child or below it is a stranger; the child's own is not.
func TestStrangersOnTheLoadAddress(t *testing.T) {
	other, out := helper(t, "serve", "SWEEP_TEST_ADDR=127.0.0.1:0")
	if !waitFor(20*time.Second, func() bool { return strings.Contains(out.String(), "\n") }) {
		t.Fatalf("the other server printed %q", out.String())
	}
	otherURL := "http://" + strings.TrimSpace(out.String()) + "/"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stdout := new(lockedBuffer)
	child, err := proc.Start(proc.Spec{Path: os.Args[0], Env: append(os.Environ(), "SWEEP_TEST_MODE=serve", "SWEEP_TEST_ADDR="+addr), Stdout: stdout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		child.Stop(time.Second)
		_, _ = child.Wait(context.Background(), time.Minute)
	})
	if !waitFor(20*time.Second, func() bool { return strings.Contains(stdout.String(), "\n") }) {
		t.Fatalf("the child server printed %q", stdout.String())
	}
	if hs := strangers("http://"+addr+"/", child); len(hs) != 0 {
		t.Errorf("the child's own listener taken for a stranger: %v", hs)
	}
	hs := strangers(otherURL, child)
	if len(hs) != 1 || hs[0].PID != other.Process.Pid {
		t.Errorf("strangers on the other server's address: %v, want pid %d", hs, other.Process.Pid)
	}
}

// TestOwnLeftoverIsKilledBeforeTheNextRun: a process of an earlier run of
// this sweep still running before the next run (one the run's cleanup
// could not see) is killed, and the warning names it with its CPU use.
func TestOwnLeftoverIsKilledBeforeTheNextRun(t *testing.T) {
	left, err := proc.Start(proc.Spec{Path: os.Args[0], Env: append(os.Environ(), "SWEEP_TEST_MODE=spin")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-left.Pid(), syscall.SIGKILL) })
	s := &Summary{}
	r := &runner{s: s, reported: map[int]bool{}, tags: map[string]bool{left.Tag(): true}}
	// The spinner must be running (its environ readable) before the check.
	if !waitFor(10*time.Second, func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(left.Pid()) + "/environ")
		return bytes.Contains(b, []byte(proc.TagVar))
	}) {
		t.Fatal("the spinner did not start")
	}
	if perr := r.preflight(2, 1); perr != nil {
		t.Fatalf("preflight: %v", perr)
	}
	select {
	case <-left.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("the leftover still runs 5s after the check")
	}
	_, _ = left.Wait(context.Background(), time.Minute)
	// Only the warnings about this sweep's own leftovers count: other
	// packages' tests, run beside this one by go test ./..., may leave
	// processes of other sweeps for a moment, and those are (rightly)
	// reported too.
	want := "before run 2: killed 1 process(es) left by earlier runs of this sweep, which used "
	var own []string
	for _, w := range s.Warnings {
		if strings.Contains(w, "earlier runs of this sweep") {
			own = append(own, w)
		}
	}
	if len(own) != 1 || !strings.Contains(own[0], want) || !strings.Contains(own[0], fmt.Sprintf("pid %d (", left.Pid())) {
		t.Errorf("warnings %q, want one about this sweep naming pid %d", s.Warnings, left.Pid())
	}
	t.Log(s.Warnings)
}
