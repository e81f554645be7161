package procs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/procs/cgroup"
	"github.com/schedoctor/schedoctor/procs/gobin"
)

// reader reads files of the target's view (/proc/..., /sys/...) under a
// sysroot and collects the problems that do not stop the analysis.
type reader struct {
	root     string
	live     bool
	warnings []string
	notes    []string
}

// read returns the contents of p, a path as the target sees it.
func (r *reader) read(p string) ([]byte, error) {
	return os.ReadFile(r.host(p))
}

// host maps a target path to this machine's path.
func (r *reader) host(p string) string {
	if r.live {
		return p
	}
	return filepath.Join(r.root, filepath.FromSlash(p))
}

// optional reads p; a missing file is (nil, nil), other errors are warnings.
func (r *reader) optional(p string) []byte {
	data, err := r.read(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn("reading %s: %v", p, unwrapPath(err))
		}
		return nil
	}
	return data
}

func (r *reader) warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// unwrapPath drops the *fs.PathError wrapping, whose path is the host's
// (under the sysroot) rather than the one the message names.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// afterStatusHook lets a test act between the phases of Inspect (kill the
// target, to check that an exit while it is read is caught); nil otherwise.
var afterStatusHook func()

// Inspect reads everything procs knows about the target. It fails only when
// the target does not exist, vanishes while being read, or nothing at all
// could be read; lesser problems (a malformed file, a missing mount, a
// non-Go binary) are Summary.Warnings and the rest is still analysed.
func Inspect(opt Options) (*Summary, error) {
	r := &reader{root: opt.Sysroot, live: opt.live()}
	if r.live && runtime.GOOS != "linux" {
		return nil, ErrNeedsLinux
	}
	if r.root == "" {
		r.root = "/"
	}
	if st, err := os.Stat(r.root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("sysroot %s is not a directory", r.root)
	}
	if opt.PID < 0 {
		return nil, fmt.Errorf("pid %d: not a process ID", opt.PID)
	}
	procDir := "/proc/self"
	if opt.PID != 0 {
		procDir = fmt.Sprintf("/proc/%d", opt.PID)
		if _, err := os.Stat(r.host(procDir)); err != nil {
			return nil, fmt.Errorf("process %d does not exist (%s: %v)", opt.PID, procDir, unwrapPath(err))
		}
	}
	s := &Summary{Target: Target{PID: opt.PID, Sysroot: r.root}, statusFile: procDir + "/status"}

	status, statusErr := r.read(procDir + "/status")
	if statusErr != nil {
		r.warn("reading %s/status: %v", procDir, unwrapPath(statusErr))
	} else if name, ok := cgroup.StatusField(status, "Name"); ok && opt.PID != 0 {
		s.Target.Name = name
	}
	r.readAffinity(s, opt.PID, procDir, status)
	if afterStatusHook != nil {
		afterStatusHook()
	}
	located := r.readCgroups(s, procDir)
	r.readOnline(s)
	r.readEnv(s, procDir)
	r.readBinary(s, opt, procDir)
	if opt.PID != 0 {
		r.readCPUWait(s, procDir, opt.Window)
	}

	if opt.PID != 0 {
		if _, err := os.Stat(r.host(procDir)); err != nil {
			return nil, fmt.Errorf("process %d exited while being read (%s is gone)", opt.PID, procDir)
		}
	}
	if s.CPUs.Affinity == 0 && !located {
		return nil, fmt.Errorf("nothing could be analysed under %s: %s", r.root, strings.Join(r.warnings, "; "))
	}
	s.Warnings = r.warnings
	compute(s, opt, r.live)
	s.Notes = r.notes
	if n := hostPressureNote(s); n != "" {
		s.Notes = append(s.Notes, n)
	}
	return s, nil
}

