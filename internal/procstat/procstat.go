// Package procstat parses /proc/PID/stat, the kernel's one-line status of
// a process (proc_pid_stat(5)): the one place that knows its layout, for
// the sweep's process tree, check's CPU time of a local target and the
// demo's.
//
// The line is "pid (comm) state ppid pgrp session ...": the command name
// is in parentheses and may itself hold spaces and parentheses (a process
// may name itself anything), so the fields are counted from the last ')'.
package procstat

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// UserHZ is the unit of the CPU times of /proc/PID/stat and /proc/stat:
// clock ticks of 1/100 s on every Linux, the value sysconf(_SC_CLK_TCK)
// gives user space (the kernel's own HZ is not visible there).
const UserHZ = 100

// Stat is what the callers need of the file.
type Stat struct {
	PID, PPID, PGID, SID int
	Comm                 string // the command name, as the process set it (untrusted)
	State                byte   // R, S, D, Z, T, t, X, I, ...
	UTime, STime         uint64 // user and system CPU, in UserHZ ticks
	// Start is when the process started, in ticks since boot: with the
	// PID it names the process, so that a reused PID is not mistaken for
	// it.
	Start uint64
}

// CPU is the user and system CPU time the process used.
func (s Stat) CPU() time.Duration {
	return time.Duration(s.UTime+s.STime) * (time.Second / UserHZ)
}

// maxFile bounds what is read of the file: a real one is under 400 bytes
// (52 numbers and a name of at most 64 bytes).
const maxFile = 4096

// Read reads and parses /proc/PID/stat.
func Read(pid int) (Stat, error) {
	return ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", pid)
}

// ReadFile reads and parses the stat file at path (a root other than
// /proc, for tests) of process pid.
func ReadFile(path string, pid int) (Stat, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stat{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile))
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", path, err)
	}
	s, err := Parse(b)
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.PID != pid {
		return Stat{}, fmt.Errorf("%s: the line is of process %d", path, s.PID)
	}
	return s, nil
}

// Parse parses the contents of a stat file.
func Parse(b []byte) (Stat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("no command name in parentheses")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil || pid <= 0 {
		return Stat{}, fmt.Errorf("no process id before the command name")
	}
	f := strings.Fields(string(b[end+1:]))
	// From the state (field 3): 4 ppid, 5 pgrp, 6 session, 14 utime,
	// 15 stime, 22 starttime.
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("%d fields after the name, want at least 20", len(f))
	}
	var v [23]uint64
	for _, i := range []int{4, 5, 6, 14, 15, 22} {
		n, err := strconv.ParseUint(f[i-3], 10, 63)
		if err != nil {
			return Stat{}, fmt.Errorf("field %d: %w", i, err)
		}
		v[i] = n
	}
	// Process ids fit 22 bits (PID_MAX_LIMIT); a CPU time of 2^40 ticks
	// is 348 years. Past these the line is not a kernel's.
	if v[4] > 1<<31 || v[5] > 1<<31 || v[6] > 1<<31 || v[14] > 1<<40 || v[15] > 1<<40 {
		return Stat{}, fmt.Errorf("values out of range")
	}
	return Stat{
		PID: pid, PPID: int(v[4]), PGID: int(v[5]), SID: int(v[6]),
		Comm:  string(b[open+1 : end]),
		State: f[0][0],
		UTime: v[14], STime: v[15],
		Start: v[22],
	}, nil
}
