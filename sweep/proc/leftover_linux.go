package proc

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Leftovers lists the live processes that carry a sweep's tag: own are
// those of this process's earlier runs (after each run's cleanup there
// should be none), others those of other sweeps: running ones (their
// schedoctor is alive, Tagged.OwnerAlive) or left by one that was killed
// before it or its guard could clean up.
func Leftovers() (own, others []Tagged, err error) {
	ts, err := scanTagged(0, func(string) bool { return true })
	if err != nil {
		return nil, nil, err
	}
	for _, t := range ts {
		if OwnTag(t.Tag) {
			own = append(own, t)
		} else {
			others = append(others, t)
		}
	}
	return own, others, nil
}

// KillLeftovers kills the given processes (and the groups they lead) when
// they are still the processes listed, waits up to timeout for them to go
// and returns those still alive.
func KillLeftovers(ts []Tagged, timeout time.Duration) []Tagged {
	self := os.Getpid()
	pending := map[int]procInfo{}
	for _, t := range ts {
		if !t.info.alive() {
			continue
		}
		_ = syscall.Kill(t.PID, syscall.SIGKILL)
		if t.info.PGID == t.PID {
			_ = syscall.Kill(-t.PID, syscall.SIGKILL)
		}
		pending[t.PID] = t.info
	}
	deadline := time.Now().Add(timeout)
	for len(pending) > 0 && time.Now().Before(deadline) {
		if reap(pending, self); len(pending) > 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	var alive []Tagged
	for _, t := range ts {
		if _, ok := pending[t.PID]; ok {
			alive = append(alive, t)
		}
	}
	return alive
}

// CPUUse measures the CPU the processes use over window, in cores (CPU
// seconds per second), from their /proc/PID/stat before and after; a
// process gone in between counts what it used until it went.
func CPUUse(ts []Tagged, window time.Duration) float64 {
	if len(ts) == 0 || window <= 0 {
		return 0
	}
	before := make([]time.Duration, len(ts))
	for i, t := range ts {
		if pi, err := readProcInfo(t.PID); err == nil && pi.Start == t.info.Start {
			before[i] = pi.CPU
		} else {
			before[i] = -1
		}
	}
	start := time.Now()
	time.Sleep(window)
	elapsed := time.Since(start)
	var used time.Duration
	for i, t := range ts {
		if before[i] < 0 {
			continue
		}
		if pi, err := readProcInfo(t.PID); err == nil && pi.Start == t.info.Start {
			used += max(pi.CPU-before[i], 0)
		}
	}
	return used.Seconds() / elapsed.Seconds()
}

// ListenersOn returns the processes holding a TCP socket that listens on
// port, over IPv4 and IPv6, from /proc/net/tcp{,6} (the socket's inode)
// and every readable /proc/PID/fd (who holds it). A socket whose holder
// cannot be read (another user's process) yields no Holder: the caller
// still knows the port answers.
func ListenersOn(port int) ([]Holder, error) {
	inodes := map[uint64]bool{}
	var firstErr error
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := readSmallN(f, 64<<20)
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		in, err := ParseNetTCP(b, port)
		if err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("%s: %w", f, err))
			continue
		}
		for k := range in {
			inodes[k] = true
		}
	}
	if len(inodes) == 0 {
		return nil, firstErr
	}
	pids, err := allPIDs()
	if err != nil {
		return nil, err
	}
	var out []Holder
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			l, err := os.Readlink(dir + "/" + e.Name())
			if err != nil || !strings.HasPrefix(l, "socket:[") {
				continue
			}
			ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]"), 10, 64)
			if err != nil || !inodes[ino] {
				continue
			}
			h := Holder{PID: pid, Tag: environTag(pid)}
			if pi, err := readProcInfo(pid); err == nil {
				h.Comm = pi.Comm
			}
			out = append(out, h)
			break
		}
	}
	return out, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// readSmallN reads path, refusing one larger than limit bytes (the
// socket tables of a busy host are larger than a stat file).
func readSmallN(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}
