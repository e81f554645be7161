package host

import (
	"fmt"
	"strconv"

	"github.com/schedoctor/schedoctor/finding"
)

// Thresholds of SD608.
const (
	// closeWaitPile is how many CLOSE_WAIT sockets one snapshot must show:
	// a socket stays in CLOSE_WAIT only between the peer's FIN and the
	// program's Close, normally microseconds, so dozens at once are a pile.
	closeWaitPile = 32
	// closeWaitStuck is how many must survive a whole -watch unchanged.
	closeWaitStuck = 8
	// fdGrowthMin is the least descriptor growth over a watch that counts,
	// and fdGrowthShare the least relative growth.
	fdGrowthMin   = 20
	fdGrowthShare = 0.10
)

// Findings applies rules SD601–SD608 to the figures.
func Findings(s *Summary) []finding.Finding {
	var out []finding.Finding
	biting := 0
	for _, l := range s.Limits {
		if l.Bites && !l.Approximate && !l.Dormant {
			biting++
		}
	}
	rank := 0
	for _, l := range s.Limits {
		if !l.Bites {
			continue
		}
		if !l.Approximate && !l.Dormant {
			rank++
		}
		out = append(out, limitFinding(s, l, rank, biting))
	}
	out = append(out, backlogFindings(s)...)
	out = append(out, conntrackFull(s)...)
	out = append(out, harmfulFindings(s)...)
	out = append(out, tcpMemPressure(s)...)
	out = append(out, leakFindings(s)...)
	return out
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return strconv.Itoa(n) + "th"
	case n%10 == 1:
		return strconv.Itoa(n) + "st"
	case n%10 == 2:
		return strconv.Itoa(n) + "nd"
	case n%10 == 3:
		return strconv.Itoa(n) + "rd"
	}
	return strconv.Itoa(n) + "th"
}

// rankWords is "the 2nd of 4 limits below 1000000", or "the only limit
// below 1000000".
func rankWords(rank, of int, conns int64) string {
	if of == 1 {
		return fmt.Sprintf("the only limit below %d", conns)
	}
	return fmt.Sprintf("the %s of %d limits below %d", ordinal(rank), of, conns)
}

func loc(file string) []finding.Location { return []finding.Location{{File: file}} }

func limitFinding(s *Summary, l Limit, rank, biting int) finding.Finding {
	f := finding.Finding{Rule: l.Rule, Severity: finding.Warning, Locations: loc(l.File), Fix: l.Fix}
	f.Evidence = []finding.Evidence{
		{Label: "connections " + l.Name + " allows", Value: float64(l.Capacity), Unit: "connections"},
		{Label: "connections wanted", Value: float64(s.Conns), Unit: "connections"},
	}
	switch {
	case l.Dormant:
		f.Severity = finding.Info
		f.What = fmt.Sprintf("%d connections at most once connection tracking starts", l.Capacity)
		f.Because = fmt.Sprintf("%s is %s: %s", l.Name, l.Value, l.Why)
	case l.Approximate:
		f.Severity = finding.Info
		f.What = fmt.Sprintf("%d connections with data buffered at once exhaust TCP memory", l.Capacity)
		f.Because = fmt.Sprintf("%s: %s", l.Name, l.Why)
	case l.Name == "memory":
		pc := s.PerConn
		f.Evidence = append(f.Evidence,
			finding.Evidence{Label: "memory available (" + s.Memory.AvailableFrom + ")", Value: float64(s.Memory.AvailableBytes), Unit: "bytes"},
			finding.Evidence{Label: "process memory per connection (" + pc.Source + ")", Value: pc.ProcessBytes, Unit: "bytes"},
			finding.Evidence{Label: "kernel memory per connection (" + pc.Source + ")", Value: pc.KernelBytes, Unit: "bytes"})
		f.What = fmt.Sprintf("%d connections fit in memory, %s", l.Capacity, rankWords(rank, biting, s.Conns))
		f.Because = l.Why
		if pc.Source == Assumed.Source {
			// An assumed cost is a range, not a measurement: say so and
			// leave the warning to a measured figure.
			f.Severity = finding.Info
			f.AddHint(finding.HintCostProbe, "measure this server's cost per connection")
		}
	default:
		f.What = fmt.Sprintf("%d connections at most, %s", l.Capacity, rankWords(rank, biting, s.Conns))
		f.Because = fmt.Sprintf("%s is %s: %s", l.Name, l.Value, l.Why)
		if l.Rule == "SD604" {
			if c, ok := s.Value("net.netfilter.nf_conntrack_count"); ok {
				f.Evidence = append(f.Evidence, finding.Evidence{Label: "nf_conntrack_count", Value: float64(c), Unit: "entries"})
			}
		}
	}
	return f
}

