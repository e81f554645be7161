package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/procs/cgroup"
)

// ErrNeedsLinux is returned when the live system is asked for on an OS that
// has no /proc. A -sysroot tree can still be read there.
var ErrNeedsLinux = finding.WithHint(errors.New("host needs Linux (or a copy of a Linux /proc and /sys to read)"), finding.HintSysroot)

// tcpTableMax caps /proc/PID/net/tcp{,6}: about 150 bytes a socket, so a
// million sockets fit; beyond, the socket figures are skipped with a warning.
const tcpTableMax = 256 << 20

// reader reads files of the target's view under a sysroot and collects the
// problems that do not stop the analysis.
type reader struct {
	root     string
	warnings []string
	notes    []string
}

func (r *reader) read(p string) ([]byte, error) {
	return sysread.File(r.root, p, sysread.DefaultMax)
}

// optional reads p; a missing file is (nil, nil), other errors are
// warnings that name p.
func (r *reader) optional(p string, max int64) []byte {
	data, err := sysread.File(r.root, p, max)
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

// sysctls are the kernel values host reads, with the count of numbers each
// file holds.
var sysctls = []struct {
	name string
	n    int
}{
	{"fs.file-max", 1},
	{"fs.file-nr", 3},
	{"fs.nr_open", 1},
	{"fs.epoll.max_user_watches", 1},
	{"net.core.somaxconn", 1},
	{"net.ipv4.tcp_max_syn_backlog", 1},
	{"net.ipv4.tcp_syncookies", 1},
	{"net.ipv4.ip_local_port_range", 2},
	{"net.ipv4.tcp_tw_reuse", 1},
	{"net.ipv4.tcp_tw_recycle", 1},
	{"net.ipv4.tcp_timestamps", 1},
	{"net.ipv4.tcp_fin_timeout", 1},
	{"net.ipv4.tcp_mem", 3},
	{"net.ipv4.tcp_rmem", 3},
	{"net.ipv4.tcp_wmem", 3},
	{"net.netfilter.nf_conntrack_max", 1},
	{"net.netfilter.nf_conntrack_count", 1},
}

// sysctlFile maps a sysctl name to its file: dots are slashes.
func sysctlFile(name string) string {
	return "/proc/sys/" + strings.ReplaceAll(name, ".", "/")
}

// Inspect reads everything host knows about the target. It fails only when
// the target does not exist or nothing at all could be read; lesser
// problems are Summary.Warnings and the rest is still analysed.
func Inspect(opt Options) (*Summary, error) {
	return InspectContext(context.Background(), opt)
}

// InspectContext is Inspect whose -watch ends early, with an error, when
// ctx is done.
func InspectContext(ctx context.Context, opt Options) (*Summary, error) {
	if opt.Conns <= 0 {
		return nil, fmt.Errorf("conns %d: want a positive number of connections", opt.Conns)
	}
	if opt.PID < 0 {
		return nil, fmt.Errorf("pid %d: not a process ID", opt.PID)
	}
	live := opt.live()
	if live && runtime.GOOS != "linux" {
		return nil, ErrNeedsLinux
	}
	r := &reader{root: opt.Sysroot}
	if r.root == "" {
		r.root = "/"
	}
	if st, err := os.Stat(r.root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("sysroot %s is not a directory", r.root)
	}
	procDir := "/proc/self"
	if opt.PID != 0 {
		procDir = "/proc/" + strconv.Itoa(opt.PID)
		if _, err := sysread.Stat(r.root, procDir); err != nil {
			return nil, fmt.Errorf("process %d does not exist (%s: %v)", opt.PID, procDir, unwrapPath(err))
		}
	}
	s := &Summary{
		Target:   Target{PID: opt.PID, Sysroot: r.root},
		Conns:    opt.Conns,
		Dial:     opt.Dial,
		settings: map[string]setting{},
	}
	if status := r.optional(procDir+"/status", 0); status != nil && opt.PID != 0 {
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				s.Target.Name = strings.TrimSpace(v)
				break
			}
		}
	}

	for _, sc := range sysctls {
		file := sysctlFile(sc.name)
		data := r.optional(file, 0)
		if data == nil {
			continue
		}
		v, err := ParseInts(data, sc.n)
		if err != nil {
			r.warn("%s: %v", file, err)
			continue
		}
		s.settings[sc.name] = setting{file: file, v: v}
		s.Settings = append(s.Settings, Setting{Name: sc.name, File: file, Value: strings.Join(strings.Fields(string(data)), " ")})
	}

	if data := r.optional(procDir+"/limits", 0); data != nil {
		soft, hard, err := ParseNofile(data)
		if err != nil {
			r.warn("%s/limits: %v", procDir, err)
		} else {
			s.Nofile = &Nofile{File: procDir + "/limits", Soft: soft, Hard: hard}
		}
	}
	if data := r.optional("/proc/net/sockstat", 0); data != nil {
		st, err := ParseSockstat(data)
		if err != nil {
			r.warn("/proc/net/sockstat: %v", err)
		} else {
			s.Sockstat = &st
			if d6 := r.optional("/proc/net/sockstat6", 0); d6 != nil {
				if n, err := ParseSockstat6(d6); err == nil {
					s.Sockstat.TCP6InUse = n
				} else {
					r.warn("/proc/net/sockstat6: %v", err)
				}
			}
		}
	}
	if data := r.optional("/proc/net/netstat", 0); data != nil {
		m, err := ParseNetstat(data)
		if err != nil {
			r.warn("/proc/net/netstat: %v", err)
		} else {
			if v, ok := m["ListenOverflows"]; ok {
				s.ListenOverflows = &v
			}
			if v, ok := m["ListenDrops"]; ok {
				s.ListenDrops = &v
			}
		}
	}
	r.readMemory(s, procDir)
	if opt.PID != 0 {
		s.Process = r.readProcess(s, procDir)
		if live && r.checkNetns(procDir) {
			r.backlogs(s.Process)
		}
	}
	if len(s.Settings) == 0 && s.Nofile == nil {
		return nil, fmt.Errorf("nothing could be analysed under %s (no /proc/sys values, no %s/limits): %s",
			r.root, procDir, strings.Join(r.warnings, "; "))
	}
	if opt.Watch > 0 && opt.PID != 0 {
		if !live {
			r.warn("watching the descriptors needs the live system: a copy of /proc is a snapshot")
		} else {
			w, err := watch(ctx, r, procDir, opt)
			if err != nil {
				return nil, err
			}
			s.Watch = w
			// Report the sockets as the watch left them, so that the count
			// of those that stayed never exceeds the count shown.
			if p := r.readProcess(s, procDir); p != nil {
				s.Process = p
			}
		}
	}
	s.PerConn = Assumed
	if opt.PerConn != nil {
		s.PerConn = *opt.PerConn
	}
	s.Warnings = r.warnings
	s.Notes = r.notes
	computeLimits(s, opt)
	return s, nil
}