func (r *reader) readAffinity(s *Summary, pid int, procDir string, status []byte) {
	if r.live {
		list, err := schedAffinity(pid)
		if err == nil {
			s.CPUs.Affinity, s.CPUs.AffinityList, s.CPUs.AffinitySource = len(list), list.String(), "sched_getaffinity"
			return
		}
		r.warn("sched_getaffinity(%d): %v; using %s/status", pid, err, procDir)
	}
	if status == nil {
		return
	}
	v, ok := cgroup.StatusField(status, "Cpus_allowed_list")
	if !ok {
		r.warn("%s/status has no Cpus_allowed_list", procDir)
		return
	}
	list, err := cgroup.ParseCPUList([]byte(v))
	if err != nil {
		r.warn("%s/status: Cpus_allowed_list: %v", procDir, err)
		return
	}
	s.CPUs.Affinity, s.CPUs.AffinityList, s.CPUs.AffinitySource = len(list), list.String(), procDir+"/status"
}

func (r *reader) readOnline(s *Summary) {
	const online = "/sys/devices/system/cpu/online"
	data := r.optional(online)
	if data == nil {
		return
	}
	list, err := cgroup.ParseCPUList(data)
	if err != nil {
		r.warn("%s: %v", online, err)
		return
	}
	s.CPUs.Online, s.CPUs.OnlineList = len(list), list.String()
}

// readCgroups fills the cgroup figures and reports whether the CPU cgroup
// was found.
func (r *reader) readCgroups(s *Summary, procDir string) bool {
	s.Cgroup.Version = "none"
	mountinfo := r.mountinfoPath(procDir)
	mdata, err := r.read(mountinfo)
	if err != nil {
		r.warn("reading %s: %v; cgroups not analysed", mountinfo, unwrapPath(err))
		return false
	}
	mounts, err := cgroup.ParseMountinfo(mdata)
	if err != nil {
		r.warn("%s: %v; cgroups not analysed", mountinfo, err)
		return false
	}
	cdata, err := r.read(procDir + "/cgroup")
	if err != nil {
		r.warn("reading %s/cgroup: %v; cgroups not analysed", procDir, unwrapPath(err))
		return false
	}
	entries, err := cgroup.ParseProcCgroup(cdata)
	if err != nil {
		r.warn("%s/cgroup: %v; cgroups not analysed", procDir, err)
		return false
	}
	s.Cgroup.Version = versionOf(entries)

	found := false
	if dir, err := cgroup.Locate(mounts, entries, "cpu"); err == nil {
		found = true
		s.Cgroup.Leaf = dir.Leaf()
		for _, d := range dir.Levels() {
			s.Cgroup.Levels = append(s.Cgroup.Levels, r.readLevel(d, dir.Version))
		}
		if dir.Version == 2 {
			r.readPressure(s, dir.Leaf())
		}
	} else if !errors.Is(err, cgroup.ErrNoCgroup) {
		r.warn("%s: %v (mounts from %s); CPU quota not analysed", procDir+"/cgroup", err, mountinfo)
	}
	if s.Cgroup.Pressure == nil {
		// Hybrid: the cpu controller is on v1, but PSI lives in the unified
		// hierarchy, at the process's own cgroup there.
		if dir, err := cgroup.Locate(mounts, unifiedOnly(entries), ""); err == nil {
			r.readPressure(s, dir.Leaf())
		}
	}
	// The machine's pressure is read apart and kept as context: a busy host
	// says nothing of whether this process waited.
	r.readPressure(s, "/proc/pressure")
	// The root cgroup's cpu.pressure is the system-wide figure: a process in
	// the root of its hierarchy (this build machine's unified hierarchy,
	// a host process) has no pressure of its own. Both files are updated
	// together every 2s, so their averages read a moment apart are equal.
	if own, host := s.Cgroup.Pressure, s.Cgroup.HostPressure; own != nil && host != nil &&
		own.Avg10 == host.Avg10 && own.Avg60 == host.Avg60 && own.Avg300 == host.Avg300 {
		r.notes = append(r.notes, fmt.Sprintf("%s has the same averages as %s: the process's cgroup is the root of its "+
			"hierarchy, whose pressure is the whole machine's, so it is taken as the host's", own.File, host.File))
		s.Cgroup.Pressure = nil
	}
	if dir, err := cgroup.Locate(mounts, entries, "cpuset"); err == nil {
		r.readCpuset(s, dir)
	}
	if dir, err := cgroup.Locate(mounts, entries, "memory"); err == nil {
		r.readMemory(s, dir)
	}
	return found
}

