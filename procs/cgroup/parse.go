// Package cgroup parses the files that say which CPUs and how much CPU time a
// Linux process may use: /proc/PID/mountinfo, /proc/PID/cgroup, the cgroup v1
// and v2 interface files (cpu.max, cpu.cfs_quota_us, cpu.stat, cpu.pressure,
// memory.max, cpuset.cpus.effective, ...) and CPU lists ("0-3,8").
//
// The parsers take bytes and never touch the file system, so they can be
// fuzzed and fed fixture files; Locate maps a process's cgroup to the
// directories that hold those files, leaf first, the way the Go runtime's
// internal/runtime/cgroup does (and then further up, to every ancestor).
//
// Every parser returns an error that says what is wrong and where (the line,
// the field); callers add the file name.
package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Mount is one line of /proc/PID/mountinfo (see proc_pid_mountinfo(5)).
type Mount struct {
	ID, Parent   int
	Root         string   // root of the mount within its file system, unescaped
	MountPoint   string   // where it is mounted, relative to the process's root, unescaped
	FSType       string   // "cgroup", "cgroup2", "proc", ...
	Source       string   // mount source
	SuperOptions []string // per-superblock options; for cgroup v1 they name the controllers
}

// LineError is one line a lenient parser skipped: its 1-based number and
// what is wrong with it.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Lines names skipped lines compactly for a warning: "line 3 (want ...), line 9 (...)",
// at most four, then how many more.
func Lines(skipped []*LineError) string {
	var b strings.Builder
	for i, e := range skipped {
		if i == 4 {
			fmt.Fprintf(&b, " and %d more", len(skipped)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "line %d (%v)", e.Line, e.Err)
	}
	return b.String()
}

// ParseMountinfo parses /proc/PID/mountinfo. A line that does not have the
// documented shape is an error naming its number.
func ParseMountinfo(data []byte) ([]Mount, error) {
	mounts, skipped := ParseMountinfoLines(data)
	if len(skipped) > 0 {
		return nil, skipped[0]
	}
	return mounts, nil
}

// ParseMountinfoLines parses /proc/PID/mountinfo leniently: a line that
// does not have the documented shape is skipped and returned, and the other
// lines are still read. One mangled line must not hide every cgroup mount.
func ParseMountinfoLines(data []byte) ([]Mount, []*LineError) {
	var mounts []Mount
	var skipped []*LineError
	for n, line := range lines(data) {
		m, err := parseMountLine(line)
		if err != nil {
			skipped = append(skipped, &LineError{Line: n, Err: err})
			continue
		}
		mounts = append(mounts, m)
	}
	return mounts, skipped
}

func parseMountLine(line string) (Mount, error) {
	f := strings.Fields(line)
	// At least: ID parent maj:min root mountpoint options "-" fstype source superopts.
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 10 || sep < 0 || len(f) < sep+3 {
		return Mount{}, fmt.Errorf("want at least 10 fields with a \"-\" separator, got %d", len(f))
	}
	id, err1 := strconv.Atoi(f[0])
	parent, err2 := strconv.Atoi(f[1])
	if err := errors.Join(err1, err2); err != nil {
		return Mount{}, fmt.Errorf("mount IDs %q %q are not numbers", f[0], f[1])
	}
	root, err1 := unescape(f[3])
	mnt, err2 := unescape(f[4])
	if err := errors.Join(err1, err2); err != nil {
		return Mount{}, err
	}
	if !strings.HasPrefix(root, "/") || !strings.HasPrefix(mnt, "/") {
		return Mount{}, fmt.Errorf("root %q and mount point %q must be absolute", f[3], f[4])
	}
	m := Mount{ID: id, Parent: parent, Root: root, MountPoint: mnt, FSType: f[sep+1], Source: f[sep+2]}
	if len(f) > sep+3 {
		m.SuperOptions = strings.Split(f[sep+3], ",")
	}
	return m, nil
}

// unescape undoes the octal escapes (\040 for a space) that the kernel's
// show_path writes for space, tab, newline and backslash.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape %q in %q", s[i:i+4], s)
		}
		b.WriteByte(byte(v))
		i += 3
	}
	return b.String(), nil
}

// Entry is one line of /proc/PID/cgroup: "hierarchy-ID:controllers:path".
// Hierarchy 0 with no controllers is the cgroup v2 (unified) hierarchy.
type Entry struct {
	Hierarchy   int
	Controllers []string // v1 controllers ("cpu", "cpuacct"); named hierarchies keep "name=systemd"
	Path        string   // relative to the hierarchy's root as the reader's cgroup namespace sees it
}

// ParseProcCgroup parses /proc/PID/cgroup; any malformed line is an error.
func ParseProcCgroup(data []byte) ([]Entry, error) {
	out, skipped := ParseProcCgroupLines(data)
	if len(skipped) > 0 {
		return nil, skipped[0]
	}
	if len(out) == 0 {
		return nil, errors.New("no cgroup lines")
	}
	return out, nil
}