// backlogFindings: SD602. The kernel caps every listen(2) backlog at
// somaxconn (Go asks for somaxconn itself); without syncookies,
// tcp_max_syn_backlog also drops half-open connections.
func backlogFindings(s *Summary) []finding.Finding {
	var out []finding.Finding
	smc, ok := s.get("net.core.somaxconn")
	if ok && smc.v[0] < backlogFloor && smc.v[0] < s.Conns {
		f := finding.Finding{Rule: "SD602", Severity: finding.Warning, Locations: loc(smc.file),
			What: fmt.Sprintf("%d connections at most wait to be accepted on each listener", smc.v[0]),
			Because: fmt.Sprintf("net.core.somaxconn is %d (the default since Linux 5.4 is 4096): a reconnect burst of %d clients overflows it and the SYNs are retried after 1s, 3s, 7s",
				smc.v[0], s.Conns),
			Evidence: []finding.Evidence{{Label: "net.core.somaxconn", Value: float64(smc.v[0]), Unit: "connections"}},
			Fix:      fmt.Sprintf("# %s, then sysctl --system, then restart the server (Go reads somaxconn when it listens)\nnet.core.somaxconn = %d", sysctlConf, max(backlogFloor, min(headroom(s.Conns), 65535))),
		}
		if s.ListenOverflows != nil {
			f.Evidence = append(f.Evidence, finding.Evidence{Label: "ListenOverflows since boot (/proc/net/netstat)", Value: float64(*s.ListenOverflows), Unit: "connections"})
		}
		out = append(out, f)
	}
	if ok && s.Process != nil {
		for _, l := range s.Process.Listeners {
			// The listener's own backlog when sock_diag gave it, else
			// somaxconn, which is what Go asks for.
			limit, limitName := float64(smc.v[0]), "net.core.somaxconn"
			if l.Backlog > 0 {
				limit, limitName = float64(l.Backlog), "its listen backlog"
			}
			if float64(l.Queue) >= queueFull*limit && l.Queue > 0 {
				out = append(out, finding.Finding{Rule: "SD602", Severity: finding.Warning, Locations: loc(s.Process.Files),
					What: fmt.Sprintf("%d connections wait to be accepted on %s", l.Queue, l.Addr),
					Because: fmt.Sprintf("the server accepts slower than they arrive: the queue is at %.0f%% of its %.0f limit (%s)",
						100*float64(l.Queue)/limit, limit, limitName),
					Evidence: []finding.Evidence{{Label: "accept queue " + l.Addr, Value: float64(l.Queue), Unit: "connections"}, {Label: limitName, Value: limit, Unit: "connections"}},
					Fix:      "Accept in a loop that does nothing else (hand each connection to its own goroutine at once), and raise net.core.somaxconn for bursts.",
				})
			}
			// A backlog below today's somaxconn: the server listened before
			// somaxconn was raised (the kernel caps the backlog when
			// listen(2) is called), or it asks for less than Go would.
			if l.Backlog > 0 && int64(l.Backlog) < smc.v[0] && int64(l.Backlog) < backlogFloor && int64(l.Backlog) < s.Conns {
				out = append(out, finding.Finding{Rule: "SD602", Severity: finding.Warning, Locations: loc(s.Process.Files),
					What: fmt.Sprintf("%d connections at most wait to be accepted on %s", l.Backlog, l.Addr),
					Because: fmt.Sprintf("its listen backlog is %d, below net.core.somaxconn %d: the server listened before somaxconn was raised, or asks for a smaller backlog",
						l.Backlog, smc.v[0]),
					Evidence: []finding.Evidence{{Label: "listen backlog " + l.Addr + " (sock_diag)", Value: float64(l.Backlog), Unit: "connections"}, {Label: "net.core.somaxconn", Value: float64(smc.v[0]), Unit: "connections"}},
					Fix:      "Restart the server so that it listens with the current somaxconn (Go's net.Listen asks for somaxconn), or pass a larger backlog to listen(2) where the program sets its own.",
				})
			}
		}
	}
	cookies, okc := s.Value("net.ipv4.tcp_syncookies")
	syn, oks := s.get("net.ipv4.tcp_max_syn_backlog")
	if okc && oks && cookies == 0 && syn.v[0] < backlogFloor && syn.v[0] < s.Conns {
		out = append(out, finding.Finding{Rule: "SD602", Severity: finding.Warning, Locations: loc(syn.file),
			What: fmt.Sprintf("%d half-open connections at most", syn.v[0]),
			Because: fmt.Sprintf("net.ipv4.tcp_max_syn_backlog is %d and tcp_syncookies is 0: without cookies the last quarter of the SYN queue takes only known peers and the rest are dropped",
				syn.v[0]),
			Evidence: []finding.Evidence{{Label: "net.ipv4.tcp_max_syn_backlog", Value: float64(syn.v[0]), Unit: "connections"}, {Label: "net.ipv4.tcp_syncookies", Value: 0, Unit: ""}},
			Fix:      fmt.Sprintf("# %s, then sysctl --system\nnet.ipv4.tcp_syncookies = 1\nnet.ipv4.tcp_max_syn_backlog = %d", sysctlConf, max(backlogFloor, min(headroom(s.Conns), 65535))),
		})
	}
	return out
}