// mountinfoPath picks the mount table to resolve cgroup paths with. Files are
// opened in schedoctor's own mount namespace, so on the live system the
// target's table is only right when it shares that namespace (kubectl exec
// into the container, or a process on the host); otherwise ours is. Under
// a sysroot the tree is the target's view.
func (r *reader) mountinfoPath(procDir string) string {
	if !r.live || procDir == "/proc/self" {
		return procDir + "/mountinfo"
	}
	theirs, err1 := os.Readlink(procDir + "/ns/mnt")
	ours, err2 := os.Readlink("/proc/self/ns/mnt")
	if err1 == nil && err2 == nil && theirs != ours {
		r.warn("process is in another mount namespace (%s); cgroup files resolved through /proc/self/mountinfo", theirs)
		return "/proc/self/mountinfo"
	}
	return procDir + "/mountinfo"
}

func versionOf(entries []cgroup.Entry) string {
	v1, v2 := false, false
	for _, e := range entries {
		if e.Hierarchy == 0 {
			v2 = true
		} else if len(e.Controllers) > 0 {
			v1 = true
		}
	}
	switch {
	case v1 && v2:
		return "hybrid"
	case v1:
		return "v1"
	case v2:
		return "v2"
	}
	return "none"
}

func unifiedOnly(entries []cgroup.Entry) []cgroup.Entry {
	var out []cgroup.Entry
	for _, e := range entries {
		if e.Hierarchy == 0 {
			out = append(out, e)
		}
	}
	return out
}

func (r *reader) readLevel(dir string, version int) Level {
	l := Level{Dir: dir}
	var q cgroup.Quota
	var err error
	if version == 2 {
		l.QuotaFile = dir + "/cpu.max"
		data := r.optional(l.QuotaFile)
		if data == nil {
			l.QuotaFile = ""
		} else {
			q, err = cgroup.ParseCPUMax(data)
		}
	} else {
		l.QuotaFile = dir + "/cpu.cfs_quota_us"
		quota, period := r.optional(l.QuotaFile), r.optional(dir+"/cpu.cfs_period_us")
		if quota == nil || period == nil {
			l.QuotaFile = ""
		} else {
			q, err = cgroup.ParseV1Quota(quota, period)
		}
	}
	switch {
	case err != nil:
		r.warn("%s: %v; this level's limit is ignored", l.QuotaFile, err)
	case l.QuotaFile != "":
		l.Quota = &q
		if q.Limited {
			l.LimitCPUs = q.Cores()
		}
	}

	statFile := dir + "/cpu.stat"
	if data := r.optional(statFile); data != nil {
		st, err := cgroup.ParseStat(data)
		if err != nil {
			r.warn("%s: %v", statFile, err)
		} else if periods, ok := st["nr_periods"]; ok {
			t := &Throttling{File: statFile, Periods: periods, Throttled: st["nr_throttled"]}
			if us, ok := st["throttled_usec"]; ok {
				t.ThrottledSeconds = float64(us) / 1e6
			} else {
				t.ThrottledSeconds = float64(st["throttled_time"]) / 1e9 // v1: nanoseconds
			}
			l.Throttling = t
		}
	}
	return l
}

func (r *reader) readPressure(s *Summary, dir string) {
	file := dir + "/cpu.pressure"
	if dir == "/proc/pressure" {
		file = "/proc/pressure/cpu"
	}
	data := r.optional(file)
	if data == nil {
		return
	}
	p, err := cgroup.ParsePressure(data)
	if err != nil {
		r.warn("%s: %v", file, err)
		return
	}
	if dir == "/proc/pressure" {
		s.Cgroup.HostPressure = &PressureInfo{File: file, Pressure: p}
		return
	}
	s.Cgroup.Pressure = &PressureInfo{File: file, Pressure: p}
}

