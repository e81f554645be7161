package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
)

// The test binary doubles as the child: PROC_TEST_MODE selects what it does.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_MODE") {
	case "":
		os.Exit(m.Run())
	case "spin":
		d, _ := time.ParseDuration(os.Getenv("PROC_TEST_ARG"))
		var stop atomic.Bool
		for range runtime.GOMAXPROCS(0) {
			go func() {
				for !stop.Load() {
				}
			}()
		}
		time.Sleep(d)
		stop.Store(true)
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "boom: the disk is on fire")
		os.Exit(3)
	case "grandchild":
		// Start a grandchild in our process group, say its pid, then exit
		// or hang as asked.
		gc := exec.Command("sleep", "60")
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(gc.Process.Pid)
		if os.Getenv("PROC_TEST_ARG") == "hang" {
			time.Sleep(time.Hour)
		}
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "setsid":
		// Start a grandchild in a session of its own (out of our process
		// group, as a daemon does), say its pid, then exit or hang.
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "PROC_TEST_MODE=sleep")
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(gc.Process.Pid)
		if os.Getenv("PROC_TEST_ARG") == "hang" {
			time.Sleep(time.Hour)
		}
		os.Exit(0)
	case "doublefork":
		// The classic daemon: an intermediate child starts the setsid
		// grandchild and exits at once, so the grandchild is orphaned
		// while its grandparent (this child) still runs.
		mid := exec.Command(os.Args[0])
		mid.Env = append(os.Environ(), "PROC_TEST_MODE=setsid", "PROC_TEST_ARG=")
		mid.Stdout = os.Stdout
		if err := mid.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if os.Getenv("PROC_TEST_ARG") == "hang" {
			time.Sleep(time.Hour)
		}
		os.Exit(0)
	case "owner-noguard":
		// A run without a guard: only the parent-death signal can end
		// the child when this process is killed.
		p, err := Start(Spec{Path: os.Args[0], Env: append(os.Environ(), "PROC_TEST_MODE=sleep")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(p.Pid())
		time.Sleep(time.Hour)
		os.Exit(0)
	case "owner":
		// A schedoctor in miniature: a guard, then a run whose child
		// starts a setsid grandchild and hangs. It prints the child's pid,
		// then the grandchild's (from the child), then waits to be killed.
		g, err := StartGuard()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var out syncBuffer
		p, err := Start(Spec{Path: os.Args[0], Env: append(os.Environ(), "PROC_TEST_MODE=setsid", "PROC_TEST_ARG=hang"), Stdout: &out, Guard: g})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for out.Len() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		fmt.Printf("%d %d %s", g.Pid(), p.Pid(), out.String())
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(99)
}

func start(t *testing.T, mode, arg string, env ...string) (*Process, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	p, err := Start(Spec{
		Path:   os.Args[0],
		Env:    append(append(os.Environ(), "PROC_TEST_MODE="+mode, "PROC_TEST_ARG="+arg), env...),
		Stdout: &stdout,
		Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, &stdout, &stderr
}

func TestUsageOfCPUBoundChild(t *testing.T) {
	// Four spinning threads on a machine with fewer CPUs must queue; on
	// every machine they use CPU.
	m := labtest.StartMeter()
	p, _, _ := start(t, "spin", "400ms", "GOMAXPROCS=4")
	u, err := p.Wait(context.Background(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("usage: %+v", u)
	// The wall clock starts once the child is started, a few
	// milliseconds after its own clock (a CI run: 397.6ms).
	if u.Wall < 380*time.Millisecond {
		t.Errorf("wall %v < the 400ms the child slept (less 20ms for its start)", u.Wall)
	}
	if cpu := u.User + u.System; cpu < 40*time.Millisecond {
		// Other processes may take nearly all the CPUs for the run.
		m.SkipIfBusy(t, "user+sys %v for 4 spinning threads over 400ms", cpu)
		t.Errorf("user+sys %v: 4 spinning threads for 400ms must use more", cpu)
	}
	if u.Threads < 4 {
		t.Errorf("saw %d threads, want at least GOMAXPROCS=4", u.Threads)
	}
	if runtime.NumCPU() < 4 && u.RunQueueWait <= 0 {
		t.Errorf("run-queue wait %v with 4 spinning threads on %d CPUs", u.RunQueueWait, runtime.NumCPU())
	}
	if u.MaxRSS < 1<<20 {
		t.Errorf("maxrss %d bytes: a Go program uses more than 1 MiB", u.MaxRSS)
	}
	if u.Involuntary == 0 && runtime.NumCPU() < 4 {
		t.Errorf("no involuntary context switches with 4 spinners on %d CPUs", runtime.NumCPU())
	}
}

func TestFailingChild(t *testing.T) {
	p, _, stderr := start(t, "fail", "")
	_, err := p.Wait(context.Background(), time.Minute)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("err = %v, want exit status 3", err)
	}
	if !strings.Contains(stderr.String(), "disk is on fire") {
		t.Errorf("stderr = %q", stderr)
	}
}

// assertGone fails unless pid has disappeared (or is a zombie about to be
// reaped by init) within 15s (a guard on a crowded machine needs a moment
// to be scheduled; a survivor never goes).
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && len(b) > i+2 && b[i+2] == 'Z' {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d outlived the run: an orphan", pid)
}

// startGrandchild starts the child that starts a grandchild and prints its
// pid; arg "hang" keeps the child running.
func startGrandchild(t *testing.T, arg string) (*Process, *syncBuffer) {
	t.Helper()
	out := new(syncBuffer)
	p, err := Start(Spec{Path: os.Args[0], Env: append(os.Environ(), "PROC_TEST_MODE=grandchild", "PROC_TEST_ARG="+arg), Stdout: out})
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// assertGrandchildGone reads the grandchild's pid the child printed and
// asserts it is gone.
func assertGrandchildGone(t *testing.T, out *syncBuffer) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("child printed %q", out.String())
	}
	assertGone(t, pid)
}

func TestNoOrphanWhenChildExits(t *testing.T) {
	p, out := startGrandchild(t, "")
	if _, err := p.Wait(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	assertGrandchildGone(t, out)
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	p, out := startGrandchild(t, "hang")
	_, err := p.Wait(context.Background(), 500*time.Millisecond)
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.Reason, "timed out after 500ms") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	assertGrandchildGone(t, out)
}

func TestCancelKillsTheGroup(t *testing.T) {
	p, out := startGrandchild(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for out.Len() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, err := p.Wait(ctx, time.Minute)
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.Reason, "context canceled") {
		t.Fatalf("err = %v, want a cancellation", err)
	}
	assertGrandchildGone(t, out)
}

func TestStopIsNotAnError(t *testing.T) {
	p, out := startGrandchild(t, "hang")
	for out.Len() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	p.Stop(time.Second)
	u, err := p.Wait(context.Background(), time.Minute)
	if err != nil {
		t.Fatalf("a stopped server: %v", err)
	}
	if u.Signal != "terminated" {
		t.Errorf("signal = %q, want terminated", u.Signal)
	}
	assertGrandchildGone(t, out)
}

// pidsFrom parses the whitespace-separated pids a helper printed.
func pidsFrom(t *testing.T, s string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			t.Fatalf("helper printed %q", s)
		}
		pids = append(pids, pid)
	}
	return pids
}

// killOnCleanup makes sure no helper outlives the test, even when it
// fails: each pid and the group it may lead get SIGKILL.
func killOnCleanup(t *testing.T, pids ...int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// waitOutput waits (at most 20s) until out holds n whitespace-separated
// fields.
func waitOutput(t *testing.T, out *syncBuffer, n int) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(strings.Fields(out.String())) < n {
		if time.Now().After(deadline) {
			t.Fatalf("helper printed %q, want %d pids", out.String(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return out.String()
}

// TestSetsidGrandchildIsKilled: a grandchild that left the process group
// (setsid) outlives a group kill; the run's end must still kill it,
// whether the child exits first or is still running when it is stopped.
func TestSetsidGrandchildIsKilled(t *testing.T) {
	for _, tc := range []struct{ mode, arg string }{
		{"setsid", ""}, {"setsid", "hang"}, {"doublefork", ""}, {"doublefork", "hang"},
	} {
		t.Run(tc.mode+"-"+cmpOr(tc.arg, "exit"), func(t *testing.T) {
			out := new(syncBuffer)
			p, err := Start(Spec{Path: os.Args[0], Env: append(os.Environ(), "PROC_TEST_MODE="+tc.mode, "PROC_TEST_ARG="+tc.arg), Stdout: out})
			if err != nil {
				t.Fatal(err)
			}
			killOnCleanup(t, p.Pid())
			gc := pidsFrom(t, waitOutput(t, out, 1))
			killOnCleanup(t, gc...)
			if tc.arg == "hang" {
				p.Stop(time.Second)
			}
			if _, err := p.Wait(context.Background(), time.Minute); err != nil {
				t.Fatal(err)
			}
			assertGone(t, gc[0])
			var found bool
			for _, l := range p.Leftovers() {
				found = found || l.PID == gc[0]
			}
			if !found {
				t.Errorf("leftovers %v do not name the grandchild %d", p.Leftovers(), gc[0])
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestOwnerKilledLeavesNoSurvivor: a process that runs a child the way
// the sweep does (a guard, then Start) is killed with SIGKILL, so it runs
// no cleanup. The child dies of its parent-death signal and the guard
// kills the setsid grandchild.
func TestOwnerKilledLeavesNoSurvivor(t *testing.T) {
	out := new(syncBuffer)
	owner := exec.Command(os.Args[0])
	owner.Env = append(os.Environ(), "PROC_TEST_MODE=owner")
	owner.Stdout = out
	owner.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	killOnCleanup(t, owner.Process.Pid)
	pids := pidsFrom(t, waitOutput(t, out, 3))
	killOnCleanup(t, pids...)
	guard, child, grandchild := pids[0], pids[1], pids[2]
	for _, pid := range []int{guard, child, grandchild} {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil {
			t.Fatalf("pid %d not running before the kill: %v", pid, err)
		} else {
			t.Logf("before the kill: %s", bytes.TrimSpace(b[:min(len(b), 60)]))
		}
	}
	if err := owner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	assertGone(t, child)
	assertGone(t, grandchild)
	assertGone(t, guard)
}

// TestParentDeathSignal: with no guard, the direct child still dies when
// its owner is killed with SIGKILL.
func TestParentDeathSignal(t *testing.T) {
	out := new(syncBuffer)
	owner := exec.Command(os.Args[0])
	owner.Env = append(os.Environ(), "PROC_TEST_MODE=owner-noguard")
	owner.Stdout = out
	owner.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	killOnCleanup(t, owner.Process.Pid)
	child := pidsFrom(t, waitOutput(t, out, 1))
	killOnCleanup(t, child...)
	if err := owner.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	assertGone(t, child[0])
}

// TestGuardKillsOnlyItsOwn: closing one guard (a sweep ending) must not
// kill the runs of another guard in the same process.
func TestGuardKillsOnlyItsOwn(t *testing.T) {
	g1, err := StartGuard()
	if err != nil {
		t.Fatal(err)
	}
	g2, err := StartGuard()
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	p, err := Start(Spec{Path: os.Args[0], Env: append(os.Environ(), "PROC_TEST_MODE=sleep"), Guard: g2})
	if err != nil {
		t.Fatal(err)
	}
	killOnCleanup(t, p.Pid())
	if !strings.HasPrefix(p.Tag(), g2.prefix+".") || !OwnTag(p.Tag()) || OwnTag("1-abc.1") {
		t.Errorf("tag %q, guard prefix %q", p.Tag(), g2.prefix)
	}
	if err := g1.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
		t.Error("the other guard's Close killed this run")
	case <-time.After(100 * time.Millisecond):
	}
	p.Stop(time.Second)
	if _, err := p.Wait(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReadSchedstat is the sampler's cost per sample: reading every
// thread's schedstat of a process (this test process).
func BenchmarkReadSchedstat(b *testing.B) {
	p := &Process{pid: os.Getpid(), delays: map[int]time.Duration{}}
	b.ReportAllocs()
	for b.Loop() {
		p.readSchedstat()
	}
	b.ReportMetric(float64(len(p.delays)), "threads")
}

// BenchmarkLeftovers is the cost of the check before each run: one scan of
// /proc for tagged processes.
func BenchmarkLeftovers(b *testing.B) {
	for b.Loop() {
		if _, _, err := Leftovers(); err != nil {
			b.Fatal(err)
		}
	}
}
