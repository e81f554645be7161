package proc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The guard is what cleans up when schedoctor itself is killed with
// SIGKILL and can run no code. The direct child dies with it (Pdeathsig),
// but its descendants do not: a grandchild, in the child's process group
// or one that called setsid, is re-parented to init and runs on. So the
// sweep starts one more process, this same executable re-run as
// "schedoctor-sweep-guard", which holds the read end of a pipe whose only
// write end is schedoctor's. When schedoctor exits, however it exits, the
// kernel closes the write end; the guard reads EOF, kills every process
// carrying this schedoctor's tag (TagVar) and exits. It sits in its own
// process group so that Ctrl-C at the terminal does not reach it, and
// ignores the signals that would end it before its work is done.

const (
	guardArg0 = "schedoctor-sweep-guard"
	guardVar  = "SCHEDOCTOR_SWEEP_GUARD"       // the tag prefix the guard cleans up
	sinceVar  = "SCHEDOCTOR_SWEEP_GUARD_SINCE" // the owner's start time, clock ticks since boot
)

// init turns this process into a guard when it was started as one: both
// the program name and the variable must say so, so that the variable
// alone, inherited by accident, never hijacks a program.
func init() {
	prefix := os.Getenv(guardVar)
	if prefix == "" || len(os.Args) == 0 || os.Args[0] != guardArg0 {
		return
	}
	since, _ := strconv.ParseUint(os.Getenv(sinceVar), 10, 63)
	os.Exit(guardMain(prefix, since, os.NewFile(3, "guard pipe")))
}

// guardMain waits for EOF on pipe, then kills the prefix's processes.
func guardMain(prefix string, since uint64, pipe *os.File) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	if pipe == nil {
		return 2
	}
	_, _ = io.Copy(io.Discard, pipe)
	killTagged(since, func(tag string) bool { return strings.HasPrefix(tag, prefix+".") }, 5*time.Second)
	return 0
}

// killTagged kills the matching tagged processes, and their process
// groups when they lead one, scanning again until none is left (a process
// may fork while it is being killed) or timeout passes. It returns the
// processes it signalled.
func killTagged(since uint64, match func(string) bool, timeout time.Duration) []Tagged {
	var killed []Tagged
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ts, err := scanTagged(since, match)
		if err != nil || len(ts) == 0 {
			break
		}
		for _, t := range ts {
			_ = syscall.Kill(t.PID, syscall.SIGKILL)
			if t.info.PGID == t.PID {
				_ = syscall.Kill(-t.PID, syscall.SIGKILL)
			}
		}
		killed = append(killed, ts...)
		time.Sleep(10 * time.Millisecond)
	}
	return killed
}

// prefixes holds every tag prefix this process made.
var prefixes sync.Map

// newPrefix returns a new tag prefix, "<pid>-<random>": the PID names the
// owner for messages, the random part keeps a reused PID from claiming an
// earlier owner's processes, and a prefix per guard keeps one sweep's
// guard from killing another's children in a process running several.
func newPrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	p := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
	prefixes.Store(p, true)
	return p
}

// defaultPrefix tags the runs started without a guard.
var defaultPrefix = sync.OnceValue(newPrefix)

var defaultSeq atomic.Int64

// nextTag returns a new run's tag under the guard's prefix, or under this
// process's default prefix when g is nil.
func nextTag(g *Guard) string {
	if g != nil {
		return g.prefix + "." + strconv.FormatInt(g.seq.Add(1), 10)
	}
	return defaultPrefix() + "." + strconv.FormatInt(defaultSeq.Add(1), 10)
}

// OwnTag reports whether tag was made by this process.
func OwnTag(tag string) bool {
	p, _, ok := strings.Cut(tag, ".")
	if !ok {
		return false
	}
	_, own := prefixes.Load(p)
	return own
}

// selfStart is this process's start time in clock ticks since boot: every
// process of ours started later, so scans skip older ones.
var selfStart = sync.OnceValue(func() uint64 {
	pi, err := readProcInfo(os.Getpid())
	if err != nil {
		return 0
	}
	return pi.Start
})

// subreaper makes this process a child subreaper, once: an orphan below
// it (a grandchild whose parent died, even one that called setsid) is
// re-parented here rather than to init, where the cleanup can see it as
// its child and reap it. It reports whether the kernel accepted.
var subreaper = sync.OnceValue(func() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
})

// Guard is the process that kills this process's runs' descendants when
// this process ends without doing it itself (SIGKILL). Close it when the
// sweep is done.
type Guard struct {
	prefix string
	seq    atomic.Int64
	cmd    *exec.Cmd
	w      *os.File
	done   chan struct{}
}

// StartGuard starts a guard: this executable (/proc/self/exe) run again
// in guard mode. Every program that links this package can be its own
// guard, because the guard mode is entered from this package's init. The
// runs it covers are those started with it in their Spec.
func StartGuard() (*Guard, error) {
	prefix := newPrefix()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting the sweep's guard: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{guardArg0}
	cmd.Env = []string{guardVar + "=" + prefix, sinceVar + "=" + strconv.FormatUint(selfStart(), 10)}
	cmd.ExtraFiles = []*os.File{r}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the sweep's guard: %w", err)
	}
	g := &Guard{prefix: prefix, cmd: cmd, w: w, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(g.done)
	}()
	return g, nil
}

// Pid is the guard's process ID.
func (g *Guard) Pid() int { return g.cmd.Process.Pid }

// Close closes the guard's pipe, so that it makes its last sweep for
// leftovers and exits, and waits for it (at most 10s).
func (g *Guard) Close() error {
	if err := g.w.Close(); err != nil {
		return fmt.Errorf("closing the guard's pipe: %w", err)
	}
	select {
	case <-g.done:
		return nil
	case <-time.After(10 * time.Second):
		_ = g.cmd.Process.Kill()
		return errors.New("the sweep's guard did not exit within 10s")
	}
}
