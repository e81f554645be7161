package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/procstat"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// TagVar is the environment variable the sweep adds to every child it
// starts: "SCHEDOCTOR_SWEEP_TAG=<schedoctor's pid>-<random>.<run>". A
// process inherits its parent's environment unless it replaces it, so the
// tag finds a child's descendants wherever they went: after a double fork
// and setsid, re-parented to init, or left by a schedoctor that was killed.
const TagVar = "SCHEDOCTOR_SWEEP_TAG"

// procInfo is what /proc/PID/stat says about a process that the cleanup
// needs: its parent, group, session, state, start time (in clock ticks
// since boot: with the PID it names the process, so a reused PID is not
// mistaken for it) and CPU time so far.
type procInfo struct {
	PID, PPID, PGID, SID int
	State                byte
	Start                uint64
	CPU                  time.Duration // user + system
	Comm                 string
}

// parseStat parses /proc/PID/stat (internal/procstat knows its layout).
func parseStat(pid int, b []byte) (procInfo, error) {
	st, err := procstat.Parse(b)
	if err != nil {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return infoOf(pid, st), nil
}

// infoOf is what the cleanup needs of a stat line.
func infoOf(pid int, st procstat.Stat) procInfo {
	return procInfo{
		PID: pid, PPID: st.PPID, PGID: st.PGID, SID: st.SID,
		State: st.State,
		Start: st.Start,
		CPU:   st.CPU(),
		Comm:  st.Comm,
	}
}

// Tagged is a process that carries a sweep's tag.
type Tagged struct {
	PID   int
	Comm  string // the command name from /proc/PID/stat
	Tag   string
	Owner int // the schedoctor PID the tag names
	info  procInfo
}

// String names the process for a message: "pid 123 (httpserver)". Any
// process can name itself: its control characters are shown escaped.
func (t Tagged) String() string { return fmt.Sprintf("pid %d (%s)", t.PID, textsafe.String(t.Comm)) }

// tagOwner is the schedoctor PID at the head of a tag, 0 if malformed.
func tagOwner(tag string) int {
	s, _, _ := strings.Cut(tag, "-")
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// Holder is a process that holds a listening TCP socket.
type Holder struct {
	PID  int
	Comm string
	Tag  string // the sweep tag it carries, "" for none
}

func (h Holder) String() string {
	s := fmt.Sprintf("pid %d (%s)", h.PID, textsafe.String(h.Comm))
	switch {
	case h.Tag == "":
	case OwnTag(h.Tag):
		s += ", a process of an earlier run of this sweep"
	default:
		s += fmt.Sprintf(", a process of another sweep (schedoctor pid %d)", tagOwner(h.Tag))
	}
	return s
}

// ParseNetTCP returns the inodes of the sockets in a /proc/net/tcp or
// tcp6 table that listen (state 0A) on port.
func ParseNetTCP(b []byte, port int) (map[uint64]bool, error) {
	out := map[uint64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<10)
	for first := true; sc.Scan(); first = false {
		f := strings.Fields(sc.Text())
		if first && len(f) > 0 && f[0] == "sl" {
			continue // the header
		}
		if len(f) < 10 {
			return nil, fmt.Errorf("line with %d fields, want at least 10", len(f))
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			return nil, fmt.Errorf("local address %q: no port", f[1])
		}
		pt, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil {
			return nil, fmt.Errorf("local address %q: %w", f[1], err)
		}
		if f[3] != "0A" || int(pt) != port {
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("inode %q: %w", f[9], err)
		}
		if ino != 0 {
			out[ino] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
