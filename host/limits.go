package host

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Thresholds of the rules that are not a plain count against the target.
const (
	// backlogFloor is the somaxconn below which SD602 warns: the kernel's
	// default since Linux 5.4 (128 before), which Go passes to listen(2).
	backlogFloor = 4096
	// conntrackFull is the share of nf_conntrack_max in use at which SD604
	// warns whatever the target: the table fills with any traffic spike.
	conntrackFullShare = 0.8
	// queueFull is the share of the backlog a listener's accept queue must
	// hold, when read, to say the server accepts too slowly.
	queueFull = 0.9
	// sysctlFile is where the fix lines go.
	sysctlConf = "/etc/sysctl.d/90-connections.conf"
	pageSize   = 4096
)

// headroom is the value the fixes set for a target of n connections: 10%
// and a thousand descriptors over it (listeners, log files, the runtime's
// own), rounded up to three significant digits so the line reads well.
func headroom(n int64) int64 {
	v := n + n/10 + 1024
	scale := int64(1)
	for v/scale >= 1000 {
		scale *= 10
	}
	return (v + scale - 1) / scale * scale
}

func (s *Summary) get(name string) (setting, bool) {
	v, ok := s.settings[name]
	return v, ok
}

// Value returns the first number of a sysctl that was read.
func (s *Summary) Value(name string) (int64, bool) {
	v, ok := s.settings[name]
	if !ok || len(v.v) == 0 {
		return 0, false
	}
	return v.v[0], true
}

