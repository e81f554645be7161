package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// fdTable lists the process's descriptors and the socket inodes among them
// ("socket:[12345]" links in /proc/PID/fd). Every entry of the directory
// counts as a descriptor; when the links cannot be read (another user's
// process, or ptrace access refused: the directory lists but readlink fails
// with EACCES), socks is nil and the join with the socket tables cannot be
// made: a count of 0 sockets would be a lie.
func (r *reader) fdTable(procDir string) (fds int, socks map[uint64]bool, err error) {
	// Opened through sysread: under a sysroot, /proc/PID/fd resolves
	// inside it, and its links are read relative to that directory.
	d, err := sysread.OpenDir(r.root, procDir+"/fd")
	if err != nil {
		return 0, nil, fmt.Errorf("reading %s/fd: %w", procDir, unwrapPath(err))
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return 0, nil, fmt.Errorf("reading %s/fd: %w", procDir, unwrapPath(err))
	}
	socks = map[uint64]bool{}
	var denied error
	for _, e := range ents {
		link, err := sysread.ReadlinkAt(d, e.Name())
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // closed between the listing and the readlink
			}
			fds++
			if denied == nil {
				denied = err
			}
			continue
		}
		fds++
		if v, ok := strings.CutPrefix(link, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64); err == nil {
				socks[n] = true
			}
		}
	}
	if denied != nil {
		return fds, nil, fmt.Errorf("reading the links of %s/fd: %w", procDir, unwrapPath(denied))
	}
	return fds, socks, nil
}

// tcpTables reads the process's own view of TCP sockets: /proc/PID/net is
// its network namespace's, which /proc/net may not be.
func (r *reader) tcpTables(procDir string) ([]Socket, string) {
	var all []Socket
	var files []string
	for _, name := range []string{"tcp", "tcp6"} {
		file := procDir + "/net/" + name
		data := r.optional(file, tcpTableMax)
		if data == nil {
			continue
		}
		socks, bad, err := ParseTCP(data)
		if err != nil {
			r.warn("%s: %v", file, err)
			continue
		}
		if bad > 0 {
			r.warn("%s: %d malformed rows skipped", file, bad)
		}
		all = append(all, socks...)
		files = append(files, file)
	}
	// The kernel produces the table a page at a time: a socket that moves
	// in its hash table between two pages is listed twice. Keep one row per
	// inode (0 is a socket without a descriptor, TIME_WAIT).
	seen := map[uint64]bool{}
	out := all[:0]
	for _, k := range all {
		if k.Inode != 0 {
			if seen[k.Inode] {
				continue
			}
			seen[k.Inode] = true
		}
		out = append(out, k)
	}
	return out, strings.Join(files, ", ")
}

// readProcess joins the process's descriptors with the TCP tables.
func (r *reader) readProcess(s *Summary, procDir string) *Process {
	fds, inodes, err := r.fdTable(procDir)
	if err != nil && inodes == nil && fds > 0 {
		// The descriptors are counted (they weigh on RLIMIT_NOFILE) but
		// which are sockets, and in which state, is unknown.
		r.warn("%v: the process's %d descriptors are counted, its sockets cannot be told apart (run as the process's user or root with ptrace access)", err, fds)
		return &Process{FDs: fds, Sockets: -1, ByState: map[string]int{}, Files: procDir + "/fd (links unreadable)"}
	}
	if err != nil {
		r.warn("%v", err)
		return nil
	}
	socks, files := r.tcpTables(procDir)
	p := &Process{FDs: fds, Sockets: len(inodes), ByState: map[string]int{}, Files: procDir + "/fd joined with " + files}
	if files == "" {
		p.Files = procDir + "/fd"
	}
	listenPorts := map[uint16]bool{}
	var mine []Socket
	for _, k := range socks {
		if k.Inode == 0 || !inodes[k.Inode] {
			continue
		}
		mine = append(mine, k)
		if k.State == "LISTEN" {
			listenPorts[k.Local.Port()] = true
			p.Listeners = append(p.Listeners, Listener{Addr: k.Local.String(), Queue: k.RxQueue, inode: k.Inode})
		}
	}
	cw := map[uint16]int{}
	peers := map[string]int{}
	for _, k := range mine {
		p.ByState[k.State]++
		switch k.State {
		case "CLOSE_WAIT":
			if listenPorts[k.Local.Port()] {
				cw[k.Local.Port()]++
			} else {
				peers[k.Remote.String()]++
			}
		case "ESTABLISHED":
			if !listenPorts[k.Local.Port()] {
				p.Outbound++
			}
		}
	}
	p.CloseWait = portCounts(cw)
	for peer, n := range peers {
		p.CloseWaitPeers = append(p.CloseWaitPeers, PeerCount{Peer: peer, Count: n})
	}
	slices.SortFunc(p.CloseWaitPeers, func(a, b PeerCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Peer, b.Peer))
	})
	slices.SortFunc(p.Listeners, func(a, b Listener) int { return strings.Compare(a.Addr, b.Addr) })
	return p
}

func portCounts(m map[uint16]int) []PortCount {
	out := make([]PortCount, 0, len(m))
	for port, n := range m {
		out = append(out, PortCount{Port: port, Count: n})
	}
	slices.SortFunc(out, func(a, b PortCount) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Port, b.Port)) })
	return out
}

// closeWaitInodes returns the process's sockets now in CLOSE_WAIT.
func (r *reader) closeWaitInodes(procDir string) (fds int, cw map[uint64]bool, err error) {
	fds, inodes, err := r.fdTable(procDir)
	if err != nil && inodes == nil && fds > 0 {
		return fds, map[uint64]bool{}, nil // sockets unknown: readProcess warned
	}
	if err != nil {
		return 0, nil, err
	}
	socks, _ := r.tcpTables(procDir)
	cw = map[uint64]bool{}
	for _, k := range socks {
		if k.State == "CLOSE_WAIT" && inodes[k.Inode] {
			cw[k.Inode] = true
		}
	}
	return fds, cw, nil
}

// watch samples the descriptors and CLOSE_WAIT sockets over opt.Watch.
func watch(ctx context.Context, parent *reader, procDir string, opt Options) (*Watch, error) {
	// A reader of its own: a torn row in every sample must not repeat the
	// same warning.
	r := &reader{root: parent.root}
	every := opt.WatchEvery
	if every <= 0 {
		every = time.Second
	}
	n := max(int(opt.Watch/every), 1)
	w := &Watch{Seconds: opt.Watch.Seconds()}
	var first, last map[uint64]bool
	for i := 0; i <= n; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("watching %s: %w", procDir, context.Cause(ctx))
			case <-time.After(every):
			}
		}
		fds, cw, err := r.closeWaitInodes(procDir)
		if err != nil {
			return nil, fmt.Errorf("watching: %w (did the process exit?)", err)
		}
		w.FDs = append(w.FDs, fds)
		w.CloseWait = append(w.CloseWait, len(cw))
		if i == 0 {
			first = cw
		}
		last = cw
	}
	for ino := range first {
		if last[ino] {
			w.StuckCloseWait++
		}
	}
	return w, nil
}
