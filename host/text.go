package host

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// WriteText prints the answer first (how many connections fit, the first
// limit and the next), then every limit in the order it bites, the memory
// per connection and where it came from, and the process's sockets, within
// 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth is WriteText within width columns: each value is wrapped
// under its own column (paths too long for a line keep their start and file
// name; -json has them whole). width <= 0 prints one line per row.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	// head is a row's aligned start (a limit's mark and capacity), kept
	// as it is; value wraps after it.
	type line struct{ key, head, value string }
	var lines []line
	row := func(key, format string, args ...any) {
		lines = append(lines, line{key, "", textsafe.String(fmt.Sprintf(format, args...))})
	}
	// Rows are collected first: the key column's width depends on them all.
	target := "the current process's context"
	if s.Target.PID != 0 {
		target = fmt.Sprintf("pid %d", s.Target.PID)
		if s.Target.Name != "" {
			target += " (" + s.Target.Name + ")"
		}
	}
	if s.Target.Sysroot != "/" {
		target += ", sysroot " + s.Target.Sysroot
	}
	row("target", "%s, %d connections wanted", target, s.Conns)
	a := s.Answer
	if a.First != "" {
		row("answer", "this host can hold about %s connections of this server; the first limit is %s", count(a.Fits), a.First)
		if a.Then != "" {
			row("", "then %s", a.Then)
		}
	} else {
		row("answer", "no limit could be read")
	}
	capw := 0
	for _, l := range s.Limits {
		capw = max(capw, len(count(l.Capacity)))
	}
	for i, l := range s.Limits {
		key := ""
		if i == 0 {
			key = "limits"
		}
		mark := "ok  "
		switch {
		case l.Bites && l.Approximate:
			mark = "busy"
		case l.Bites && l.Dormant:
			mark = "idle"
		case l.Bites:
			mark = "BITE"
		}
		lines = append(lines, line{key, fmt.Sprintf("%s %*s  ", mark, capw, count(l.Capacity)),
			textsafe.String(fmt.Sprintf("%s = %s (%s)", l.Name, l.Value, l.File))})
	}
	pc := s.PerConn
	row("per connection", "%s process + %s kernel (%s)", bytesWords(pc.ProcessBytes), bytesWords(pc.KernelBytes), pc.Source)
	if pc.Method != "" {
		row("", "%s", pc.Method)
	}
	if r := s.Probe; r != nil {
		closed := "all closed after"
		if !r.Closed {
			closed = "NOT all closed"
		}
		row("probe", "%d of %d connections to %s (pid %d) from %d source address(es) in %.1fs, %s", r.Opened, r.Conns, r.Addr, r.PID, r.SourceAddrs, r.Seconds, closed)
		row("", "RSS %s -> %s (%s per connection); descriptors %d -> %d", bytesWords(float64(r.Before.RSSBytes)), bytesWords(float64(r.After.RSSBytes)), bytesWords(r.RSSPerConn), r.Before.FDs, r.After.FDs)
		if r.Before.HeapInuseBytes >= 0 && r.After.HeapInuseBytes >= 0 {
			row("", "Go heap in use + stacks %s -> %s (%s per connection); goroutines %d -> %d (%.2f per connection)",
				bytesWords(float64(r.Before.HeapInuseBytes+r.Before.StackInuseBytes)), bytesWords(float64(r.After.HeapInuseBytes+r.After.StackInuseBytes)),
				bytesWords(r.GoPerConn), r.Before.Goroutines, r.After.Goroutines, r.GoroutinesPer)
		}
		row("", "kernel %s per connection: %s; buffers %s (/proc/net/sockstat)", bytesWords(r.KernelPerConn), r.KernelObjects, bytesWords(r.BuffersPerConn))
		for _, n := range r.Notes {
			row("", "note: %s", n)
		}
	}
	m := s.Memory
	if m.AvailableBytes > 0 {
		row("memory", "%s available (%s)", bytesWords(float64(m.AvailableBytes)), m.AvailableFrom)
	}
	for _, r := range a.Runtime {
		row("runtime", "%s", r)
	}
	if st := s.Sockstat; st != nil {
		row("TCP now", "%d IPv4 + %d IPv6 sockets in use, %d in TIME_WAIT, %d orphans, buffers %d pages (/proc/net/sockstat{,6})",
			st.TCPInUse, st.TCP6InUse, st.TCPTW, st.TCPOrphan, st.TCPMemPages)
	}
	if p := s.Process; p != nil {
		if p.Sockets < 0 {
			row("process", "%d descriptors; which are sockets is unknown (%s)", p.FDs, p.Files)
		} else {
			row("process", "%d descriptors, %d sockets; %s", p.FDs, p.Sockets, stateWords(p.ByState))
		}
		for _, l := range p.Listeners {
			if l.Backlog > 0 {
				row("  listener", "%s, accept queue %d of its backlog %d", l.Addr, l.Queue, l.Backlog)
			} else {
				row("  listener", "%s, accept queue %d", l.Addr, l.Queue)
			}
		}
		for i, c := range p.CloseWait {
			if i == 3 {
				row("", "(%d more ports)", len(p.CloseWait)-3)
				break
			}
			row("  CLOSE_WAIT", "%d on local port %d", c.Count, c.Port)
		}
		for i, c := range p.CloseWaitPeers {
			if i == 3 {
				row("", "(%d more peers)", len(p.CloseWaitPeers)-3)
				break
			}
			row("  CLOSE_WAIT", "%d dialled to %s", c.Count, c.Peer)
		}
	}
	if wt := s.Watch; wt != nil {
		row("watch", "%gs: descriptors %s; CLOSE_WAIT %s; %d unchanged CLOSE_WAIT", wt.Seconds, ints(wt.FDs), ints(wt.CloseWait), wt.StuckCloseWait)
	}
	for _, n := range s.Notes {
		row("note", "%s", n)
	}
	for _, wn := range s.Warnings {
		row("warning", "%s", wn)
	}
	keyw := 0
	for _, l := range lines {
		keyw = max(keyw, textlayout.Width(l.key))
	}
	rest := strings.Repeat(" ", keyw+2)
	var b strings.Builder
	for _, l := range lines {
		first := l.key + strings.Repeat(" ", keyw+2-textlayout.Width(l.key)) + l.head
		b.WriteString(textlayout.WrapFit(first, rest+strings.Repeat(" ", len(l.head)), l.value, width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func stateWords(m map[string]int) string {
	var parts []string
	for _, st := range tcpStates {
		if st != "" && m[st] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, m[st]))
		}
	}
	if len(parts) == 0 {
		return "no TCP sockets"
	}
	return strings.Join(parts, ", ")
}

func ints(v []int) string {
	if len(v) > 12 {
		return fmt.Sprintf("%v ... %v", v[:6], v[len(v)-6:])
	}
	return fmt.Sprint(v)
}

// Hints asks for what would replace an assumed figure with a measured one:
// the server's cost per connection when the published range was used, the
// pprof endpoint when a probe saw only RSS.
func (s *Summary) Hints() []finding.Note {
	var hs []finding.Note
	if s.PerConn.Source == Assumed.Source {
		hs = append(hs, finding.HintNote(finding.HintCostProbe, "measure this server's cost per connection instead of the published range"))
	}
	if s.Probe != nil && s.Probe.Before.HeapInuseBytes < 0 {
		hs = append(hs, finding.HintNote(finding.HintHeapEndpoint, "give the server's pprof endpoint to the probe to see its Go heap per connection"))
	}
	return hs
}