// computeLimits turns the figures read into the caps on the connection
// count, tightest first, and the answer.
func computeLimits(s *Summary, opt Options) {
	n := s.Conns
	want := headroom(n)
	var ls []Limit
	// A proxy holds two descriptors (and two tracked connections) per
	// client connection: the limits that count descriptors hold half as
	// many connections.
	perFD := s.PerConn.fds()
	byFD := func(v int64) int64 {
		if perFD <= 1 || v >= math.MaxInt64/2 {
			return v
		}
		return int64(float64(v) / perFD)
	}
	fdWhy := ""
	if perFD > 1 {
		fdWhy = fmt.Sprintf("; %.1f descriptors per connection (measured by the probe), so %.1f times fewer connections", perFD, perFD)
		want = headroom(int64(math.Ceil(float64(n) * perFD)))
	}
	add := func(l Limit) {
		l.Capacity = max(l.Capacity, 0)
		l.Bites = l.Capacity < n
		ls = append(ls, l)
	}

	nrOpen, haveNrOpen := s.Value("fs.nr_open")
	// Descriptors the process holds for other things than connections
	// count against its limit.
	var others int64
	if p := s.Process; p != nil {
		conns := 0
		for st, c := range p.ByState {
			if st != "LISTEN" {
				conns += c
			}
		}
		others = int64(max(p.FDs-conns, 0))
	}
	if nf := s.Nofile; nf != nil {
		why := "the hard limit this shell passes on to what it starts (Go raises the soft limit to it at start)"
		value := "hard " + count(nf.Hard)
		if s.Target.PID != 0 {
			why = fmt.Sprintf("the hard limit of pid %d (Go raises the soft limit %s to it at start)", s.Target.PID, count(nf.Soft))
			value = fmt.Sprintf("soft %s, hard %s", count(nf.Soft), count(nf.Hard))
		}
		if others > 0 {
			why += fmt.Sprintf(", less %d descriptors open for other things", others)
		}
		fix := fmt.Sprintf("# systemd unit (systemctl edit SERVICE):\n[Service]\nLimitNOFILE=%d\n# or /etc/security/limits.conf, for login sessions:\n* hard nofile %d\n* soft nofile %d", want, want, want)
		if haveNrOpen && want > nrOpen {
			// The order matters: a limit above fs.nr_open fails setrlimit,
			// so the unit fails to start and, through pam_limits, logins
			// fail: the sysctl goes first.
			fix = fmt.Sprintf("# first fs.nr_open (%d): a hard limit above it fails (the service does not start, logins are refused)\n# in %s, then sysctl --system:\nfs.nr_open = %d\n# then, in the ", nrOpen, sysctlConf, want) +
				strings.TrimPrefix(fix, "# ")
		}
		// Without -pid, /proc/self is schedoctor's own view, whose soft limit
		// Go has already raised: only the hard one is the shell's.
		add(Limit{Rule: "SD601", Name: "RLIMIT_NOFILE (hard)", File: nf.File, Value: value,
			Capacity: byFD(satSub(nf.Hard, others)), Why: why + fdWhy, Fix: fix})
	}
	if haveNrOpen {
		add(Limit{Rule: "SD601", Name: "fs.nr_open", File: sysctlFile("fs.nr_open"), Value: count(nrOpen), Capacity: byFD(satSub(nrOpen, others)),
			Why: "the most descriptors any process may have: no RLIMIT_NOFILE can be set above it" + fdWhy,
			Fix: fmt.Sprintf("# %s, then sysctl --system (before raising LimitNOFILE)\nfs.nr_open = %d", sysctlConf, want)})
	}
	if fm, ok := s.get("fs.file-max"); ok {
		used := int64(0)
		if nr, ok := s.get("fs.file-nr"); ok && len(nr.v) == 3 {
			used = nr.v[0]
		}
		add(Limit{Rule: "SD601", Name: "fs.file-max", File: fm.file, Value: count(fm.v[0]), Capacity: byFD(satSub(fm.v[0], used)),
			Why: fmt.Sprintf("open files of the whole host, %s in use (/proc/sys/fs/file-nr)", count(used)) + fdWhy,
			Fix: fmt.Sprintf("# %s, then sysctl --system\nfs.file-max = %d", sysctlConf, satAdd(want, used))})
	}
	if w, ok := s.get("fs.epoll.max_user_watches"); ok {
		add(Limit{Rule: "SD606", Name: "fs.epoll.max_user_watches", File: w.file, Value: count(w.v[0]), Capacity: byFD(w.v[0]),
			Why: "Go's netpoller registers every connection with epoll; the cap is per user, over all of the user's processes" + fdWhy,
			Fix: fmt.Sprintf("# %s, then sysctl --system\nfs.epoll.max_user_watches = %d", sysctlConf, want)})
	}
	if cm, ok := s.get("net.netfilter.nf_conntrack_max"); ok {
		used, haveCount := s.Value("net.netfilter.nf_conntrack_count")
		fix := fmt.Sprintf("# %s, then sysctl --system\nnet.netfilter.nf_conntrack_max = %d", sysctlConf, satAdd(want, used))
		if p := s.Process; p != nil && len(p.Listeners) > 0 {
			_, port, _ := strings.Cut(lastColon(p.Listeners[0].Addr), ":")
			fix += fmt.Sprintf("\n# or exempt the server's port from tracking:\niptables -t raw -I PREROUTING -p tcp --dport %s -j CT --notrack", port)
		}
		l := Limit{Rule: "SD604", Name: "net.netfilter.nf_conntrack_max", File: cm.file, Value: fmt.Sprintf("%s (%s in use)", count(cm.v[0]), count(used)),
			Capacity: byFD(satSub(cm.v[0], used)), Why: "every tracked connection takes an entry; when the table is full new connections are dropped (nf_conntrack: table full)" + fdWhy,
			Fix: fix}
		// Current kernels hook conntrack into a network namespace only when a
		// rule needs it (NAT, -m conntrack, nft ct): the table can be there
		// and track nothing. An empty table while this namespace has TCP
		// sockets (TIME_WAIT ones stay tracked for 120s) says so.
		if st := s.Sockstat; st != nil && haveCount && used == 0 {
			if socks := st.TCPInUse + st.TCP6InUse + st.TCPTW; socks > 0 {
				l.Dormant = true
				l.Why = fmt.Sprintf("the table tracks nothing now (0 entries while /proc/net/sockstat shows %d TCP sockets): no rule in this network namespace asks for tracking; it bites once one does (NAT, a stateful firewall, Docker or kube-proxy)", socks)
			}
		}
		add(l)
	}
	if pr, ok := s.get("net.ipv4.ip_local_port_range"); ok && len(pr.v) == 2 && dials(s, opt, pr.v) {
		dests := int64(max(opt.Destinations, 1))
		size := max(pr.v[1]-pr.v[0]+1, 0)
		why := fmt.Sprintf("%d local ports per destination address:port, %d destination(s)", size, dests)
		switch rs, ok := s.Value("net.ipv4.tcp_tw_reuse"); {
		case ok && rs == 0:
			why += "; tcp_tw_reuse 0, so a port stays unusable for 60s (TIME_WAIT) after each close"
		case ok && rs == 2:
			why += "; tcp_tw_reuse 2 (the default since Linux 4.20), so ports in TIME_WAIT (60s after a close) are reused only for loopback destinations"
		}
		perDest := (n + dests - 1) / dests
		// Not from 1024, as copied guides say: a dial may then hold a port
		// a service binds later, which fails with EADDRINUSE. The range
		// starts above the well-known and registered ports the host's
		// services usually take, and the ports of this process's own
		// listeners in it are reserved.
		const lo, hi = 10240, 65535
		wide := int64(hi - lo + 1)
		fix := fmt.Sprintf("# %s, then sysctl --system\nnet.ipv4.ip_local_port_range = %d %d\nnet.ipv4.tcp_tw_reuse = 1", sysctlConf, lo, hi)
		var reserve []string
		if p := s.Process; p != nil {
			for _, l := range p.Listeners {
				if ap, err := netip.ParseAddrPort(l.Addr); err == nil && int(ap.Port()) >= lo && !slices.Contains(reserve, strconv.Itoa(int(ap.Port()))) {
					reserve = append(reserve, strconv.Itoa(int(ap.Port())))
				}
			}
		}
		if len(reserve) > 0 {
			fix += "\n# keep dials off the ports this process listens on:\nnet.ipv4.ip_local_reserved_ports = " + strings.Join(reserve, ",")
		} else {
			fix += fmt.Sprintf("\n# and reserve the ports above %d your services listen on, or they fail to bind when a dial holds one:\n# net.ipv4.ip_local_reserved_ports = PORT,PORT", lo)
		}
		if perDest > wide {
			fix += fmt.Sprintf("\n# even %d ports per destination are fewer than the %d wanted on each: dial from %d source addresses (net.Dialer.LocalAddr) or to more destinations",
				wide, perDest, (perDest+wide-1)/wide)
		}
		add(Limit{Rule: "SD603", Name: "net.ipv4.ip_local_port_range", File: pr.file, Value: fmt.Sprintf("%d %d", pr.v[0], pr.v[1]),
			Capacity: satMul(size, dests), Why: why, Fix: fix})
	}
	if tm, ok := s.get("net.ipv4.tcp_mem"); ok && len(tm.v) == 3 {
		add(Limit{Rule: "SD607", Name: "net.ipv4.tcp_mem (max)", File: tm.file, Value: fmt.Sprintf("%d %d %d pages", tm.v[0], tm.v[1], tm.v[2]),
			Capacity: tm.v[2], Approximate: true,
			Why: fmt.Sprintf("if every connection holds one page (4 KiB) of unsent or unread data at once (a broadcast), TCP buffers reach tcp_mem's hard limit of %d pages (%s) here; idle connections hold none", tm.v[2], bytesWords(float64(tm.v[2]*pageSize))),
			Fix: fmt.Sprintf("# %s (pages: pressure at the second value, hard limit at the third)\nnet.ipv4.tcp_mem = %d %d %d", sysctlConf, want/2, want*3/4, want)})
	}
	if m := s.Memory; m.AvailableBytes > 0 && s.PerConn.Total() > 0 {
		pc := s.PerConn
		capacity := int64(float64(m.AvailableBytes) / pc.Total())
		why := fmt.Sprintf("%s available (%s) / %s per connection (%s process + %s kernel, %s)",
			bytesWords(float64(m.AvailableBytes)), m.AvailableFrom, bytesWords(pc.Total()), bytesWords(pc.ProcessBytes), bytesWords(pc.KernelBytes), pc.Source)
		need := float64(n) * pc.Total()
		fix := fmt.Sprintf("# the connections need about %s: shrink per-connection buffers and goroutines (an event loop, pooled bufio), or give the server more memory", bytesWords(need))
		if m.CgroupLimitFile != "" {
			fix += fmt.Sprintf("\n# systemd unit: [Service] MemoryMax=%d (the cgroup limit, %s)", int64(need*1.1)+m.CgroupUsageBytes, m.CgroupLimitFile)
		}
		add(Limit{Rule: "SD607", Name: "memory", File: memoryFile(m), Value: bytesWords(float64(m.AvailableBytes)),
			Capacity: capacity, Why: why, Fix: fix})
	}
	slices.SortStableFunc(ls, func(a, b Limit) int {
		return cmp.Or(cmp.Compare(a.Capacity, b.Capacity), strings.Compare(a.Name, b.Name))
	})
	s.Limits = ls
	s.Answer = answer(s)
}

