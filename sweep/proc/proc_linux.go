package proc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a started child. Wait must be called exactly once.
type Process struct {
	cmd   *exec.Cmd
	pid   int
	start time.Time

	exited   chan struct{} // closed when the child is a zombie (or waitid failed)
	exitedAt time.Time
	waitErr  error

	mu      sync.Mutex
	delays  map[int]time.Duration // run-queue wait by thread, the last value read
	stopped chan struct{}         // closes the sampler
	sampled chan struct{}         // closed when the sampler has returned

	reason   string // why we killed it, set before the kill
	expected bool   // Stop ended it: dying of our signal is not an error

	tag  string           // the TagVar value in the child's environment
	seen map[int]procInfo // descendants the sampler saw, by PID (under mu)
	// Leftovers are the descendants that outlived the child and were
	// killed when it ended; set by Wait.
	leftovers []Tagged
}

// maxDescendants bounds the descendants the sampler records and the
// cleanup walks, so that a fork bomb cannot make either endless.
const maxDescendants = 4096

// Start starts the child in its own process group, tagged (TagVar) and
// with SIGKILL as its parent-death signal, makes this process a child
// subreaper (once), and begins sampling the child's threads' schedstat and
// its descendants.
//
// The parent-death signal is sent when the thread that forked the child
// exits, not the process; the Go runtime ends a thread only when a
// goroutine locked to it returns, which the sweep never does.
func Start(spec Spec) (*Process, error) {
	subreaper()
	selfStart() // before the child: read once, not raced by it
	tag := nextTag(spec.Guard)
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = make([]string, 0, len(spec.Env)+1)
	for _, kv := range spec.Env {
		if !strings.HasPrefix(kv, TagVar+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, TagVar+"="+tag)
	cmd.Dir = spec.Dir
	cmd.Stdout = spec.Stdout
	cmd.Stderr = spec.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A descendant that left the process group and kept our pipes open
	// must not hang Wait.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		start:   time.Now(),
		exited:  make(chan struct{}),
		delays:  map[int]time.Duration{},
		stopped: make(chan struct{}),
		sampled: make(chan struct{}),
		tag:     tag,
		seen:    map[int]procInfo{},
	}
	go p.waitExit()
	every := spec.SampleEvery
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	go p.sample(every)
	return p, nil
}

// Pid returns the child's process ID, which is also its process group ID.
func (p *Process) Pid() int { return p.pid }

// Tag returns the TagVar value the child and its descendants carry.
func (p *Process) Tag() string { return p.tag }

// Leftovers returns the descendants that were still running when the
// child ended and that Wait killed; valid after Wait.
func (p *Process) Leftovers() []Tagged {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leftovers
}

// Descendants returns the PIDs of the processes below the child now, and
// of those the sampler saw below it that still run elsewhere (a daemon
// that double-forked is re-parented away from the child).
func (p *Process) Descendants() []int {
	out := descendants(p.pid, maxDescendants)
	p.mu.Lock()
	seen := maps.Clone(p.seen)
	p.mu.Unlock()
	for _, was := range seen {
		if slices.Contains(out, was.PID) || !was.alive() {
			continue
		}
		out = append(out, was.PID)
		out = append(out, descendants(was.PID, maxDescendants)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Exited is closed when the child has exited (it may not be reaped yet).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// waitExit waits for the child to exit without reaping it, so that its
// /proc entry and its process group ID stay valid until Wait is done.
func (p *Process) waitExit() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		p.exitedAt = time.Now()
		p.waitErr = err
		close(p.exited)
		return
	}
}

// sample reads the threads' schedstat at 5ms, then at intervals doubling up
// to every: short runs get several samples, long runs cost little (one
// sample of a 5-thread process takes about 0.15ms).
func (p *Process) sample(every time.Duration) {
	defer close(p.sampled)
	d := min(5*time.Millisecond, every)
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-p.stopped:
			return
		case <-t.C:
		}
		p.readSchedstat()
		p.recordDescendants()
		d = min(2*d, every)
		t.Reset(d)
	}
}

// readSchedstat reads every thread's run-queue wait and keeps the largest
// value seen per thread (the counter only grows; a failed read of a thread
// that just exited keeps the previous value).
func (p *Process) readSchedstat() {
	dir := "/proc/" + strconv.Itoa(p.pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		_, d, err := ParseSchedstat(b)
		if err != nil {
			continue
		}
		p.delays[tid] = max(p.delays[tid], d)
	}
}

