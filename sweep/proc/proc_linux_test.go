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
	p, _, _ := start(t, "spin", "400ms", "GOMAXPROCS=4")
	u, err := p.Wait(context.Background(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("usage: %+v", u)
	if u.Wall < 400*time.Millisecond {
		t.Errorf("wall %v < the 400ms the child slept", u.Wall)
	}
	// The machine is shared: other processes may take most of the CPUs,
	// but not 90% of them for the whole run.
	if cpu := u.User + u.System; cpu < 40*time.Millisecond {
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
// reaped by init) within a few seconds.
func assertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
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
