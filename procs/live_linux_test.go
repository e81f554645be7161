package procs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/procs/cgroup"
)

// sleeperSrc is the child of the live tests: a Go program that prints
// "ready" once its runtime is up and sleeps until killed (at most a minute).
// It is built, not run from the test binary, because go test strips test
// binaries of the symbol table the live GOMAXPROCS is read through.
// With SLEEPER_GOMAXPROCS=N it first calls runtime.GOMAXPROCS(N), as a
// library would.
const sleeperSrc = `package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

func main() {
	if n, err := strconv.Atoi(os.Getenv("SLEEPER_GOMAXPROCS")); err == nil {
		runtime.GOMAXPROCS(n)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
}
`

var sleeper struct {
	once sync.Once
	path string
	err  error
}

// sleeperBinary builds the child once per test run.
func sleeperBinary(t *testing.T) string {
	t.Helper()
	sleeper.once.Do(func() {
		dir, err := os.MkdirTemp("", "schedoctor-procs-sleeper")
		if err != nil {
			sleeper.err = err
			return
		}
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module sleeper\n\ngo 1.26\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte(sleeperSrc), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", "sleeper", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			sleeper.err = fmt.Errorf("building the sleeper: %v\n%s", err, out)
			return
		}
		sleeper.path = filepath.Join(dir, "sleeper")
	})
	if sleeper.err != nil {
		t.Fatal(sleeper.err)
	}
	return sleeper.path
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	code := m.Run()
	if sleeper.path != "" {
		os.RemoveAll(filepath.Dir(sleeper.path))
	}
	os.Exit(code)
}

// startChild starts the child with extra environment; prefix, if set, is a
// shell command run before exec (to enter a cgroup). It waits for "ready"
// and kills the child's process group when the test ends.
func startChild(t *testing.T, prefix string, env ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	args := []string{sleeperBinary(t)}
	var cmd *exec.Cmd
	if prefix != "" {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", prefix+` && exec "$@"`, "sh")
		cmd.Args = append(cmd.Args, args...)
	} else {
		cmd = exec.CommandContext(ctx, args[0], args[1:]...)
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	t.Cleanup(cancel) // after the child is killed and waited for
	sc := bufio.NewScanner(labtest.Start(t, cmd))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "ready" {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd.Process.Pid
		}
	}
	t.Fatalf("child never became ready: %v", sc.Err())
	return 0
}

func findingOf(fs []finding.Finding, rule string) *finding.Finding {
	for i := range fs {
		if fs[i].Rule == rule {
			return &fs[i]
		}
	}
	return nil
}

