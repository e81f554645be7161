package proc

import (
	"maps"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killDescendants kills whatever is left of a run once its child has
// exited: the descendants the sampler saw (when still the same process),
// the processes that carry the run's tag, and everything below either or
// below the child. The process-group kill before it misses those that
// left the group (setsid, setpgid). It scans again while new ones appear
// (a process forking as it dies), then reaps those that the subreaper made
// this process's children, for at most timeout in all.
func (p *Process) killDescendants(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	self := os.Getpid()
	pending := map[int]procInfo{} // killed, not yet gone or reaped
	var killed []Tagged
	for time.Now().Before(deadline) {
		targets := p.leftoverTargets(self)
		if len(targets) == 0 {
			break
		}
		for _, t := range targets {
			_ = syscall.Kill(t.PID, syscall.SIGKILL)
			if t.info.PGID == t.PID {
				_ = syscall.Kill(-t.PID, syscall.SIGKILL)
			}
			if _, ok := pending[t.PID]; !ok {
				killed = append(killed, t)
			}
			pending[t.PID] = t.info
		}
		reap(pending, self)
		time.Sleep(5 * time.Millisecond)
	}
	for len(pending) > 0 && time.Now().Before(deadline) {
		if reap(pending, self); len(pending) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	p.mu.Lock()
	p.leftovers = killed
	p.mu.Unlock()
}

// leftoverTargets lists the run's live descendants other than the child
// itself (which Wait reaps) and this process.
func (p *Process) leftoverTargets(self int) []Tagged {
	out := map[int]Tagged{}
	add := func(pi procInfo, tag string) {
		if pi.PID == p.pid || pi.PID == self || pi.State == 'Z' || pi.State == 'X' || len(out) >= maxDescendants {
			return
		}
		if _, ok := out[pi.PID]; !ok {
			out[pi.PID] = Tagged{PID: pi.PID, Comm: pi.Comm, Tag: tag, Owner: tagOwner(tag), info: pi}
		}
	}
	p.mu.Lock()
	seen := maps.Clone(p.seen)
	p.mu.Unlock()
	for _, was := range seen {
		now, err := readProcInfo(was.PID)
		if err != nil || now.Start != was.Start {
			continue
		}
		if now.State == 'Z' && now.PPID == self {
			// It ended on its own after the subreaper adopted it: only
			// the reaping is left.
			var ws unix.WaitStatus
			_, _ = unix.Wait4(was.PID, &ws, unix.WNOHANG, nil)
			continue
		}
		add(now, "")
	}
	if ts, err := scanTagged(selfStart(), func(tag string) bool { return tag == p.tag }); err == nil {
		for _, t := range ts {
			add(t.info, t.Tag)
		}
	}
	roots := []int{p.pid}
	for pid := range out {
		roots = append(roots, pid)
	}
	for _, r := range roots {
		for _, d := range descendants(r, maxDescendants) {
			if pi, err := readProcInfo(d); err == nil {
				add(pi, "")
			}
		}
	}
	list := make([]Tagged, 0, len(out))
	for _, t := range out {
		list = append(list, t)
	}
	return list
}

// reap removes from pending the killed processes that are gone: reaped
// here when they are this process's children (re-parented to the
// subreaper), or gone, or a zombie that another process must reap.
func reap(pending map[int]procInfo, self int) {
	for pid, was := range pending {
		now, err := readProcInfo(pid)
		if err != nil || now.Start != was.Start {
			delete(pending, pid)
			continue
		}
		if now.PPID != self {
			if now.State == 'Z' || now.State == 'X' {
				delete(pending, pid)
			}
			continue
		}
		var ws unix.WaitStatus
		n, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if n == pid || err == unix.ECHILD {
			delete(pending, pid)
		}
	}
}