// ParseProcCgroupLines parses /proc/PID/cgroup leniently: malformed lines
// are skipped and returned.
func ParseProcCgroupLines(data []byte) ([]Entry, []*LineError) {
	var out []Entry
	var skipped []*LineError
	for n, line := range lines(data) {
		e, err := parseCgroupLine(line)
		if err != nil {
			skipped = append(skipped, &LineError{Line: n, Err: err})
			continue
		}
		out = append(out, e)
	}
	return out, skipped
}

func parseCgroupLine(line string) (Entry, error) {
	id, rest, ok1 := strings.Cut(line, ":")
	ctrls, path, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 {
		return Entry{}, fmt.Errorf("want hierarchy-ID:controllers:path, got %q", line)
	}
	h, err := strconv.Atoi(id)
	if err != nil || h < 0 {
		return Entry{}, fmt.Errorf("hierarchy ID %q is not a number", id)
	}
	if !strings.HasPrefix(path, "/") {
		return Entry{}, fmt.Errorf("cgroup path %q is not absolute", path)
	}
	e := Entry{Hierarchy: h, Path: path}
	if ctrls != "" {
		e.Controllers = strings.Split(ctrls, ",")
	}
	return e, nil
}

// Quota is a CFS bandwidth limit: Quota microseconds of CPU time per Period.
// Limited is false for "max" (v2) or -1 (v1).
type Quota struct {
	Limited  bool  `json:"limited"`
	QuotaUS  int64 `json:"quota_us,omitempty"`
	PeriodUS int64 `json:"period_us"`
}

// Cores is the limit in CPUs (quota/period), or +Inf when unlimited.
func (q Quota) Cores() float64 {
	if !q.Limited {
		return math.Inf(1)
	}
	return float64(q.QuotaUS) / float64(q.PeriodUS)
}

// ParseCPUMax parses cgroup v2 cpu.max: "max 100000" or "150000 100000".
func ParseCPUMax(data []byte) (Quota, error) {
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return Quota{}, fmt.Errorf("want \"QUOTA PERIOD\" or \"max PERIOD\", got %q", strings.TrimSpace(string(data)))
	}
	period, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || period <= 0 {
		return Quota{}, fmt.Errorf("period %q is not a positive number of microseconds", f[1])
	}
	if f[0] == "max" {
		return Quota{PeriodUS: period}, nil
	}
	quota, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || quota <= 0 {
		return Quota{}, fmt.Errorf("quota %q is neither \"max\" nor a positive number of microseconds", f[0])
	}
	return Quota{Limited: true, QuotaUS: quota, PeriodUS: period}, nil
}

// ParseV1Quota combines cgroup v1 cpu.cfs_quota_us (-1 for no limit) and
// cpu.cfs_period_us.
func ParseV1Quota(quotaData, periodData []byte) (Quota, error) {
	quota, err := ParseInt(quotaData)
	if err != nil {
		return Quota{}, fmt.Errorf("cpu.cfs_quota_us: %w", err)
	}
	period, err := ParseInt(periodData)
	if err != nil {
		return Quota{}, fmt.Errorf("cpu.cfs_period_us: %w", err)
	}
	if period <= 0 {
		return Quota{}, fmt.Errorf("cpu.cfs_period_us: %d is not a positive number of microseconds", period)
	}
	switch {
	case quota == -1:
		return Quota{PeriodUS: period}, nil
	case quota <= 0:
		return Quota{}, fmt.Errorf("cpu.cfs_quota_us: %d is neither -1 nor a positive number of microseconds", quota)
	}
	return Quota{Limited: true, QuotaUS: quota, PeriodUS: period}, nil
}

// ParseInt parses a file holding one integer and a newline.
func ParseInt(data []byte) (int64, error) {
	s := strings.TrimSpace(string(data))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want one integer, got %q", s)
	}
	return v, nil
}

// Stat is a key-value file such as cpu.stat ("nr_periods 120\n...").
type Stat map[string]uint64

// ParseStat parses a flat keyed file of "name value" lines; any malformed
// line is an error.
func ParseStat(data []byte) (Stat, error) {
	st, skipped := ParseStatLines(data)
	if len(skipped) > 0 {
		return nil, skipped[0]
	}
	return st, nil
}

// ParseStatLines parses a flat keyed file leniently: malformed lines are
// skipped and returned, so a counter the kernel adds in a new format does
// not hide the others.
func ParseStatLines(data []byte) (Stat, []*LineError) {
	st := Stat{}
	var skipped []*LineError
	for n, line := range lines(data) {
		f := strings.Fields(line)
		if len(f) != 2 {
			skipped = append(skipped, &LineError{Line: n, Err: fmt.Errorf("want \"name value\", got %q", line)})
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			skipped = append(skipped, &LineError{Line: n, Err: fmt.Errorf("value of %s %q is not a number", f[0], f[1])})
			continue
		}
		st[f[0]] = v
	}
	return st, skipped
}

