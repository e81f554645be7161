package sweep

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/sweep/proc"
)

// What the sweep does about its children beyond the process group (the
// mechanics are in package proc): every child carries a tag in its
// environment and SIGKILL as its parent-death signal, schedoctor is a
// child subreaper, a guard process kills the tagged processes if
// schedoctor is killed, and before each run the checks below make sure
// that nothing an earlier run started still holds the port or the CPU.

// leftoverCPUWindow is how long the CPU of processes found running before
// a run is measured: long enough for a spinning process to show (10
// clock ticks at USER_HZ 100), short beside a run.
const leftoverCPUWindow = 100 * time.Millisecond

// warn records a warning in the summary and prints it with the progress.
func (r *runner) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.s.Warnings = append(r.s.Warnings, msg)
	if r.opt.Progress != nil {
		fmt.Fprintf(r.opt.Progress, "warning: %s\n", msg)
	}
}

// preflight runs before run seq: it kills what is left of this sweep's
// earlier runs and fails the run if any survives, says which processes of
// other sweeps are running and how much CPU they use (once per process),
// and in load mode refuses to run while something already answers on the
// load address, naming the process that holds it.
func (r *runner) preflight(seq, p int) *RunError {
	fail := func(format string, args ...any) *RunError {
		return &RunError{Seq: seq, Procs: p, Err: "before the run: " + fmt.Sprintf(format, args...)}
	}
	// Leftovers splits by process; this sweep's own are only those of its
	// earlier runs (a test process may run several sweeps at once).
	mine, others, err := proc.Leftovers()
	if err != nil && !errors.Is(err, proc.ErrUnsupported) {
		r.warn("before run %d: could not look for leftover processes: %v", seq, err)
	}
	var own []proc.Tagged
	for _, t := range mine {
		if r.tags[t.Tag] {
			own = append(own, t)
		} else {
			others = append(others, t)
		}
	}
	if len(own) > 0 {
		// Each run's end kills its descendants; one found here escaped that
		// (it was started after the scan, or was stopped in the kernel).
		cores := proc.CPUUse(own, leftoverCPUWindow)
		alive := proc.KillLeftovers(own, 2*time.Second)
		r.warn("before run %d: killed %d process(es) left by earlier runs of this sweep, which used %.2f CPUs over %v: %s",
			seq, len(own), cores, leftoverCPUWindow, names(own))
		if len(alive) > 0 {
			return fail("%s, left by an earlier run, survived SIGKILL for 2s; its CPU use would disturb this run", names(alive))
		}
	}
	var fresh []proc.Tagged
	for _, t := range others {
		if !r.reported[t.PID] {
			r.reported[t.PID] = true
			fresh = append(fresh, t)
		}
	}
	if len(fresh) > 0 {
		cores := proc.CPUUse(fresh, leftoverCPUWindow)
		var running, stale []proc.Tagged
		for _, t := range fresh {
			if t.OwnerAlive() {
				running = append(running, t)
			} else {
				stale = append(stale, t)
			}
		}
		if len(running) > 0 {
			r.warn("before run %d: another sweep is running (schedoctor pid %d): %s; with them %.2f CPUs were in use over %v, which these runs compete with",
				seq, running[0].Owner, names(running), cores, leftoverCPUWindow)
		}
		if len(stale) > 0 {
			r.warn("before run %d: %s, left by an earlier sweep whose schedoctor (pid %d) is gone, still running; with them %.2f CPUs were in use over %v: kill them (kill -9 %s)",
				seq, names(stale), stale[0].Owner, cores, leftoverCPUWindow, pidList(stale))
		}
	}
	if lo := r.opt.Load; lo != nil {
		if msg := addressTaken(lo.URL); msg != "" {
			return fail("%s; a server left from an earlier run, or any other, would take this run's load: stop it or load another address", msg)
		}
	}
	return nil
}

// addressTaken dials the load URL's address once: "" when nothing accepts
// connections there, else a sentence saying what does.
func addressTaken(raw string) string {
	addr, port, err := loadAddr(raw)
	if err != nil {
		return ""
	}
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return ""
	}
	c.Close()
	hs, err := proc.ListenersOn(port)
	switch {
	case err != nil && !errors.Is(err, proc.ErrUnsupported):
		return fmt.Sprintf("%s already accepts connections (who holds it could not be read: %v)", addr, err)
	case len(hs) == 0:
		return fmt.Sprintf("%s already accepts connections, held by a process this user cannot see", addr)
	}
	return fmt.Sprintf("%s already accepts connections, held by %s", addr, holders(hs))
}

// strangers returns the listeners on the load address that are not the
// run's child or its descendants: with SO_REUSEPORT a leftover server can
// share the port with the new one and take part of its load.
func strangers(raw string, child *proc.Process) []proc.Holder {
	_, port, err := loadAddr(raw)
	if err != nil {
		return nil
	}
	hs, err := proc.ListenersOn(port)
	if err != nil || len(hs) == 0 {
		return nil
	}
	ours := map[int]bool{child.Pid(): true}
	for _, d := range child.Descendants() {
		ours[d] = true
	}
	var out []proc.Holder
	for _, h := range hs {
		if !ours[h.PID] && h.Tag != child.Tag() {
			out = append(out, h)
		}
	}
	return out
}

// loadAddr is the load URL's host:port and port (80 when none is given).
func loadAddr(raw string) (string, int, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, err
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 {
		return "", 0, fmt.Errorf("load URL %q: bad port %q", raw, port)
	}
	return net.JoinHostPort(u.Hostname(), port), n, nil
}

func names(ts []proc.Tagged) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func pidList(ts []proc.Tagged) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = strconv.Itoa(t.PID)
	}
	return strings.Join(s, " ")
}

func holders(hs []proc.Holder) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.String()
	}
	return strings.Join(s, "; ")
}