// conntrackFull: SD604 on a table nearly full now, whatever the target
// (when the target itself does not fit, the limit's finding says so).
func conntrackFull(s *Summary) []finding.Finding {
	cm, ok1 := s.get("net.netfilter.nf_conntrack_max")
	c, ok2 := s.Value("net.netfilter.nf_conntrack_count")
	if !ok1 || !ok2 || cm.v[0] <= 0 {
		return nil
	}
	for _, l := range s.Limits {
		if l.Rule == "SD604" && l.Bites {
			return nil
		}
	}
	share := float64(c) / float64(cm.v[0])
	if share < conntrackFullShare {
		return nil
	}
	return []finding.Finding{{Rule: "SD604", Severity: finding.Warning, Locations: loc(sysctlFile("net.netfilter.nf_conntrack_count")),
		What: fmt.Sprintf("%.0f%% of the conntrack table is in use", 100*share),
		Because: fmt.Sprintf("%d connections are tracked of nf_conntrack_max %d: a spike fills it and new connections are dropped",
			c, cm.v[0]),
		Evidence: []finding.Evidence{{Label: "nf_conntrack_count", Value: float64(c), Unit: "entries"}, {Label: "nf_conntrack_max", Value: float64(cm.v[0]), Unit: "entries"}},
		Fix:      fmt.Sprintf("# %s, then sysctl --system\nnet.netfilter.nf_conntrack_max = %d", sysctlConf, headroom(c*2)),
	}}
}