// TestLiveGOMAXPROCS8 runs a Go child with GOMAXPROCS=8 on this machine and
// expects SD401 with the live value read from the child's memory.
func TestLiveGOMAXPROCS8(t *testing.T) {
	list, err := schedAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) >= 8 {
		t.Skipf("this machine has %d CPUs: GOMAXPROCS=8 is not above them", len(list))
	}
	pid := startChild(t, "", "GOMAXPROCS=8")
	s, err := Inspect(Options{PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	g := s.GOMAXPROCS
	if g.Value != 8 || g.Computed != 8 || g.Rule != "env" {
		t.Errorf("GOMAXPROCS %+v, want 8 from the environment", g)
	}
	if g.Origin != "live" {
		t.Errorf("origin %q, want live (error: %s)", g.Origin, g.LiveError)
	}
	if s.Binary == nil || !s.Binary.IsGo || s.CPUs.AffinitySource != "sched_getaffinity" {
		t.Errorf("binary %+v, affinity from %q", s.Binary, s.CPUs.AffinitySource)
	}
	f := findingOf(Findings(s), "SD401")
	if f == nil {
		t.Fatalf("no SD401; findings %v", ruleIDs(Findings(s)))
	}
	if !strings.Contains(f.Text(), "GOMAXPROCS 8 is above") || !slices.ContainsFunc(f.Locations, func(l finding.Location) bool { return l.File == fmt.Sprintf("/proc/%d/environ", pid) }) {
		t.Errorf("SD401 = %s at %v", f.Text(), f.Locations)
	}

	// The same child without the variable: no SD401, and the live value
	// agrees with the computed default.
	pid = startChild(t, "")
	s, err = Inspect(Options{PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	if f := findingOf(Findings(s), "SD401"); f != nil {
		t.Errorf("unexpected SD401 without GOMAXPROCS: %s", f.Text())
	}
	if s.GOMAXPROCS.Origin != "live" || s.GOMAXPROCS.Live != s.GOMAXPROCS.Computed {
		t.Errorf("live %d, computed %d (%s)", s.GOMAXPROCS.Live, s.GOMAXPROCS.Computed, s.GOMAXPROCS.Reason)
	}
}

// TestLiveGOMAXPROCSCall: a program that calls runtime.GOMAXPROCS(1) has no
// trace of it in its environment or build information; only the live value
// shows it.
func TestLiveGOMAXPROCSCall(t *testing.T) {
	list, err := schedAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 2 {
		t.Skip("one CPU: GOMAXPROCS 1 is not below it")
	}
	pid := startChild(t, "", "SLEEPER_GOMAXPROCS=1")
	s, err := Inspect(Options{PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	g := s.GOMAXPROCS
	if g.Origin != "live" || g.Value != 1 || g.Rule != "call" || g.Computed < 2 {
		t.Fatalf("GOMAXPROCS %+v, want live 1 by a call", g)
	}
	f := findingOf(Findings(s), "SD402")
	if f == nil || !strings.Contains(f.Text(), "runtime.GOMAXPROCS") {
		t.Errorf("SD402 = %+v", f)
	}
}

// TestLiveCgroupQuota creates a cgroup with a 0.5-CPU quota (v2 cpu.max
// where cgroup2 has the cpu controller, else v1 cpu.cfs_quota_us), starts
// children in it, and checks that the quota is seen and judged.
func TestLiveCgroupQuota(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("creating a cgroup needs root")
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skip(err)
	}
	mounts, err := cgroup.ParseMountinfo(data)
	if err != nil {
		t.Fatal(err)
	}
	dir, quotaFile, reasons := makeQuotaCgroup(t, mounts)
	if dir == "" {
		t.Skipf("no writable cgroup with the cpu controller: %s", strings.Join(reasons, "; "))
	}
	enter := fmt.Sprintf("echo $$ > %s/cgroup.procs", dir)

	pid := startChild(t, enter)
	s, err := Inspect(Options{PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cgroup.Levels) == 0 || s.Cgroup.Levels[0].QuotaFile != quotaFile || s.Cgroup.Levels[0].LimitCPUs != 0.5 {
		t.Fatalf("leaf level %+v, want 0.5 CPU from %s", s.Cgroup.Levels, quotaFile)
	}
	if s.CPUs.Available != 0.5 || s.CPUs.AvailableFile != quotaFile {
		t.Errorf("available %v from %s", s.CPUs.Available, s.CPUs.AvailableFile)
	}
	// Go 1.26 with go 1.26: the runtime's default is max(2, ceil(0.5)) = 2
	// (or the affinity count if lower), which is not reported.
	want := min(2, s.CPUs.Affinity)
	if s.GOMAXPROCS.Computed != want || s.GOMAXPROCS.Origin != "live" || s.GOMAXPROCS.Live != want {
		t.Errorf("GOMAXPROCS %+v, want %d", s.GOMAXPROCS, want)
	}
	if f := findingOf(Findings(s), "SD401"); f != nil {
		t.Errorf("SD401 for the runtime's own minimum: %s", f.Text())
	}

	pid = startChild(t, enter, "GOMAXPROCS=8")
	s, err = Inspect(Options{PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	f := findingOf(Findings(s), "SD401")
	if f == nil || f.Locations[0].File != quotaFile || f.Severity != finding.Critical {
		t.Fatalf("SD401 = %+v, want a critical finding at %s", f, quotaFile)
	}
}

// makeQuotaCgroup creates a cgroup limited to 0.5 CPU and removes it when
// the test ends. It returns the directory and the quota file, or "" and why
// each hierarchy could not be used.
func makeQuotaCgroup(t *testing.T, mounts []cgroup.Mount) (dir, quotaFile string, reasons []string) {
	name := fmt.Sprintf("schedoctor-procs-test-%d", os.Getpid())
	for _, m := range mounts {
		var files [][2]string
		switch {
		case m.FSType == "cgroup2":
			ctrl, _ := os.ReadFile(filepath.Join(m.MountPoint, "cgroup.controllers"))
			if !slices.Contains(strings.Fields(string(ctrl)), "cpu") {
				reasons = append(reasons, fmt.Sprintf("cgroup2 at %s has no cpu controller (controllers: %q)", m.MountPoint, strings.TrimSpace(string(ctrl))))
				continue
			}
			sub, _ := os.ReadFile(filepath.Join(m.MountPoint, "cgroup.subtree_control"))
			if slices.Contains(strings.Fields(string(sub)), "cpu") {
				// Already enabled for children: nothing to change.
			} else if err := os.WriteFile(filepath.Join(m.MountPoint, "cgroup.subtree_control"), []byte("+cpu"), 0); err != nil {
				reasons = append(reasons, fmt.Sprintf("enabling cpu in %s: %v", m.MountPoint, err))
				continue
			}
			files = [][2]string{{"cpu.max", "50000 100000"}}
			quotaFile = "cpu.max"
		case m.FSType == "cgroup" && slices.Contains(m.SuperOptions, "cpu"):
			files = [][2]string{{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "50000"}}
			quotaFile = "cpu.cfs_quota_us"
		default:
			continue
		}
		if m.Root != "/" {
			reasons = append(reasons, fmt.Sprintf("%s is mounted from %s, not the hierarchy's root", m.MountPoint, m.Root))
			continue
		}
		d := filepath.Join(m.MountPoint, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			reasons = append(reasons, fmt.Sprintf("creating %s: %v", d, err))
			continue
		}
		t.Cleanup(func() {
			// The children are killed by their own cleanups, which run
			// first (registered later); an empty cgroup can be removed.
			for range 50 {
				if err := os.Remove(d); err == nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Errorf("could not remove %s", d)
		})
		ok := true
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f[0]), []byte(f[1]), 0); err != nil {
				reasons = append(reasons, fmt.Sprintf("writing %s: %v", f[0], err))
				ok = false
				break
			}
		}
		if ok {
			return d, filepath.Join(d, quotaFile), nil
		}
	}
	return "", "", reasons
}

// TestLiveBadPIDs: a PID that does not exist, and one that exits while it is
// being read, are errors that say so.
func TestLiveBadPIDs(t *testing.T) {
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	_, err := Inspect(Options{PID: cmd.Process.Pid})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d does not exist", cmd.Process.Pid)) {
		t.Errorf("exited process: err = %v", err)
	}

	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Skip(err)
	}
	defer sleeper.Process.Kill()
	afterStatusHook = func() {
		sleeper.Process.Kill()
		sleeper.Wait()
	}
	defer func() { afterStatusHook = nil }()
	_, err = Inspect(Options{PID: sleeper.Process.Pid})
	if err == nil || !strings.Contains(err.Error(), "exited while being read") {
		t.Errorf("process killed mid-read: err = %v", err)
	}
}

// childEnv makes the test binary a load child instead of running tests:
// "spin" burns a CPU, "wake" blocks and wakes a few thousand times a
// second with a short run each time (a server's shape); each prints
// "ready" and stops by itself after childLife, so that a lost child
// cannot outlive the test for long.
const (
	childEnv  = "SCHEDOCTOR_PROCS_TEST_CHILD"
	childLife = 20 * time.Second
)

func runChild(mode string) int {
	end := time.Now().Add(childLife)
	fmt.Println("ready")
	switch mode {
	case "spin":
		x := 0
		for time.Now().Before(end) {
			for i := range 1 << 20 {
				x += i
			}
		}
		return x & 0 // uses x
	case "wake":
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for time.Now().Before(end) {
					time.Sleep(200 * time.Microsecond)
					x := 0
					for i := range 5000 {
						x += i
					}
					_ = x
				}
			})
		}
		wg.Wait()
		return 0
	}
	return 2
}