// readCPUWait sums the run-queue wait and the CPU time of the process's
// threads (/proc/PID/task/*/schedstat), twice window apart on the live
// system, once (lifetime counters) under a sysroot or with no window.
func (r *reader) readCPUWait(s *Summary, procDir string, window time.Duration) {
	if _, err := os.Stat(r.host(procDir + "/task")); errors.Is(err, fs.ErrNotExist) {
		return // a tree without threads (older snapshots): nothing to say
	}
	first, n, err := r.schedstat(procDir)
	if err != nil {
		r.warn("%v; the process's own CPU wait is unknown", err)
		return
	}
	w := &CPUWait{Files: procDir + "/task/*/schedstat", Threads: n}
	wait, run := first.wait, first.run
	if r.live && window > 0 {
		start := time.Now()
		time.Sleep(window)
		second, n2, err := r.schedstat(procDir)
		if err != nil {
			r.warn("%v; the process's own CPU wait is unknown", err)
			return
		}
		elapsed := time.Since(start).Seconds()
		// A thread that exited in the window takes its counters with it:
		// compare thread by thread, and count only threads seen twice.
		wait, run = 0, 0
		for tid, b := range second.byTID {
			if a, ok := first.byTID[tid]; ok {
				wait += max(b[1]-a[1], 0)
				run += max(b[0]-a[0], 0)
			}
		}
		w.Threads, w.WindowSeconds = n2, elapsed
		w.WaitingThreads = wait.Seconds() / elapsed
	}
	w.WaitSeconds, w.RunSeconds = wait.Seconds(), run.Seconds()
	if wait+run > 0 {
		w.Share = w.WaitSeconds / (w.WaitSeconds + w.RunSeconds)
	}
	s.CPUWait = w
}

type schedstats struct {
	wait, run time.Duration
	byTID     map[string][2]time.Duration // [on CPU, waiting]
}

func (r *reader) schedstat(procDir string) (schedstats, int, error) {
	dir := procDir + "/task"
	ents, err := os.ReadDir(r.host(dir))
	if err != nil {
		return schedstats{}, 0, fmt.Errorf("reading %s: %v", dir, unwrapPath(err))
	}
	st := schedstats{byTID: map[string][2]time.Duration{}}
	for _, e := range ents {
		file := dir + "/" + e.Name() + "/schedstat"
		data, err := r.read(file)
		if err != nil {
			continue // the thread exited since the directory was listed
		}
		f := strings.Fields(string(data))
		if len(f) != 3 {
			return schedstats{}, 0, fmt.Errorf("%s: want 3 fields, got %d", file, len(f))
		}
		var v [2]time.Duration
		for i := range 2 {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || n < 0 {
				return schedstats{}, 0, fmt.Errorf("%s: field %d %q is not a count of nanoseconds", file, i+1, f[i])
			}
			v[i] = time.Duration(n)
		}
		st.byTID[e.Name()] = v
		st.run += v[0]
		st.wait += v[1]
	}
	if len(st.byTID) == 0 {
		return schedstats{}, 0, fmt.Errorf("%s: no thread's schedstat could be read", dir)
	}
	return st, len(st.byTID), nil
}

// levelFiles yields each existing file of the cgroup's levels, leaf first:
// v1name in a v1 hierarchy, v2name in v2.
func (r *reader) levelFiles(dir cgroup.Dir, v1name, v2name string) iter.Seq2[string, []byte] {
	name := v2name
	if dir.Version == 1 {
		name = v1name
	}
	return func(yield func(string, []byte) bool) {
		for _, d := range dir.Levels() {
			file := d + "/" + name
			if data := r.optional(file); data != nil && !yield(file, data) {
				return
			}
		}
	}
}