// harmfulFindings: SD605, settings copied from old tuning guides that
// break things today.
func harmfulFindings(s *Summary) []finding.Finding {
	var out []finding.Finding
	if v, ok := s.get("net.ipv4.tcp_tw_recycle"); ok && v.v[0] != 0 {
		out = append(out, finding.Finding{Rule: "SD605", Severity: finding.Warning, Locations: loc(v.file),
			Message:  fmt.Sprintf("net.ipv4.tcp_tw_recycle is %d, copied from an old tuning guide: it drops SYNs from clients behind NAT whose timestamps are not monotonic (the setting was removed in Linux 4.12)", v.v[0]),
			Evidence: []finding.Evidence{{Label: "net.ipv4.tcp_tw_recycle", Value: float64(v.v[0]), Unit: ""}},
			Fix:      "# delete the line from /etc/sysctl.conf and /etc/sysctl.d/*, then:\nsysctl -w net.ipv4.tcp_tw_recycle=0\n# for ports in TIME_WAIT on a dialer use net.ipv4.tcp_tw_reuse = 1 instead",
		})
	}
	ts, ok := s.get("net.ipv4.tcp_timestamps")
	reuse, _ := s.Value("net.ipv4.tcp_tw_reuse")
	if ok && ts.v[0] == 0 && (s.Dial || reuse == 1) {
		out = append(out, finding.Finding{Rule: "SD605", Severity: finding.Warning, Locations: loc(ts.file),
			Message:  fmt.Sprintf("net.ipv4.tcp_timestamps is %d, copied from an old hardening guide: tcp_tw_reuse (%d) then never reuses a port in TIME_WAIT, and PAWS and RTT measurement are lost", ts.v[0], reuse),
			Evidence: []finding.Evidence{{Label: "net.ipv4.tcp_timestamps", Value: 0, Unit: ""}, {Label: "net.ipv4.tcp_tw_reuse", Value: float64(reuse), Unit: ""}},
			Fix:      fmt.Sprintf("# %s, then sysctl --system\nnet.ipv4.tcp_timestamps = 1", sysctlConf),
		})
	}
	return out
}

// tcpMemPressure: SD607 when TCP buffers are at tcp_mem's pressure mark
// now, as measured in sockstat: the kernel already shrinks every socket's
// buffers to the minimum.
func tcpMemPressure(s *Summary) []finding.Finding {
	tm, ok := s.get("net.ipv4.tcp_mem")
	if !ok || s.Sockstat == nil || len(tm.v) != 3 || tm.v[1] <= 0 {
		return nil
	}
	used := s.Sockstat.TCPMemPages
	if used < tm.v[1] {
		return nil
	}
	return []finding.Finding{{Rule: "SD607", Severity: finding.Warning, Locations: loc("/proc/net/sockstat"),
		What: fmt.Sprintf("%d pages of TCP buffers in use", used),
		Because: fmt.Sprintf("the %d TCP sockets hold data, at or above tcp_mem's pressure mark %d (hard limit %d): the kernel shrinks every socket's buffers",
			s.Sockstat.TCPInUse+s.Sockstat.TCP6InUse, tm.v[1], tm.v[2]),
		Evidence: []finding.Evidence{{Label: "TCP mem (sockstat)", Value: float64(used), Unit: "pages"}, {Label: "tcp_mem pressure", Value: float64(tm.v[1]), Unit: "pages"}, {Label: "tcp_mem max", Value: float64(tm.v[2]), Unit: "pages"}},
		Fix:      fmt.Sprintf("# %s: raise tcp_mem (pages), and read sockets promptly\nnet.ipv4.tcp_mem = %d %d %d", sysctlConf, tm.v[0]*2, tm.v[1]*2, tm.v[2]*2),
	}}
}

