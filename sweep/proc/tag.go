package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// parseStat parses /proc/PID/stat. The command name is in parentheses and
// may itself hold spaces and parentheses, so the fields are counted from
// the last ')'.
func parseStat(pid int, b []byte) (procInfo, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	// From the state (field 3): 4 ppid, 5 pgrp, 6 session, 14 utime,
	// 15 stime, 22 starttime.
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: %d fields after the name, want at least 20", pid, len(f))
	}
	num := func(i int) (uint64, error) {
		v, err := strconv.ParseUint(f[i-3], 10, 63)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: field %d: %w", pid, i, err)
		}
		return v, nil
	}
	var v [23]uint64
	for _, i := range []int{4, 5, 6, 14, 15, 22} {
		n, err := num(i)
		if err != nil {
			return procInfo{}, err
		}
		v[i] = n
	}
	if v[4] > 1<<31 || v[5] > 1<<31 || v[6] > 1<<31 || v[14] > 1<<40 || v[15] > 1<<40 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: values out of range", pid)
	}
	return procInfo{
		PID: pid, PPID: int(v[4]), PGID: int(v[5]), SID: int(v[6]),
		State: f[0][0],
		Start: v[22],
		CPU:   time.Duration(v[14]+v[15]) * (time.Second / userHZ),
		Comm:  string(b[open+1 : end]),
	}, nil
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
