// Package procs compares the GOMAXPROCS a Go process runs with against the
// CPUs it may really use: its affinity mask, its cpuset, and the CFS quota of
// its cgroup and of every ancestor (cgroup v1, v2 or both). It reads the
// binary's build information to apply its Go version's rules (the 1.25
// container-aware default, automaxprocs' rounding, the GOMAXPROCS variable),
// reads throttling, CPU pressure and the memory limit, and turns what it
// finds into findings SD401–SD408.
//
// Everything is read under a sysroot (Options.Sysroot, default "/"), so a
// copy of another machine's /proc and /sys (the fixture trees under
// testdata/) stands in for the live system. Only two things need the live
// system: the affinity mask comes from sched_getaffinity and the live
// GOMAXPROCS from the process's memory, both on Linux only.
//
// Inspect gathers the figures into a Summary; Findings applies the rules to
// it. Neither keeps state; both are safe to call concurrently.
package procs

import (
	"errors"
	"math"
	"path/filepath"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/procs/cgroup"
	"github.com/schedoctor/schedoctor/procs/gobin"
)

// ErrNeedsLinux is returned when the live system is asked for on an OS that
// has no /proc and cgroups. A -sysroot tree can still be read there.
var ErrNeedsLinux = finding.WithHint(errors.New("procs needs Linux (or a copy of a Linux /proc and /sys to read)"), finding.HintSysroot)

// Options says which process to inspect and where. The zero value inspects
// the current process's context on the live system.
type Options struct {
	// Sysroot is where /proc and /sys are read from; "" or "/" is the live
	// system.
	Sysroot string
	// PID is the process to inspect; 0 means the context of the current
	// process (its cgroups and environment), for the program named by Binary.
	PID int
	// Binary is the Go binary to apply the version rules to, on this machine
	// (not under Sysroot); "" means /proc/PID/exe under Sysroot when PID is
	// set, and none otherwise.
	Binary string
	// Window is how long to sample the process's own CPU wait
	// (/proc/PID/task/*/schedstat, read twice) on the live system; 0 reads
	// the counters once and judges them over the threads' lifetimes. A
	// sysroot tree is a snapshot, so there the lifetime counters are used.
	Window time.Duration
	// MaxFileBytes caps each file read under the sysroot or /proc; a longer
	// file (a symlink to /dev/zero, a runaway mountinfo) is refused and
	// named in a warning. 0 means sysread.DefaultMax (4 MiB).
	MaxFileBytes int64
}

func (o Options) live() bool { return o.Sysroot == "" || filepath.Clean(o.Sysroot) == "/" }