// startLoad starts the test binary as a load child of the given mode,
// waits for "ready", and kills it when the test ends.
func startLoad(t *testing.T, mode string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	sc := bufio.NewScanner(labtest.Start(t, cmd))
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "ready" {
		t.Fatalf("load child %s never became ready: %v", mode, sc.Err())
	}
	return cmd.Process.Pid
}

// TestLiveCPUPressure: a CPU-bound process among twice as many CPU-bound
// processes as there are CPUs waits behind their timeslices: SD406 warns,
// and names the wait per timeslice or the threads waiting.
func TestLiveCPUPressure(t *testing.T) {
	list, err := schedAffinity(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/schedstat", os.Getpid(), os.Getpid())); err != nil {
		t.Skipf("no per-thread schedstat on this kernel (CONFIG_SCHED_INFO): %v", err)
	}
	for range 2 * len(list) {
		startLoad(t, "spin")
	}
	pid := startLoad(t, "spin")
	s, err := Inspect(Options{PID: pid, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := s.CPUWait
	if w == nil || w.Timeslices == 0 {
		t.Fatalf("CPU wait %+v, want timeslices counted", w)
	}
	f := findingOf(Findings(s), "SD406")
	if f == nil || f.Severity != finding.Warning {
		t.Fatalf("SD406 %+v, want a warning with %d busy processes on %d CPUs; wait %+v", f, 2*len(list)+1, len(list), *w)
	}
	if !strings.Contains(f.Text(), "per timeslice") && !strings.Contains(f.Text(), "threads waiting at once") {
		t.Errorf("SD406 does not say why the CPUs were short: %s", f.Text())
	}
	t.Logf("%s; %.0fµs per timeslice, %.2f threads waiting", f.Text(), w.WaitPerTimeslice*1e6, w.WaitingThreads)
}

// TestLiveWakeLatency: a process that blocks and wakes a few thousand times
// a second on a quiet machine waits at each wake-up, often a large share of
// its short runs, but that is no CPU pressure: SD406 at most at info. On a
// busy machine the wait may really be pressure; the test then skips with
// the measured load.
func TestLiveWakeLatency(t *testing.T) {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/schedstat", os.Getpid(), os.Getpid())); err != nil {
		t.Skipf("no per-thread schedstat on this kernel (CONFIG_SCHED_INFO): %v", err)
	}
	m := labtest.StartMeter()
	pid := startLoad(t, "wake")
	s, err := Inspect(Options{PID: pid, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := s.CPUWait
	if w == nil || w.Timeslices == 0 {
		t.Fatalf("CPU wait %+v, want timeslices counted", w)
	}
	t.Logf("wake child: %d timeslices, %.0fµs per timeslice, %.1f%% share, %.2f threads waiting",
		w.Timeslices, w.WaitPerTimeslice*1e6, 100*w.Share, w.WaitingThreads)
	if f := findingOf(Findings(s), "SD406"); f != nil && f.Severity >= finding.Warning {
		m.SkipIfBusy(t, "SD406 warned on a process that only wakes often: %s", f.Text())
		t.Errorf("SD406 warned on a quiet machine for wake-up latency: %s", f.Text())
	}
}