// leakFindings: SD608, a process that never closes sockets the peer closed,
// or whose descriptors keep growing.
func leakFindings(s *Summary) []finding.Finding {
	p := s.Process
	if p == nil {
		return nil
	}
	var out []finding.Finding
	who := "pid " + strconv.Itoa(s.Target.PID)
	if s.Target.Name != "" {
		who += " (" + s.Target.Name + ")"
	}
	total := p.ByState["CLOSE_WAIT"]
	w := s.Watch
	pile := total >= closeWaitPile
	if w != nil {
		// A watch shows whether the same sockets stay: transient
		// CLOSE_WAITs of a busy server come and go.
		pile = w.StuckCloseWait >= closeWaitStuck
	}
	if pile && (len(p.CloseWait) > 0 || len(p.CloseWaitPeers) > 0) {
		f := finding.Finding{Rule: "SD608", Severity: finding.Warning, Locations: loc(p.Files)}
		var ev []finding.Evidence
		fix := "Close every connection on every path: after a read returns io.EOF or an error, call conn.Close (defer it where the connection is accepted)."
		if len(p.CloseWait) > 0 && (len(p.CloseWaitPeers) == 0 || p.CloseWait[0].Count >= p.CloseWaitPeers[0].Count) {
			// A server's: the accepted connections share the listener's port.
			top := p.CloseWait[0]
			f.What = fmt.Sprintf("%d sockets of %s in CLOSE_WAIT, %d on local port %d", total, who, top.Count, top.Port)
			f.Because = "the peer closed and the program never called Close"
			ev = []finding.Evidence{
				{Label: "sockets in CLOSE_WAIT", Value: float64(total), Unit: "sockets"},
				{Label: fmt.Sprintf("in CLOSE_WAIT on local port %d", top.Port), Value: float64(top.Count), Unit: "sockets"},
			}
		} else {
			// A client's: ephemeral local ports, few peers.
			peer := p.CloseWaitPeers[0]
			f.What = fmt.Sprintf("%d sockets of %s in CLOSE_WAIT, %d dialled to %s", total, who, peer.Count, peer.Peer)
			f.Because = "the server closed and the program never called Close"
			ev = []finding.Evidence{
				{Label: "sockets in CLOSE_WAIT", Value: float64(total), Unit: "sockets"},
				{Label: "in CLOSE_WAIT dialled to " + peer.Peer, Value: float64(peer.Count), Unit: "sockets"},
			}
			fix = "Close what you dial on every path: defer resp.Body.Close() (and drain it) for HTTP responses, conn.Close() after io.EOF for raw connections."
		}
		if w != nil {
			f.Note(finding.NoteCorroboration, fmt.Sprintf("%d stayed in CLOSE_WAIT for the whole %gs watch", w.StuckCloseWait, w.Seconds))
			ev = append(ev, finding.Evidence{Label: fmt.Sprintf("CLOSE_WAIT sockets unchanged over %gs", w.Seconds), Value: float64(w.StuckCloseWait), Unit: "sockets"})
		}
		f.Evidence, f.Fix = ev, fix
		out = append(out, f)
	}
	if w != nil && len(w.FDs) >= 2 {
		first, last := w.FDs[0], w.FDs[len(w.FDs)-1]
		growth := last - first
		rising, peak := 0, 0
		for i, v := range w.FDs {
			if i > 0 && v >= w.FDs[i-1] {
				rising++
			}
			peak = max(peak, v)
		}
		steady := float64(rising) >= 0.75*float64(len(w.FDs)-1)
		if growth >= fdGrowthMin && float64(growth) >= fdGrowthShare*float64(first) && last == peak && steady {
			rate := float64(growth) / w.Seconds
			f := finding.Finding{Rule: "SD608", Severity: finding.Warning, Locations: loc("/proc/" + strconv.Itoa(s.Target.PID) + "/fd"),
				What:    fmt.Sprintf("%d descriptors opened and not closed in %gs by %s (%d to %d, %.1f/s)", growth, w.Seconds, who, first, last, rate),
				Because: "connections or files are leaking",
				Fix:     "Find what holds them (ls -l /proc/PID/fd, a goroutine dump: schedoctor goroutines) and close them on every path; for HTTP clients, defer resp.Body.Close()."}
			ev := []finding.Evidence{
				{Label: "descriptors at start", Value: float64(first), Unit: "fds"},
				{Label: "descriptors at end", Value: float64(last), Unit: "fds"},
				{Label: "growth", Value: rate, Unit: "fds/s"},
			}
			if nf := s.Nofile; nf != nil && rate > 0 && nf.Hard > int64(last) {
				left := float64(nf.Hard-int64(last)) / rate
				f.Note(finding.NoteQualifier, fmt.Sprintf("at this rate RLIMIT_NOFILE (%d) is reached in %s", nf.Hard, durationWords(left)))
				ev = append(ev, finding.Evidence{Label: "time to RLIMIT_NOFILE", Value: left, Unit: "s"})
			}
			f.Evidence = ev
			out = append(out, f)
		}
	}
	return out
}

func durationWords(sec float64) string {
	switch {
	case sec >= 2*86400:
		return fmt.Sprintf("%.0f days", sec/86400)
	case sec >= 2*3600:
		return fmt.Sprintf("%.0f hours", sec/3600)
	case sec >= 120:
		return fmt.Sprintf("%.0f minutes", sec/60)
	}
	return fmt.Sprintf("%.0f seconds", sec)
}