// readMemory finds what connections may use: the process's cgroup headroom
// first (the limit the OOM killer enforces), then the host's MemAvailable.
func (r *reader) readMemory(s *Summary, procDir string) {
	if data := r.optional("/proc/meminfo", 0); data != nil {
		if v, ok := ParseMeminfo(data, "MemAvailable"); ok {
			s.Memory.HostAvailable = v
			s.Memory.AvailableBytes, s.Memory.AvailableFrom = v, "/proc/meminfo MemAvailable"
		} else {
			r.warn("/proc/meminfo: no MemAvailable")
		}
	}
	if env := r.optional(procDir+"/environ", 0); env != nil {
		s.Memory.EnvRead = true
		if v, ok := EnvValue(env, "GOMEMLIMIT"); ok {
			s.Memory.GOMEMLIMIT = &v
		}
	}
	mi := r.optional(procDir+"/mountinfo", 0)
	cg := r.optional(procDir+"/cgroup", 0)
	if mi == nil || cg == nil {
		return
	}
	mounts, err := cgroup.ParseMountinfo(mi)
	if err != nil {
		r.warn("%s/mountinfo: %v", procDir, err)
		return
	}
	entries, err := cgroup.ParseProcCgroup(cg)
	if err != nil {
		r.warn("%s/cgroup: %v", procDir, err)
		return
	}
	dir, err := cgroup.Locate(mounts, entries, "memory")
	if err != nil {
		if !errors.Is(err, cgroup.ErrNoCgroup) {
			r.warn("memory cgroup: %v", err)
		}
		return
	}
	limitName, usageName := "memory.max", "memory.current"
	if dir.Version == 1 {
		limitName, usageName = "memory.limit_in_bytes", "memory.usage_in_bytes"
	}
	// The tightest headroom over the levels: a parent's limit is shared by
	// its children, so its own usage counts against it.
	best := int64(-1)
	for _, d := range dir.Levels() {
		data := r.optional(d+"/"+limitName, 0)
		if data == nil {
			continue
		}
		limit, err := cgroup.ParseMemoryLimit(data)
		if err != nil {
			r.warn("%s/%s: %v", d, limitName, err)
			continue
		}
		if limit == 0 || limit > 1<<62 {
			continue
		}
		var usage int64
		if u := r.optional(d+"/"+usageName, 0); u != nil {
			if v, err := cgroup.ParseInt(u); err == nil && v > 0 {
				usage = v
			}
		}
		headroom := max(int64(limit)-usage, 0)
		if best < 0 || headroom < best {
			best = headroom
			s.Memory.CgroupLimitBytes, s.Memory.CgroupLimitFile, s.Memory.CgroupUsageBytes = int64(limit), d+"/"+limitName, usage
		}
	}
	if best >= 0 && (s.Memory.HostAvailable == 0 || best < s.Memory.HostAvailable) {
		s.Memory.AvailableBytes, s.Memory.AvailableFrom = best, s.Memory.CgroupLimitFile
	}
}

// checkNetns warns when the target lives in another network namespace:
// /proc/sys/net then shows this process's namespace, not the target's.
// It reports whether the namespace is known to be the same.
func (r *reader) checkNetns(procDir string) bool {
	theirs, err1 := os.Readlink(procDir + "/ns/net")
	ours, err2 := os.Readlink("/proc/self/ns/net")
	if err1 != nil || err2 != nil {
		return false
	}
	if theirs != ours {
		r.warn("%s is in another network namespace (%s, ours %s): the net.* values read are this namespace's; run schedoctor inside the target's (nsenter -t PID -n)", procDir, theirs, ours)
		return false
	}
	return true
}

// backlogs fills in the listeners' backlogs from sock_diag (the live
// system, same network namespace). Failing that, SD602 compares the accept
// queues with somaxconn, the backlog Go asks for, and says nothing of the
// listeners' own.
func (r *reader) backlogs(p *Process) {
	if p == nil || len(p.Listeners) == 0 {
		return
	}
	m, err := listenBacklogs()
	if err != nil {
		r.notes = append(r.notes, fmt.Sprintf("listen backlogs unknown (%v): accept queues are compared with net.core.somaxconn", err))
		return
	}
	for i := range p.Listeners {
		p.Listeners[i].Backlog = m[p.Listeners[i].inode]
	}
}