// Pressure is the "some" line of a PSI file (cpu.pressure, /proc/pressure/cpu):
// the share of time at least one task waited for a CPU, in percent, over the
// last 10, 60 and 300 seconds, and the total stall time in microseconds.
type Pressure struct {
	Avg10   float64 `json:"avg10"`
	Avg60   float64 `json:"avg60"`
	Avg300  float64 `json:"avg300"`
	TotalUS uint64  `json:"total_us"`
}

// ParsePressure parses a PSI file and returns its "some" line.
func ParsePressure(data []byte) (Pressure, error) {
	for n, line := range lines(data) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "some" {
			continue
		}
		var p Pressure
		seen := 0
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return Pressure{}, fmt.Errorf("line %d: field %q is not key=value", n, kv)
			}
			var err error
			switch k {
			case "avg10":
				p.Avg10, err = parsePercent(v)
			case "avg60":
				p.Avg60, err = parsePercent(v)
			case "avg300":
				p.Avg300, err = parsePercent(v)
			case "total":
				p.TotalUS, err = strconv.ParseUint(v, 10, 64)
			default:
				continue
			}
			if err != nil {
				return Pressure{}, fmt.Errorf("line %d: %s=%q is not a number", n, k, v)
			}
			seen++
		}
		if seen != 4 {
			return Pressure{}, fmt.Errorf("line %d: want avg10, avg60, avg300 and total", n)
		}
		return p, nil
	}
	return Pressure{}, errors.New("no \"some\" line")
}

func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return 0, errors.New("not a percentage")
	}
	return v, nil
}

// v1Unlimited is where cgroup v1 memory limits start to mean "no limit": the
// kernel prints PAGE_COUNTER_MAX pages in bytes (9223372036854771712 with 4
// KiB pages), never exactly MaxInt64.
const v1Unlimited = 1 << 62

// ParseMemoryLimit parses memory.max (v2: bytes or "max") or
// memory.limit_in_bytes (v1: bytes, huge for none). It returns 0 for no limit.
func ParseMemoryLimit(data []byte) (uint64, error) {
	s := strings.TrimSpace(string(data))
	if s == "max" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a number of bytes or \"max\", got %q", s)
	}
	if v >= v1Unlimited {
		return 0, nil
	}
	return v, nil
}

// CPUList is a set of CPU numbers as the kernel prints it: "0-3,8,10-11".
type CPUList []int

// maxCPU bounds parsed CPU numbers so that a malformed range cannot make us
// allocate without limit; Linux's NR_CPUS is at most 8192.
const maxCPU = 1 << 16

// ParseCPUList parses a CPU list. An empty list is valid (an empty cpuset).
func ParseCPUList(data []byte) (CPUList, error) {
	s := strings.TrimSpace(string(data))
	var out CPUList
	if s == "" {
		return out, nil
	}
	seen := map[int]bool{}
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a >= maxCPU {
			return nil, fmt.Errorf("bad CPU number %q in %q", lo, s)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
			if err != nil || b < a || b >= maxCPU {
				return nil, fmt.Errorf("bad CPU range %q in %q", part, s)
			}
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// String prints the list in the kernel's compact form.
func (l CPUList) String() string {
	var b strings.Builder
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", l[i], l[j])
		} else {
			fmt.Fprintf(&b, "%d", l[i])
		}
		i = j + 1
	}
	return b.String()
}

// StatusField returns the value of one "Name:\tvalue" line of
// /proc/PID/status.
func StatusField(data []byte, name string) (string, bool) {
	for _, line := range lines(data) {
		k, v, ok := strings.Cut(line, ":")
		if ok && k == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// lines yields the non-empty lines of data with their 1-based numbers.
func lines(data []byte) func(yield func(int, string) bool) {
	return func(yield func(int, string) bool) {
		n := 0
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			n++
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if !yield(n, string(bytes.TrimRight(line, "\r"))) {
				return
			}
		}
	}
}

// ParseSchedstat parses /proc/PID/task/TID/schedstat: time on a CPU and
// time waiting on a run queue (nanoseconds), then the number of timeslices.
func ParseSchedstat(data []byte) (run, wait time.Duration, err error) {
	f := strings.Fields(string(data))
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("want 3 fields, got %d", len(f))
	}
	var v [2]time.Duration
	for i := range 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("field %d %q is not a count of nanoseconds", i+1, f[i])
		}
		v[i] = time.Duration(n)
	}
	return v[0], v[1], nil
}