// Summary holds every figure procs read and computed. Paths are as the
// target sees them (/sys/fs/cgroup/...), not under the sysroot.
type Summary struct {
	Target     Target     `json:"target"`
	CPUs       CPUs       `json:"cpus"`
	Cgroup     CgroupInfo `json:"cgroup"`
	Memory     *Memory    `json:"memory,omitempty"`
	Binary     *Binary    `json:"binary,omitempty"`
	Env        Env        `json:"env"`
	GOMAXPROCS GOMAXPROCS `json:"gomaxprocs"`
	// CPUWait is the process's own run-queue wait, from its threads'
	// schedstat; nil without -pid or when it could not be read.
	CPUWait  *CPUWait `json:"cpu_wait,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Notes say what could not be told and why: host-wide pressure only,
	// rules left undecided by an unreadable input.
	Notes []string `json:"notes,omitempty"`
	// Undecided lists the rules that could not be decided because an input
	// they depend on was unreadable or malformed (also worded in Notes).
	// A report with no findings and Undecided rules is not a clean bill.
	Undecided []Undecided `json:"undecided,omitempty"`
	available availability
	gaps      gaps
	// statusFile is /proc/PID/status, the file that shows the affinity
	// mask (Cpus_allowed_list) when it was read with sched_getaffinity.
	statusFile string
}

// Target is what was inspected.
type Target struct {
	PID     int    `json:"pid,omitempty"` // 0: the current process's context
	Name    string `json:"name,omitempty"`
	Sysroot string `json:"sysroot"`
}

// CPUs are the CPU sets the target may run on.
type CPUs struct {
	Affinity       int    `json:"affinity"` // CPUs in the affinity mask; 0 if unknown
	AffinityList   string `json:"affinity_list,omitempty"`
	AffinitySource string `json:"affinity_source,omitempty"` // "sched_getaffinity" or the status file
	Cpuset         int    `json:"cpuset,omitempty"`
	CpusetList     string `json:"cpuset_list,omitempty"`
	CpusetFile     string `json:"cpuset_file,omitempty"`
	Online         int    `json:"online,omitempty"`
	OnlineList     string `json:"online_list,omitempty"`
	// Available is the tightest of the affinity, the cpuset and every
	// cgroup level's quota, in CPUs; AvailableFrom names what set it.
	Available     float64 `json:"available"`
	AvailableFrom string  `json:"available_from"`
	AvailableFile string  `json:"available_file,omitempty"`
}

// CgroupInfo is the target's CPU cgroup, leaf first.
type CgroupInfo struct {
	Version string  `json:"version"` // "v1", "v2", "hybrid" or "none"
	Leaf    string  `json:"leaf,omitempty"`
	Levels  []Level `json:"levels,omitempty"`
	// Pressure is the process's own cgroup's cpu.pressure (the leaf of the
	// unified hierarchy); nil on cgroup v1 or where the leaf has none.
	Pressure *PressureInfo `json:"pressure,omitempty"`
	// HostPressure is /proc/pressure/cpu, the whole machine's: context,
	// never the process's own figure.
	HostPressure *PressureInfo `json:"host_pressure,omitempty"`
}

// Level is one cgroup directory from the leaf up.
type Level struct {
	Dir        string        `json:"dir"`
	QuotaFile  string        `json:"quota_file,omitempty"` // cpu.max or cpu.cfs_quota_us, when present
	Quota      *cgroup.Quota `json:"quota,omitempty"`
	LimitCPUs  float64       `json:"limit_cpus,omitempty"` // quota/period; 0 for no limit
	Throttling *Throttling   `json:"throttling,omitempty"`
}

// Throttling is a level's cpu.stat bandwidth counters, cumulative since the
// cgroup was created.
type Throttling struct {
	File             string  `json:"file"`
	Periods          uint64  `json:"nr_periods"`
	Throttled        uint64  `json:"nr_throttled"`
	ThrottledSeconds float64 `json:"throttled_seconds"`
}

// PressureInfo is CPU pressure stall information of a cgroup or of the
// whole system (File says which).
type PressureInfo struct {
	File string `json:"file"`
	cgroup.Pressure
}

// CPUWait is how long the process's threads waited on a run queue, from
// field 2 of /proc/PID/task/*/schedstat (field 1 is the time on a CPU,
// field 3 the number of times a thread was put on a CPU).
type CPUWait struct {
	Files   string `json:"files"` // the pattern read, as the target sees it
	Threads int    `json:"threads"`
	// WindowSeconds is the sampling window; 0 when the counters were read
	// once and cover each thread's lifetime.
	WindowSeconds float64 `json:"window_seconds"`
	WaitSeconds   float64 `json:"wait_seconds"` // run-queue wait in the window (or lifetime)
	RunSeconds    float64 `json:"run_seconds"`  // time on a CPU in the window (or lifetime)
	// Share is wait / (wait + run): of the time the threads wanted a CPU,
	// the share they spent waiting for one.
	Share float64 `json:"share"`
	// WaitingThreads is wait / window: threads waiting on average (window only).
	WaitingThreads float64 `json:"waiting_threads,omitempty"`
	// Timeslices is how many times the threads were put on a CPU
	// (schedstat field 3, "timeslices run"), in the window or lifetime.
	// Each wake-up and each return after a preemption is one.
	Timeslices int64 `json:"timeslices"`
	// WaitPerTimeslice is wait / Timeslices in seconds: how long a thread
	// waited each time before it got a CPU; 0 when Timeslices is 0.
	WaitPerTimeslice float64 `json:"wait_per_timeslice_seconds,omitempty"`
}

// Memory is the tightest memory limit over the target's memory cgroup levels.
type Memory struct {
	LimitBytes uint64 `json:"limit_bytes"`
	File       string `json:"file"`
}

// Binary is the target program as its build information describes it.
type Binary struct {
	Path  string `json:"path"`
	IsGo  bool   `json:"is_go"`
	NotGo bool   `json:"not_go,omitempty"` // read, and not a Go binary
	Error string `json:"error,omitempty"`  // why it could not be used
	*gobin.Info
	// ContainerMaxProcs and UpdateMaxProcs are the effective GODEBUG
	// values (DefaultGODEBUG, then the GODEBUG variable): "1" on, "0" off, ""
	// when the toolchain predates them.
	ContainerMaxProcs string `json:"containermaxprocs,omitempty"`
	UpdateMaxProcs    string `json:"updatemaxprocs,omitempty"`
}

// Env is the target's environment as far as GOMAXPROCS, GODEBUG and
// GOMEMLIMIT go. Read is false when it could not be read.
type Env struct {
	File       string  `json:"file"`
	Read       bool    `json:"read"`
	GOMAXPROCS *string `json:"GOMAXPROCS"`
	GODEBUG    *string `json:"GODEBUG"`
	GOMEMLIMIT *string `json:"GOMEMLIMIT"`
}

// GOMAXPROCS is what the target runs with and what it should.
type GOMAXPROCS struct {
	// Value is the GOMAXPROCS the target runs with: Live when read from the
	// running process, else Computed. 0 when it does not apply (not Go).
	Value    int    `json:"value"`
	Origin   string `json:"origin"` // "live" or "computed"
	Computed int    `json:"computed"`
	// Rule names the rule that gives Computed: "env", "automaxprocs",
	// "default-container" (Go 1.25+ container-aware), "default-cpus"
	// (affinity count), "call" (the live value differs: runtime.GOMAXPROCS).
	Rule      string `json:"rule"`
	Reason    string `json:"reason"` // the rule in words, with the numbers
	Live      int    `json:"live,omitempty"`
	LiveError string `json:"live_error,omitempty"`
	// DefaultWouldBe is what the Go 1.25+ container-aware default gives here.
	DefaultWouldBe int `json:"default_would_be"`
	Recommended    int `json:"recommended"`
}

// availability keeps the inputs the rules need in typed form.
type availability struct {
	leafQuota   float64 // CPUs; +Inf for none
	tightest    float64 // CPUs over every level; +Inf for none
	tightestDir string
	tightestIdx int // level index; -1 for none
}

// ceilCPUs rounds a CPU count up, tolerating float noise (1.0000000001 is 1).
func ceilCPUs(v float64) int {
	if math.IsInf(v, 1) {
		return math.MaxInt32
	}
	return int(math.Ceil(v - 1e-9))
}
