// Package host answers "can this host hold N connections of this server,
// and which limit is hit first?". It reads the kernel limits that cap
// connections (descriptors at three levels, listen backlogs, ephemeral
// ports, conntrack, epoll watches, TCP buffer memory), the target process's
// limits, memory and sockets, and turns them into findings SD601–SD608,
// ordered by the connection count at which each limit bites, each naming the
// file it read and the lines that lift it.
//
// Everything is read under a sysroot (Options.Sysroot, default "/"), so a
// copy of another machine's /proc and /sys (the fixture trees under
// testdata/fixtures) stands in for the live system. Reads go through
// internal/sysread: bounded, and never blocking on a FIFO or device planted
// in a sysroot.
//
// Memory per connection comes from the probe (package host/probe, which
// opens idle connections to a server and measures it), from the user
// (Options.PerConn), or is stated as assumed with the published range.
//
// Inspect gathers the figures into a Summary; Findings applies the rules.
// Neither keeps state; both are safe to call concurrently.
package host

import (
	"time"

	"github.com/schedoctor/schedoctor/host/probe"
)

// Options says which host and process to inspect and for how many
// connections. The zero value (with Conns set) inspects the live system
// from the current process's point of view.
type Options struct {
	// Sysroot is where /proc and /sys are read from; "" or "/" is the live
	// system.
	Sysroot string
	// PID is the server process; 0 means the current process's context
	// (its limits and cgroup), which is what a program started from this
	// shell inherits.
	PID int
	// Conns is the number of connections wanted. Must be positive.
	Conns int64
	// Dial says the process opens the connections itself (a proxy, a
	// load generator, a client): the ephemeral port range then counts.
	Dial bool
	// Destinations is how many distinct destination address:port pairs
	// the dialled connections spread over (each has its own port range);
	// 0 means 1.
	Destinations int
	// PerConn is the memory one connection costs, when known (measured by
	// the probe, or given by the user); nil means assumed (see Assumed).
	PerConn *PerConn
	// Watch, with PID on the live system, samples the process's
	// descriptors and sockets for this long to see them grow (SD608).
	Watch time.Duration
	// WatchEvery is the sampling interval during Watch; 0 means 1s.
	WatchEvery time.Duration
}

// live reports whether the live system is read.
func (o Options) live() bool { return o.Sysroot == "" || o.Sysroot == "/" }

// PerConn is the memory one connection costs.
type PerConn struct {
	// ProcessBytes is the server process's memory per connection (RSS
	// growth, or Go heap and stacks); KernelBytes the kernel's (socket
	// structures, buffers), which no Go metric shows.
	ProcessBytes float64 `json:"process_bytes"`
	KernelBytes  float64 `json:"kernel_bytes"`
	// Source says where the figure came from: "probe", "model goroutine",
	// "-bytes-per-conn", or "assumed".
	Source string `json:"source"`
	// Method says how it was measured or why it was assumed.
	Method string `json:"method,omitempty"`
	// Descriptors is how many descriptors one connection holds in the
	// process, as the probe measured it: 2 for a proxy that dials a
	// backend for each client. 0 means 1. The descriptor-bound limits
	// (RLIMIT_NOFILE, fs.nr_open, fs.file-max, epoll watches, conntrack
	// entries) are divided by it.
	Descriptors float64 `json:"descriptors,omitempty"`
}

// fds is Descriptors with its default.
func (p PerConn) fds() float64 { return max(p.Descriptors, 1) }

// Total is the memory one connection costs, process and kernel.
func (p PerConn) Total() float64 { return p.ProcessBytes + p.KernelBytes }

