package procs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/procs/cgroup"
	"github.com/schedoctor/schedoctor/procs/gobin"
)

// reader reads files of the target's view (/proc/..., /sys/...) under a
// sysroot and collects the problems that do not stop the analysis, and the
// inputs those problems left unknown (gaps), so that a rule that depended
// on one says it could not decide instead of staying silent.
type reader struct {
	ctx      context.Context // a cancelled ctx stops the reads (and the window) at once
	root     string
	live     bool
	max      int64 // cap on each file read; 0: sysread.DefaultMax
	warnings []string
	notes    []string
	gaps     gaps
	failed   map[string]bool // paths optional could not read (not missing)
}

// read returns the contents of p, a path as the target sees it. Every read
// goes through sysread: a sysroot is untrusted input, and a FIFO or a
// symlink to /dev/zero in it must give an error at once, not a hang or an
// endless read.
func (r *reader) read(p string) ([]byte, error) {
	if r.ctx != nil && r.ctx.Err() != nil {
		// InspectContext returns the cancellation, not these errors.
		return nil, context.Cause(r.ctx)
	}
	return sysread.File(r.sysroot(), p, r.max)
}

func (r *reader) sysroot() string {
	if r.live {
		return "/"
	}
	return r.root
}

// stat is os.Stat of a target path: under a sysroot resolved inside it
// (sysread), so that a link in the tree never tells anything of this
// machine's files.
func (r *reader) stat(p string) (fs.FileInfo, error) {
	return sysread.Stat(r.sysroot(), p)
}

// optional reads p; a missing file is nil, other errors are warnings, and
// the path is remembered as unreadable (a file that exists and cannot be
// read is an unknown, not an absence).
func (r *reader) optional(p string) []byte {
	data, err := r.read(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.warn("reading %s: %v", p, unwrapPath(err))
			if r.failed == nil {
				r.failed = map[string]bool{}
			}
			r.failed[p] = true
		}
		return nil
	}
	return data
}

// unreadable reports whether optional failed on p for another reason than
// its absence.
func (r *reader) unreadable(p string) bool { return r.failed[p] }

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
	return InspectContext(context.Background(), opt)
}

