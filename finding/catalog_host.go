package finding

// Host rules (SD6xx), detected by `schedoctor host` (package host): the
// kernel limits that decide how many connections one host can hold.
var hostRules = []Rule{
	{
		ID: "SD601", Name: "fd-limit", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "file-descriptor limits below the connections wanted",
		Explanation: "Every connection is a descriptor. RLIMIT_NOFILE (Go raises the soft limit to the hard one since 1.19), " +
			"fs.nr_open and fs.file-max cap them; accept fails with EMFILE beyond.",
		Detection: "The process's hard RLIMIT_NOFILE, fs.nr_open and fs.file-max against the target connection count.",
		Fix:       "Raise LimitNOFILE (systemd), ulimit -Hn, fs.nr_open and fs.file-max.",
	},
	{
		ID: "SD602", Name: "accept-backlog", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "accept backlog too short for connection bursts",
		Explanation: "net.core.somaxconn caps every listen backlog (Go asks for it) and tcp_max_syn_backlog caps half-open " +
			"connections; bursts beyond are dropped and retried after a second.",
		Detection: "net.core.somaxconn and net.ipv4.tcp_max_syn_backlog from /proc/sys.",
		Fix:       "Raise net.core.somaxconn and net.ipv4.tcp_max_syn_backlog (e.g. 4096 or more).",
	},
	{
		ID: "SD603", Name: "ephemeral-ports", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "ephemeral port range too small for outgoing connections",
		Explanation: "Each outgoing connection to one destination uses a local port from ip_local_port_range; connections " +
			"in TIME_WAIT hold theirs for 60s.",
		Detection: "net.ipv4.ip_local_port_range size against the target outgoing connection count.",
		Fix:       "Widen ip_local_port_range, reuse connections (keep-alive, pools), or spread over more source addresses.",
	},
	{
		ID: "SD604", Name: "conntrack-table", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "conntrack table near its maximum",
		Explanation: "With netfilter connection tracking loaded, every connection takes a table entry; when the table is " +
			"full new packets are dropped ('nf_conntrack: table full').",
		Detection: "net.netfilter.nf_conntrack_count against nf_conntrack_max.",
		Fix:       "Raise nf_conntrack_max (and the hash size), or exempt the traffic from tracking.",
	},
	{
		ID: "SD605", Name: "harmful-sysctl", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "obsolete or harmful kernel settings",
		Explanation: "Some widely copied tunings break things: tcp_tw_recycle (removed in Linux 4.12) dropped connections " +
			"behind NAT.",
		Detection: "Known harmful values in /proc/sys.",
		Fix:       "Remove the setting from sysctl.conf.",
	},
	{
		ID: "SD606", Name: "epoll-watches", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title: "epoll max_user_watches below the connections wanted",
		Explanation: "Go's netpoller registers every connection with epoll; fs.epoll.max_user_watches caps the watches " +
			"per user.",
		Detection: "fs.epoll.max_user_watches against the target connection count.",
		Fix:       "Raise fs.epoll.max_user_watches.",
	},
	{
		ID: "SD607", Name: "memory-per-connection", Severity: Info, Sources: []Source{SourceHost}, Status: Planned,
		Title: "memory per connection sets the connection ceiling",
		Explanation: "A goroutine per connection costs at least its stack (2 KiB, growing), buffers and kernel socket " +
			"memory; memory divided by that is the real ceiling.",
		Detection: "Memory available against a per-connection estimate (goroutine stack, read/write buffers, tcp_rmem/tcp_wmem).",
		Fix:       "Shrink per-connection buffers, or move idle connections off dedicated goroutines.",
	},
	{
		ID: "SD608", Name: "connection-leak", Severity: Warning, Sources: []Source{SourceHost}, Status: Planned,
		Title:       "sockets pile up in CLOSE_WAIT or descriptors keep growing",
		Explanation: "CLOSE_WAIT means the peer closed and the program never did: a missing Close, often a response body.",
		Detection:   "Sockets in CLOSE_WAIT for the process, and its descriptor count over time.",
		Fix:         "Close connections and response bodies on every path (defer resp.Body.Close()).",
	},
}