// recordDescendants remembers every process below the child, with its
// start time: one that the child's exit re-parents (to us, the subreaper)
// and that dropped its tag is still known to be the child's. Walking the
// children files costs a read per process of the tree, not per process
// of the machine.
func (p *Process) recordDescendants() {
	ds := descendants(p.pid, maxDescendants)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range ds {
		if _, ok := p.seen[d]; ok || len(p.seen) >= maxDescendants {
			continue
		}
		p.mu.Unlock()
		pi, err := readProcInfo(d)
		p.mu.Lock()
		if err == nil {
			p.seen[d] = pi
		}
	}
}

// Signal sends sig to the child's whole process group, unless the child has
// already exited (while it is an unreaped zombie the group ID cannot be
// reused, so this never hits a stranger).
func (p *Process) Signal(sig syscall.Signal) error {
	return syscall.Kill(-p.pid, sig)
}

// Stop ends a child that is meant to run until stopped (a server under
// load): SIGTERM to the group, then SIGKILL after grace if it has not
// exited. Wait then reports the child's end as success, whatever its exit
// status; a child that had already exited before Stop is judged as usual.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.exited:
		return
	default:
	}
	p.mu.Lock()
	p.expected = true
	p.mu.Unlock()
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.Signal(syscall.SIGKILL)
	}
}

// Wait waits for the child to exit, killing its process group with SIGKILL
// when ctx is done or timeout (if > 0) passes; then it reads the last
// schedstat, kills whatever is left of the group, reaps the child and
// returns its usage. The error is an *ExitError when the child did not exit
// 0 on its own, or a wait error.
func (p *Process) Wait(ctx context.Context, timeout time.Duration) (Usage, error) {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout - time.Since(p.start))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
		p.kill(fmt.Sprintf("stopped: %v", context.Cause(ctx)))
	case <-timer:
		p.kill(fmt.Sprintf("timed out after %v", timeout))
	}
	<-p.exited
	close(p.stopped)
	<-p.sampled
	p.readSchedstat() // the zombie's last word
	// Descendants left in the group die with the sweep's run, and so do
	// those that left the group (setsid, a double fork).
	_ = p.Signal(syscall.SIGKILL)
	p.killDescendants(2 * time.Second)
	err := p.cmd.Wait()
	u := p.usage()
	p.mu.Lock()
	reason, expected := p.reason, p.expected
	p.mu.Unlock()
	var ee *exec.ExitError
	switch {
	case p.waitErr != nil:
		return u, fmt.Errorf("waiting for pid %d: %w", p.pid, p.waitErr)
	case errors.As(err, &ee) || err == nil:
		if u.ExitCode == 0 && u.Signal == "" {
			return u, nil
		}
		if reason == "" && expected {
			return u, nil
		}
		return u, &ExitError{Code: u.ExitCode, Signal: u.Signal, Reason: reason}
	case errors.Is(err, exec.ErrWaitDelay):
		// The child exited but a descendant outside its group held its
		// output open; the usage is still right.
		return u, nil
	default:
		return u, fmt.Errorf("reaping pid %d: %w", p.pid, err)
	}
}

func (p *Process) kill(reason string) {
	p.mu.Lock()
	p.reason = reason
	p.mu.Unlock()
	_ = p.Signal(syscall.SIGKILL)
}

func (p *Process) usage() Usage {
	u := Usage{Wall: p.exitedAt.Sub(p.start), ExitCode: -1}
	st := p.cmd.ProcessState
	if st == nil {
		return u
	}
	u.ExitCode = st.ExitCode()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		u.Signal = ws.Signal().String()
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok && ru != nil {
		u.User = time.Duration(ru.Utime.Nano())
		u.System = time.Duration(ru.Stime.Nano())
		u.Voluntary = ru.Nvcsw
		u.Involuntary = ru.Nivcsw
		u.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	p.mu.Lock()
	for _, d := range p.delays {
		u.RunQueueWait += d
	}
	u.Threads = len(p.delays)
	p.mu.Unlock()
	return u
}

// SelfCPU is the CPU time (user + system) of the calling process, all
// threads: the sweep subtracts its own (the load generator's) from the
// machine's busy time so that only other processes count as disturbance.
func SelfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