// InspectContext is Inspect that stops when ctx is done: the sampling
// window (Options.Window, up to a minute) ends at once and no further file
// is read. The error then wraps context.Cause(ctx), so that a caller
// cancelled by a signal can say so.
func InspectContext(ctx context.Context, opt Options) (*Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("inspecting the process: %w", context.Cause(ctx))
	}
	r := &reader{ctx: ctx, root: opt.Sysroot, live: opt.live(), max: opt.MaxFileBytes}
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
		if _, err := r.stat(procDir); err != nil {
			return nil, fmt.Errorf("process %d does not exist (%s: %v)", opt.PID, procDir, unwrapPath(err))
		}
	}
	s := &Summary{Target: Target{PID: opt.PID, Sysroot: r.root}, statusFile: procDir + "/status"}

	status, statusErr := r.read(procDir + "/status")
	if statusErr != nil {
		r.warn("reading %s/status: %v", procDir, unwrapPath(statusErr))
		status = nil
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
	// Reads after a cancel failed with its cause: what was read is
	// incomplete, so no summary (and no "nothing could be analysed").
	if ctx.Err() != nil {
		return nil, fmt.Errorf("inspecting %s under %s: %w", procDir, r.root, context.Cause(ctx))
	}

	if opt.PID != 0 {
		if _, err := r.stat(procDir); err != nil {
			return nil, fmt.Errorf("process %d exited while being read (%s is gone)", opt.PID, procDir)
		}
	}
	if s.CPUs.Affinity == 0 && !located {
		return nil, fmt.Errorf("nothing could be analysed under %s: %s", r.root, strings.Join(r.warnings, "; "))
	}
	s.Warnings = r.warnings
	s.gaps = r.gaps
	compute(s, opt, r.live)
	s.Notes = r.notes
	s.Undecided = undecided(s)
	s.Notes = append(s.Notes, groupUndecided(s)...)
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
		r.gaps.add(gapAffinity, procDir+"/status unreadable")
		return
	}
	v, ok := cgroup.StatusField(status, "Cpus_allowed_list")
	if !ok {
		r.warn("%s/status has no Cpus_allowed_list", procDir)
		r.gaps.add(gapAffinity, procDir+"/status has no Cpus_allowed_list")
		return
	}
	list, err := cgroup.ParseCPUList([]byte(v))
	if err != nil {
		r.warn("%s/status: Cpus_allowed_list: %v", procDir, err)
		r.gaps.add(gapAffinity, procDir+"/status: Cpus_allowed_list malformed")
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
		r.gaps.add(gapCgroups, mountinfo+" unreadable")
		return false
	}
	// One mangled line must not hide every mount: skip it, name it, and
	// analyse the rest. If the cgroup cannot then be located, the skipped
	// lines are why, and the rules that needed it say so.
	mounts, skippedMounts := cgroup.ParseMountinfoLines(mdata)
	if len(skippedMounts) > 0 {
		r.warn("%s: skipped %s", mountinfo, cgroup.Lines(skippedMounts))
	}
	cgroupFile := procDir + "/cgroup"
	cdata, err := r.read(cgroupFile)
	if err != nil {
		r.warn("reading %s: %v; cgroups not analysed", cgroupFile, unwrapPath(err))
		r.gaps.add(gapCgroups, cgroupFile+" unreadable")
		return false
	}
	entries, skippedEntries := cgroup.ParseProcCgroupLines(cdata)
	if len(skippedEntries) > 0 {
		r.warn("%s: skipped %s", cgroupFile, cgroup.Lines(skippedEntries))
	}
	if len(entries) == 0 {
		r.warn("%s: no cgroup line could be read; cgroups not analysed", cgroupFile)
		r.gaps.add(gapCgroups, cgroupFile+" has no readable line")
		return false
	}
	// why names the skipped lines, the likely reason a controller's
	// hierarchy was not found.
	why := func(err error) string {
		var parts []string
		for _, sk := range []struct {
			n    int
			file string
		}{{len(skippedMounts), mountinfo}, {len(skippedEntries), cgroupFile}} {
			switch {
			case sk.n == 1:
				parts = append(parts, "1 malformed line of "+sk.file+" skipped")
			case sk.n > 1:
				parts = append(parts, fmt.Sprintf("%d malformed lines of %s skipped", sk.n, sk.file))
			}
		}
		if len(parts) == 0 {
			return err.Error()
		}
		return err.Error() + " (" + strings.Join(parts, ", ") + ")"
	}
	s.Cgroup.Version = versionOf(entries)

	found := false
	if dir, err := cgroup.Locate(mounts, entries, "cpu"); err == nil {
		found = true
		s.Cgroup.Leaf = dir.Leaf()
		for i, d := range dir.Levels() {
			s.Cgroup.Levels = append(s.Cgroup.Levels, r.readLevel(d, dir.Version, i == 0))
		}
		if dir.Version == 2 {
			r.readPressure(s, dir.Leaf())
		}
	} else if !errors.Is(err, cgroup.ErrNoCgroup) || len(skippedEntries) > 0 {
		r.warn("%s: %v (mounts from %s); CPU quota not analysed", cgroupFile, err, mountinfo)
		r.gaps.add(gapCgroups, why(err))
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
	} else if !errors.Is(err, cgroup.ErrNoCgroup) && (len(skippedMounts) > 0 || len(skippedEntries) > 0) {
		// Without skipped lines a missing cpuset mount is the host's
		// layout (v1 hosts often mount no cpuset); with them it may be ours.
		r.gaps.add(gapCpuset, why(err))
	}
	if dir, err := cgroup.Locate(mounts, entries, "memory"); err == nil {
		r.readMemory(s, dir)
	} else if !errors.Is(err, cgroup.ErrNoCgroup) && (len(skippedMounts) > 0 || len(skippedEntries) > 0) {
		r.gaps.add(gapMemory, why(err))
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

// readLevel reads one cgroup level's quota and throttling; leaf is true for
// the process's own cgroup, whose quota the runtime's default follows.
func (r *reader) readLevel(dir string, version int, leaf bool) Level {
	l := Level{Dir: dir}
	var q cgroup.Quota
	var err error
	// quotaGap records that this level's limit is unknown: a file that
	// exists but could not be read or parsed (a missing file is no limit).
	quotaGap := func(why string) {
		r.gaps.add(gapQuota, why)
		if leaf {
			r.gaps.add(gapLeafQuota, why)
		}
	}
	if version == 2 {
		l.QuotaFile = dir + "/cpu.max"
		data := r.optional(l.QuotaFile)
		if data == nil {
			if r.unreadable(l.QuotaFile) {
				quotaGap(l.QuotaFile + " unreadable")
			}
			l.QuotaFile = ""
		} else {
			q, err = cgroup.ParseCPUMax(data)
		}
	} else {
		l.QuotaFile = dir + "/cpu.cfs_quota_us"
		periodFile := dir + "/cpu.cfs_period_us"
		quota, period := r.optional(l.QuotaFile), r.optional(periodFile)
		if quota == nil || period == nil {
			for _, f := range []string{l.QuotaFile, periodFile} {
				if r.unreadable(f) {
					quotaGap(f + " unreadable")
				}
			}
			l.QuotaFile = ""
		} else {
			q, err = cgroup.ParseV1Quota(quota, period)
		}
	}
	switch {
	case err != nil:
		r.warn("%s: %v; this level's limit is ignored", l.QuotaFile, err)
		quotaGap(l.QuotaFile + " malformed")
	case l.QuotaFile != "":
		l.Quota = &q
		if q.Limited {
			l.LimitCPUs = q.Cores()
		}
	}

	statFile := dir + "/cpu.stat"
	if data := r.optional(statFile); data != nil {
		// Lenient: a counter line the kernel writes in a new form must not
		// hide nr_periods and nr_throttled.
		st, skipped := cgroup.ParseStatLines(data)
		if len(skipped) > 0 {
			r.warn("%s: skipped %s", statFile, cgroup.Lines(skipped))
		}
		periods, hasPeriods := st["nr_periods"]
		throttledN, hasThrottled := st["nr_throttled"]
		switch {
		case hasPeriods && hasThrottled:
			t := &Throttling{File: statFile, Periods: periods, Throttled: throttledN}
			if us, ok := st["throttled_usec"]; ok {
				t.ThrottledSeconds = float64(us) / 1e6
			} else {
				t.ThrottledSeconds = float64(st["throttled_time"]) / 1e9 // v1: nanoseconds
			}
			l.Throttling = t
		case len(skipped) > 0:
			// The counters may be on the lines skipped.
			r.gaps.add(gapThrottling, statFile+": nr_periods or nr_throttled unreadable")
		}
	} else if r.unreadable(statFile) {
		r.gaps.add(gapThrottling, statFile+" unreadable")
	}
	return l
}

func (r *reader) readPressure(s *Summary, dir string) {
	file := dir + "/cpu.pressure"
	if dir == "/proc/pressure" {
		file = "/proc/pressure/cpu"
	}
	own := dir != "/proc/pressure"
	data := r.optional(file)
	if data == nil {
		if own && r.unreadable(file) {
			r.gaps.add(gapPressure, file+" unreadable")
		}
		return
	}
	p, err := cgroup.ParsePressure(data)
	if err != nil {
		r.warn("%s: %v", file, err)
		if own {
			r.gaps.add(gapPressure, file+" malformed")
		}
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
	if _, err := r.stat(procDir + "/task"); errors.Is(err, fs.ErrNotExist) {
		return // a tree without threads (older snapshots): nothing to say
	}
	first, n, err := r.schedstat(procDir)
	if err != nil {
		r.warn("%v; the process's own CPU wait is unknown", err)
		r.gaps.add(gapCPUWait, err.Error())
		return
	}
	w := &CPUWait{Files: procDir + "/task/*/schedstat", Threads: n}
	wait, run, slices := first.wait, first.run, first.slices
	if r.live && window > 0 {
		start := time.Now()
		t := time.NewTimer(window)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
			return // InspectContext returns the cause
		}
		second, n2, err := r.schedstat(procDir)
		if err != nil {
			r.warn("%v; the process's own CPU wait is unknown", err)
			r.gaps.add(gapCPUWait, err.Error())
			return
		}
		elapsed := time.Since(start).Seconds()
		// A thread that exited in the window takes its counters with it:
		// compare thread by thread, and count only threads seen twice.
		wait, run, slices = 0, 0, 0
		for tid, b := range second.byTID {
			if a, ok := first.byTID[tid]; ok {
				wait += max(b.wait-a.wait, 0)
				run += max(b.run-a.run, 0)
				slices += max(b.slices-a.slices, 0)
			}
		}
		w.Threads, w.WindowSeconds = n2, elapsed
		w.WaitingThreads = wait.Seconds() / elapsed
	}
	w.WaitSeconds, w.RunSeconds = wait.Seconds(), run.Seconds()
	if wait+run > 0 {
		w.Share = w.WaitSeconds / (w.WaitSeconds + w.RunSeconds)
	}
	// The wait per timeslice tells a wake-up's latency from waiting behind
	// another thread's timeslice: a thread that blocks and wakes thousands
	// of times a second waits tens of µs at each wake-up on an idle machine
	// (an idle CPU leaving its idle state), which adds up to a large share
	// of its short runs without any CPU being busy.
	w.Timeslices = slices
	if slices > 0 {
		w.WaitPerTimeslice = w.WaitSeconds / float64(slices)
	}
	s.CPUWait = w
}

// threadStat is one thread's schedstat: time on a CPU, time waiting on a
// run queue, and times put on a CPU.
type threadStat struct {
	run, wait time.Duration
	slices    int64
}

type schedstats struct {
	wait, run time.Duration
	slices    int64
	byTID     map[string]threadStat
}

// maxThreads bounds how many threads' schedstat files are read: a real
// process has at most tens of thousands; a hostile tree's directory of
// millions must not make procs read millions of files.
const maxThreads = 1 << 16

func (r *reader) schedstat(procDir string) (schedstats, int, error) {
	dir := procDir + "/task"
	ents, err := r.listDir(dir, maxThreads)
	if err != nil {
		return schedstats{}, 0, fmt.Errorf("reading %s: %v", dir, unwrapPath(err))
	}
	st := schedstats{byTID: map[string]threadStat{}}
	var bad []string
	for _, name := range ents {
		file := dir + "/" + name + "/schedstat"
		data, err := r.read(file)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				bad = append(bad, fmt.Sprintf("%s: %v", file, unwrapPath(err)))
			}
			continue // or the thread exited since the directory was listed
		}
		run, wait, err := cgroup.ParseSchedstat(data)
		var slices int64
		if err == nil {
			slices, err = schedstatSlices(data)
		}
		if err != nil {
			// One malformed thread is skipped and named; the others still
			// measure the process.
			bad = append(bad, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		st.byTID[name] = threadStat{run: run, wait: wait, slices: slices}
		st.run += run
		st.wait += wait
		st.slices += slices
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 3 {
			more = fmt.Sprintf(" and %d more", len(bad)-3)
			bad = bad[:3]
		}
		r.warn("skipped %s%s", strings.Join(bad, "; "), more)
	}
	if len(st.byTID) == 0 {
		return schedstats{}, 0, fmt.Errorf("%s: no thread's schedstat could be read", dir)
	}
	return st, len(st.byTID), nil
}

// schedstatSlices reads field 3 of a schedstat line that
// cgroup.ParseSchedstat accepted (so it has three fields): the number of
// times the thread was put on a CPU (the kernel's sched_info.pcount,
// "# of timeslices run on this cpu" in Documentation/scheduler/sched-stats.rst).
func schedstatSlices(data []byte) (int64, error) {
	f := strings.Fields(string(data))
	if len(f) != 3 {
		return 0, fmt.Errorf("want 3 fields, got %d", len(f))
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("field 3 %q is not a count of timeslices", f[2])
	}
	return n, nil
}

// listDir lists at most limit names of the directory p (a target path),
// warning when there were more.
func (r *reader) listDir(p string, limit int) ([]string, error) {
	f, err := sysread.OpenDir(r.sysroot(), p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(limit)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(names) == limit {
		if more, _ := f.Readdirnames(1); len(more) > 0 {
			r.warn("%s holds more than %d entries; only the first %d were read", p, limit, limit)
		}
	}
	return names, nil
}

// levelFiles yields each existing file of the cgroup's levels, leaf first:
// v1name in a v1 hierarchy, v2name in v2. A file that exists but cannot be
// read is yielded with nil data, so that the caller can count it unknown.
func (r *reader) levelFiles(dir cgroup.Dir, v1name, v2name string) iter.Seq2[string, []byte] {
	name := v2name
	if dir.Version == 1 {
		name = v1name
	}
	return func(yield func(string, []byte) bool) {
		for _, d := range dir.Levels() {
			file := d + "/" + name
			data := r.optional(file)
			if data == nil && !r.unreadable(file) {
				continue
			}
			if !yield(file, data) {
				return
			}
		}
	}
}

// readCpuset takes the nearest level's effective CPU set.
func (r *reader) readCpuset(s *Summary, dir cgroup.Dir) {
	for file, data := range r.levelFiles(dir, "cpuset.effective_cpus", "cpuset.cpus.effective") {
		if data == nil {
			r.gaps.add(gapCpuset, file+" unreadable")
			return
		}
		list, err := cgroup.ParseCPUList(data)
		if err != nil {
			r.warn("%s: %v", file, err)
			r.gaps.add(gapCpuset, file+" malformed")
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
		if data == nil {
			r.gaps.add(gapMemory, file+" unreadable")
			continue
		}
		limit, err := cgroup.ParseMemoryLimit(data)
		if err != nil {
			r.warn("%s: %v", file, err)
			r.gaps.add(gapMemory, file+" malformed")
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
		r.gaps.add(gapEnv, s.Env.File+" unreadable")
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
		file = display
		if r.live {
			if target, err := os.Readlink(display); err == nil {
				display = target
			}
		}
	}
	b := &Binary{Path: display}
	s.Binary = b
	var info *gobin.Info
	var err error
	if opt.Binary == "" && !r.live {
		info, err = r.readTargetBinary(file) // the tree's /proc/PID/exe, resolved inside it
	} else {
		info, err = gobin.ReadFile(file)
	}
	switch {
	case errors.Is(err, gobin.ErrNotGo):
		b.NotGo, b.Error = true, "not a Go binary (no Go build information)"
		r.warn("%s is not a Go binary (no Go build information): GOMAXPROCS rules do not apply", display)
		return
	case err != nil:
		b.Error = unwrapPath(err).Error()
		r.warn("reading the binary %s: %v; its Go version is unknown", display, b.Error)
		r.gaps.add(gapBinary, display+" unreadable")
		return
	}
	b.IsGo, b.Info = true, info
	b.applyGODEBUG(deref(s.Env.GODEBUG))
}

// readTargetBinary reads the build information of the binary at p, a
// target path resolved inside the sysroot: /proc/PID/exe is an absolute
// link (to /usr/bin/app) that means the tree's file, not this machine's.
func (r *reader) readTargetBinary(p string) (*gobin.Info, error) {
	f, st, err := sysread.Open(r.root, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > gobin.MaxBinaryBytes {
		return nil, fmt.Errorf("%s: %d bytes is larger than the limit of %d bytes for a binary", p, st.Size(), int64(gobin.MaxBinaryBytes))
	}
	return gobin.Read(io.NewSectionReader(f, 0, st.Size()), p)
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