// dials reports whether the ephemeral port range matters: the user said
// the process dials, or at least half of the range is held by its own
// outgoing connections.
func dials(s *Summary, opt Options, rng []int64) bool {
	if opt.Dial {
		return true
	}
	if p := s.Process; p != nil && p.Outbound > 0 {
		return int64(p.Outbound)*2 >= rng[1]-rng[0]+1
	}
	return false
}

func memoryFile(m Memory) string {
	if m.CgroupLimitFile != "" && m.AvailableFrom == m.CgroupLimitFile {
		return m.CgroupLimitFile
	}
	return "/proc/meminfo"
}

func lastColon(addr string) string {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return addr
	}
	return addr[i:]
}

// answer is "about N connections; the first limit is X (file, value); then Y".
func answer(s *Summary) Answer {
	var a Answer
	a.Fits = math.MaxInt64
	var counted []Limit
	for _, l := range s.Limits {
		if !l.Approximate && !l.Dormant {
			counted = append(counted, l)
		}
	}
	if len(counted) == 0 {
		a.Fits = 0
	} else {
		a.Fits = counted[0].Capacity
		a.First = fmt.Sprintf("%s (%s: %s)", counted[0].Name, counted[0].File, counted[0].Value)
		if len(counted) > 1 {
			a.Then = fmt.Sprintf("%s (%s: %s) at %s", counted[1].Name, counted[1].File, counted[1].Value, count(counted[1].Capacity))
		}
	}
	m := s.Memory
	switch {
	case m.CgroupLimitBytes > 0 && m.GOMEMLIMIT == nil && m.EnvRead:
		a.Runtime = append(a.Runtime, fmt.Sprintf("GOMEMLIMIT is not set under a %s cgroup limit (%s): set GOMEMLIMIT=%dMiB (90%%) so the GC works harder before the OOM killer does",
			bytesWords(float64(m.CgroupLimitBytes)), m.CgroupLimitFile, m.CgroupLimitBytes*9/10>>20))
	case m.CgroupLimitBytes > 0 && m.GOMEMLIMIT != nil:
		a.Runtime = append(a.Runtime, fmt.Sprintf("GOMEMLIMIT=%s under a %s cgroup limit (%s)", *m.GOMEMLIMIT, bytesWords(float64(m.CgroupLimitBytes)), m.CgroupLimitFile))
	}
	a.Runtime = append(a.Runtime, "a goroutine per connection costs at least its stack (2 KiB at start, doubling as it grows; since Go 1.19 new stacks start at the average size seen at the last GC): two goroutines and a bufio pair per connection cost about 20-30 KB, a single goroutine with small buffers 4-12 KB")
	return a
}

// count prints a limit, "unlimited" for the largest values.
func count(v int64) string {
	if v >= math.MaxInt64/2 {
		return "unlimited"
	}
	return strconv.FormatInt(v, 10)
}

func satSub(a, b int64) int64 {
	if a >= math.MaxInt64/2 {
		return a
	}
	return max(a-b, 0)
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// bytesWords prints a byte count in binary units with three digits.
func bytesWords(b float64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + " MiB"
	case b >= 1<<10:
		return strconv.FormatFloat(b/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