// Assumed is the per-connection figure used when nothing was measured or
// given: a tuned goroutine-per-connection server (published 4–12 KB; 8 KiB
// taken) plus about 4 KiB of kernel socket memory. The published range runs
// from under 1 KB (event loops) to 20–30 KB (idiomatic net/http with bufio
// pairs), so the finding that rests on it says so and stays informational.
var Assumed = PerConn{
	ProcessBytes: 8 << 10,
	KernelBytes:  4 << 10,
	Source:       "assumed",
	Method: "published figures: under 1 KB (event loop), 4-12 KB (tuned goroutine per connection), " +
		"20-30 KB (net/http or websocket with bufio pairs), plus about 4 KB of kernel memory per socket; " +
		"measure yours with a cost probe",
}

// Summary holds every figure host read and computed. Paths are as the
// target sees them (/proc/sys/fs/nr_open), not under the sysroot.
type Summary struct {
	Target Target `json:"target"`
	// Conns is the number of connections asked about.
	Conns int64 `json:"conns"`
	Dial  bool  `json:"dial,omitempty"`
	// Settings are the kernel values read, in reading order.
	Settings []Setting `json:"settings"`
	// Nofile is the process's RLIMIT_NOFILE; nil when unreadable.
	Nofile   *Nofile   `json:"nofile,omitempty"`
	Sockstat *Sockstat `json:"sockstat,omitempty"`
	// ListenOverflows and ListenDrops are TcpExt counters of
	// /proc/net/netstat: accepts lost to a full backlog since boot.
	ListenOverflows *int64  `json:"listen_overflows,omitempty"`
	ListenDrops     *int64  `json:"listen_drops,omitempty"`
	Memory          Memory  `json:"memory"`
	PerConn         PerConn `json:"per_conn"`
	// Limits are the caps on the connection count, tightest first.
	Limits []Limit `json:"limits"`
	Answer Answer  `json:"answer"`
	// Process is what the target process holds (with -pid).
	Process *Process `json:"process,omitempty"`
	// Probe is the measurement the per-connection figure came from, when
	// the probe ran (the caller sets it).
	Probe *probe.Result `json:"probe,omitempty"`
	// Watch is the descriptor count sampled over -watch.
	Watch    *Watch   `json:"watch,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Notes    []string `json:"notes,omitempty"`

	settings map[string]setting // by sysctl name, typed
}

// Target is what was inspected.
type Target struct {
	PID     int    `json:"pid,omitempty"` // 0: the current process's context
	Name    string `json:"name,omitempty"`
	Sysroot string `json:"sysroot"`
}

// Setting is one kernel value as read.
type Setting struct {
	Name  string `json:"name"` // sysctl name: net.core.somaxconn
	File  string `json:"file"` // /proc/sys/net/core/somaxconn
	Value string `json:"value"`
}

type setting struct {
	file string
	v    []int64
}

// Nofile is RLIMIT_NOFILE of the process.
type Nofile struct {
	File string `json:"file"`
	Soft int64  `json:"soft"`
	Hard int64  `json:"hard"`
}

// Memory is what the connections may use.
type Memory struct {
	// AvailableBytes is the tightest of the cgroup's headroom (limit minus
	// usage) and the host's MemAvailable.
	AvailableBytes int64  `json:"available_bytes"`
	AvailableFrom  string `json:"available_from"` // the file that set it
	// CgroupLimitBytes is the tightest memory.max / memory.limit_in_bytes
	// over the process's cgroup levels; 0 for none.
	CgroupLimitBytes int64  `json:"cgroup_limit_bytes,omitempty"`
	CgroupLimitFile  string `json:"cgroup_limit_file,omitempty"`
	CgroupUsageBytes int64  `json:"cgroup_usage_bytes,omitempty"`
	HostAvailable    int64  `json:"host_available_bytes,omitempty"`
	// GOMEMLIMIT is the process's setting from /proc/PID/environ; nil when
	// unset or unreadable (EnvRead says which).
	GOMEMLIMIT *string `json:"GOMEMLIMIT,omitempty"`
	EnvRead    bool    `json:"env_read"`
}

// Limit is one cap on the connection count.
type Limit struct {
	Rule string `json:"rule"`
	Name string `json:"name"` // "RLIMIT_NOFILE (hard)", "fs.nr_open", ...
	File string `json:"file"`
	// Value is the limit as read ("524288", "32768 60999").
	Value string `json:"value"`
	// Capacity is how many more connections it allows (for the process:
	// minus the descriptors already open, where known).
	Capacity int64 `json:"capacity"`
	// Bites is Capacity < the connections wanted.
	Bites bool `json:"bites"`
	// Why says how Capacity follows from Value.
	Why string `json:"why"`
	// Fix holds the lines that lift it to the connections wanted.
	Fix string `json:"fix"`
	// Soft limits are only approximate caps (memory with an assumed
	// per-connection figure, tcp_mem with one page buffered per socket).
	Approximate bool `json:"approximate,omitempty"`
	// Dormant limits exist but do not apply now: a conntrack table that
	// tracks nothing in this network namespace (no rule asks for tracking)
	// bites only once a NAT or stateful-firewall rule starts it. Like
	// approximate ones, they are listed but left out of the answer.
	Dormant bool `json:"dormant,omitempty"`
}

// Answer is the sentence the report leads with.
type Answer struct {
	// Fits is about how many connections this host holds for this
	// server: the smallest capacity.
	Fits  int64  `json:"fits"`
	First string `json:"first,omitempty"` // the limit hit first, with file and value
	Then  string `json:"then,omitempty"`  // the one after it
	// Runtime holds the Go side: GOMEMLIMIT under the cgroup limit, stacks.
	Runtime []string `json:"runtime,omitempty"`
}

// Process is what the target holds: descriptors and sockets by state.
type Process struct {
	FDs     int `json:"fds"`
	Sockets int `json:"sockets"` // descriptors that are sockets; -1 when the fd links could not be read
	// ByState counts the process's TCP sockets (IPv4 and IPv6) by state,
	// joined from /proc/PID/net/tcp{,6} and /proc/PID/fd.
	ByState map[string]int `json:"by_state"`
	// Listeners are the process's listening sockets with their accept
	// queue's current length.
	Listeners []Listener `json:"listeners,omitempty"`
	// CloseWait groups the process's CLOSE_WAIT sockets on its listening
	// ports (connections it accepted) by local port, largest first.
	CloseWait []PortCount `json:"close_wait,omitempty"`
	// CloseWaitPeers groups the CLOSE_WAIT sockets that are not on a
	// listening port (connections the process dialled) by the peer they
	// were dialled to, largest first: a client that leaks response bodies
	// spreads them over ephemeral local ports but few peers.
	CloseWaitPeers []PeerCount `json:"close_wait_peers,omitempty"`
	// Outbound counts established sockets whose local port is in the
	// ephemeral range: connections the process dialled.
	Outbound int    `json:"outbound"`
	Files    string `json:"files"` // what was joined, as the target sees it
}

// Listener is one listening socket.
type Listener struct {
	Addr string `json:"addr"`
	// Queue is the accept queue's length when read (rx_queue).
	Queue uint64 `json:"queue"`
	// Backlog is the listener's backlog (what listen(2) got, capped at
	// somaxconn then), from sock_diag on the live system; 0 when unknown.
	Backlog uint32 `json:"backlog,omitempty"`
	inode   uint64
}

// PortCount is a local port and how many sockets sit on it.
type PortCount struct {
	Port  uint16 `json:"port"`
	Count int    `json:"count"`
}

// PeerCount is a remote address and how many sockets lead to it.
type PeerCount struct {
	Peer  string `json:"peer"`
	Count int    `json:"count"`
}

// Watch is the process's descriptors sampled over time.
type Watch struct {
	Seconds float64 `json:"seconds"`
	// FDs and CloseWait are the samples, first to last.
	FDs       []int `json:"fds"`
	CloseWait []int `json:"close_wait"`
	// StuckCloseWait counts CLOSE_WAIT sockets present in the first sample
	// and still in CLOSE_WAIT in the last (same inode): never closed.
	StuckCloseWait int `json:"stuck_close_wait"`
}
