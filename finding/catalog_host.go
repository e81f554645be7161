package finding

// Host rules (SD6xx), detected by `schedoctor host` (package host): the
// kernel limits that decide how many connections one host can hold. Each
// finding is located at the file it read (/proc/sys/fs/nr_open), says at
// how many connections the limit bites and its rank among the limits below
// the target, and carries the lines that lift it.
var hostRules = []Rule{
	{
		ID: "SD601", Name: "fd-limit", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "file-descriptor limits below the connections wanted",
		Since: "2026-11-22",
		Explanation: "Every connection is a descriptor. RLIMIT_NOFILE (Go raises the soft limit to the hard one since 1.19), " +
			"fs.nr_open and fs.file-max cap them; accept fails with EMFILE (process) or ENFILE (host) beyond.",
		Detection: "The hard RLIMIT_NOFILE of /proc/PID/limits less the descriptors the process holds for other things, " +
			"fs.nr_open (no limit can be set above it), and fs.file-max less fs.file-nr's allocated count, each against " +
			"the target connection count (-conns), divided by the descriptors per connection when the probe measured " +
			"two (a proxy).",
		Fix: "LimitNOFILE= in the systemd unit (or nofile in /etc/security/limits.conf), fs.nr_open first when the new " +
			"limit exceeds it, fs.file-max in /etc/sysctl.d; the finding prints the lines with 10% headroom.",
	},
	{
		ID: "SD602", Name: "accept-backlog", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "accept backlog too short for connection bursts",
		Since: "2026-11-22",
		Explanation: "net.core.somaxconn caps every listen backlog (Go asks for it) and, without syncookies, " +
			"tcp_max_syn_backlog caps half-open connections; bursts beyond are dropped and the SYNs retried after 1s, 3s, 7s.",
		Detection: "net.core.somaxconn, and tcp_max_syn_backlog without syncookies, below a floor and the target; a listener " +
			"whose accept queue nearly fills somaxconn; on the live system, a listener whose own backlog is below " +
			"somaxconn, the floor and the target.",
		Details: "The floor is the kernel's default since Linux 5.4. A listener's accept queue is the rx_queue of " +
			"/proc/PID/net/tcp{,6}; its own backlog is read with sock_diag (ss's Send-Q): it listened before " +
			"somaxconn was raised. ListenOverflows of /proc/net/netstat is shown as evidence.",
		Fix: "Raise net.core.somaxconn (and tcp_max_syn_backlog, keep tcp_syncookies 1), restart the server so Go " +
			"listens with the new value, and accept in a loop that does nothing else.",
	},
	{
		ID: "SD603", Name: "ephemeral-ports", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "ephemeral port range too small for outgoing connections",
		Since: "2026-11-22",
		Explanation: "Each outgoing connection to one destination uses a local port from ip_local_port_range; connections " +
			"in TIME_WAIT hold theirs for 60s, and tcp_tw_reuse other than 1 reuses them only towards loopback.",
		Detection: "With -dial (or when the process's own outgoing connections hold half the range), the range's size " +
			"times the destinations (-dests) against the target.",
		Fix: "Widen ip_local_port_range (10240 65535, with the services' own ports above 10240 in ip_local_reserved_ports: " +
			"a range from 1024 lets a dial take a port a service binds later), set tcp_tw_reuse = 1, reuse connections (keep-alive, pools), or " +
			"spread over more source addresses or destinations.",
	},
	{
		ID: "SD604", Name: "conntrack-table", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "conntrack table near its maximum",
		Since: "2026-11-22",
		Explanation: "With netfilter connection tracking loaded, every connection takes a table entry; when the table is " +
			"full new packets are dropped ('nf_conntrack: table full').",
		Detection: "nf_conntrack_max less nf_conntrack_count against the target; or, whatever the target, most of the table " +
			"in use now.",
		Details: "Quiet when the conntrack module is not loaded (no files); info only, and left out of the answer, when " +
			"the table is empty while /proc/net/sockstat shows TCP sockets (no rule tracks in this namespace).",
		Fix: "Raise net.netfilter.nf_conntrack_max, or exempt the server's port from tracking (raw table, CT --notrack).",
	},
	{
		ID: "SD605", Name: "harmful-sysctl", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "obsolete or harmful kernel settings",
		Since: "2026-11-22",
		Explanation: "Some widely copied tunings break things: tcp_tw_recycle (removed in Linux 4.12) dropped connections " +
			"from clients behind NAT; tcp_timestamps = 0 makes tcp_tw_reuse a no-op and loses PAWS.",
		Detection: "net.ipv4.tcp_tw_recycle present and not 0; net.ipv4.tcp_timestamps 0 when the process dials or " +
			"tcp_tw_reuse is 1.",
		Fix: "Remove the setting from /etc/sysctl.conf and /etc/sysctl.d, and set it back at run time.",
	},
	{
		ID: "SD606", Name: "epoll-watches", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "epoll max_user_watches below the connections wanted",
		Since: "2026-11-22",
		Explanation: "Go's netpoller registers every connection with epoll; fs.epoll.max_user_watches caps the watches " +
			"per user, over all of the user's processes (the kernel sizes it at 4% of low memory).",
		Detection: "fs.epoll.max_user_watches against the target connection count.",
		Fix:       "Raise fs.epoll.max_user_watches in /etc/sysctl.d.",
	},
	{
		ID: "SD607", Name: "memory-per-connection", Severity: Info, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title: "memory per connection sets the connection ceiling",
		Since: "2026-11-22",
		Explanation: "A goroutine per connection costs at least its stack (2 KiB, growing), buffers and kernel socket " +
			"memory (about 4 KiB that no Go metric shows); memory divided by that is the real ceiling.",
		Detection: "The memory available (the tightest cgroup level's limit less its usage, else MemAvailable) divided by " +
			"the memory per connection: measured by the probe (-probe, -model), given (-bytes-per-conn), or assumed " +
			"(then info only).",
		Details: "Also tcp_mem's hard limit in pages against connections each holding a page at once (info), and TCP " +
			"buffers in /proc/net/sockstat at or above tcp_mem's pressure mark now (warning).",
		Fix: "Shrink per-connection buffers and goroutines (pooled bufio, an event loop for idle connections), give the " +
			"server more memory, raise tcp_mem; set GOMEMLIMIT under a cgroup limit.",
	},
	{
		ID: "SD608", Name: "connection-leak", Severity: Warning, Sources: []Source{SourceHost}, Status: Implemented, Family: FamilyHost,
		Title:       "sockets pile up in CLOSE_WAIT or descriptors keep growing",
		Since:       "2026-11-22",
		Explanation: "CLOSE_WAIT means the peer closed and the program never did: a missing Close, often a response body.",
		Detection: "The process's sockets by state from /proc/PID/net/tcp{,6} joined with /proc/PID/fd: a pile in CLOSE_WAIT " +
			"at once, or sockets that stay in CLOSE_WAIT for a whole -watch; and descriptors that keep growing over " +
			"the watch.",
		Details: "Reported with the local port that holds most. Descriptor growth must be large in count and share, rising " +
			"in three steps of four and ending at its peak.",
		Fix: "Close connections and response bodies on every path (defer resp.Body.Close()).",
	},
}