// readCpuset takes the nearest level's effective CPU set.
func (r *reader) readCpuset(s *Summary, dir cgroup.Dir) {
	for file, data := range r.levelFiles(dir, "cpuset.effective_cpus", "cpuset.cpus.effective") {
		list, err := cgroup.ParseCPUList(data)
		if err != nil {
			r.warn("%s: %v", file, err)
			return
		}
		if len(list) == 0 {
			continue // an empty effective set means "inherit" only while unpopulated
		}
		s.CPUs.Cpuset, s.CPUs.CpusetList, s.CPUs.CpusetFile = len(list), list.String(), file
		return
	}
}

// readMemory takes the tightest memory limit over the levels.
func (r *reader) readMemory(s *Summary, dir cgroup.Dir) {
	for file, data := range r.levelFiles(dir, "memory.limit_in_bytes", "memory.max") {
		limit, err := cgroup.ParseMemoryLimit(data)
		if err != nil {
			r.warn("%s: %v", file, err)
			continue
		}
		if limit > 0 && (s.Memory == nil || limit < s.Memory.LimitBytes) {
			s.Memory = &Memory{LimitBytes: limit, File: file}
		}
	}
}

func (r *reader) readEnv(s *Summary, procDir string) {
	s.Env.File = procDir + "/environ"
	data, err := r.read(s.Env.File)
	if err != nil {
		r.warn("reading %s: %v; GOMAXPROCS, GODEBUG and GOMEMLIMIT unknown", s.Env.File, unwrapPath(err))
		return
	}
	s.Env.Read = true
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		k, v, ok := strings.Cut(string(kv), "=")
		if !ok {
			continue
		}
		switch k {
		case "GOMAXPROCS":
			s.Env.GOMAXPROCS = &v
		case "GODEBUG":
			s.Env.GODEBUG = &v
		case "GOMEMLIMIT":
			s.Env.GOMEMLIMIT = &v
		}
	}
}

func (r *reader) readBinary(s *Summary, opt Options, procDir string) {
	file, display := opt.Binary, opt.Binary
	if file == "" {
		if opt.PID == 0 {
			return
		}
		display = procDir + "/exe"
		file = r.host(display)
		if r.live {
			if target, err := os.Readlink(display); err == nil {
				display = target
			}
		}
	}
	b := &Binary{Path: display}
	s.Binary = b
	info, err := gobin.ReadFile(file)
	switch {
	case errors.Is(err, gobin.ErrNotGo):
		b.NotGo, b.Error = true, "not a Go binary (no Go build information)"
		r.warn("%s is not a Go binary (no Go build information): GOMAXPROCS rules do not apply", display)
		return
	case err != nil:
		b.Error = unwrapPath(err).Error()
		r.warn("reading the binary %s: %v; its Go version is unknown", display, b.Error)
		return
	}
	b.IsGo, b.Info = true, info
	b.applyGODEBUG(deref(s.Env.GODEBUG))
}

// applyGODEBUG sets the effective containermaxprocs and updatemaxprocs the
// way the runtime does: on from Go 1.25, then DefaultGODEBUG, then the
// GODEBUG variable, the last setting winning.
func (b *Binary) applyGODEBUG(env string) {
	if b.Minor < 25 {
		return
	}
	b.ContainerMaxProcs, b.UpdateMaxProcs = "1", "1"
	for _, list := range []string{b.DefaultGODEBUG, env} {
		if v, ok := gobin.Setting(list, "containermaxprocs"); ok {
			b.ContainerMaxProcs = v
		}
		if v, ok := gobin.Setting(list, "updatemaxprocs"); ok {
			b.UpdateMaxProcs = v
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// tightest returns the smallest CPU limit over the levels (+Inf for none)
// and its index.
func tightest(levels []Level) (float64, int) {
	best, idx := math.Inf(1), -1
	for i, l := range levels {
		if l.LimitCPUs > 0 && l.LimitCPUs < best {
			best, idx = l.LimitCPUs, i
		}
	}
	return best, idx
}
