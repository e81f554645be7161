// Package probe measures what one connection costs a server: it opens N
// idle TCP connections from loopback to the server, measures the server
// process before and after (RSS from /proc/PID/status, Go heap and stacks
// from its /debug/pprof when it serves one, goroutines, descriptors) and the
// kernel's share (socket object sizes of this kernel from /proc/slabinfo,
// socket buffers from /proc/net/sockstat), then closes every connection.
//
// It also carries model servers (ServeModel): a goroutine-per-connection
// echo server, the same with a bufio pair, net/http, TLS, and a one-goroutine
// epoll event loop, to show what each design costs on this host.
//
// The probe dials loopback addresses only: it is a measuring tool for the
// user's own server on this host, not a load generator. When N exceeds the
// ephemeral port range, it dials from several source addresses of
// 127.0.0.0/8 (every one of them is local on Linux).
package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/sysread"
)

// Options says what to probe.
type Options struct {
	// Addr is the server's host:port; the host must be a loopback address.
	Addr string
	// PID is the server process, read under /proc for RSS and descriptors.
	PID int
	// Conns is how many idle connections to open.
	Conns int
	// PprofURL is the base URL of the server's net/http/pprof handlers
	// ("http://127.0.0.1:6060"); "" skips the Go heap and stack figures.
	PprofURL string
	// TLS makes every connection complete a TLS handshake (without
	// verifying the certificate: the server is the user's own on loopback),
	// so that the server holds an established TLS connection, not one
	// waiting for a ClientHello.
	TLS bool
	// Settle is how long to wait for the server to accept every connection
	// before measuring; 0 means 10s. The wait ends as soon as the server's
	// descriptors show them all.
	Settle time.Duration
	// Parallel is how many dials run at once; 0 means 64.
	Parallel int
	// Hold, when set, is called after the measurement with every
	// connection still open (a test reads the server's own figures there).
	Hold func()
}

// Sample is the server (and the host's TCP) at one moment.
type Sample struct {
	RSSBytes     int64 `json:"rss_bytes"`      // VmRSS of /proc/PID/status
	RssAnonBytes int64 `json:"rss_anon_bytes"` // RssAnon
	// VmDataBytes is the process's private data mappings (VmData): the Go
	// heap as mapped, resident or not. Buffers allocated and never
	// written grow it but not RSS.
	VmDataBytes int64 `json:"vm_data_bytes"`
	FDs         int   `json:"fds"`
	// HeapInuseBytes, StackInuseBytes and Goroutines come from the
	// server's /debug/pprof (after a GC); -1 when not available.
	HeapInuseBytes  int64 `json:"heap_inuse_bytes"`
	StackInuseBytes int64 `json:"stack_inuse_bytes"`
	Goroutines      int64 `json:"goroutines"`
	// TCPMemPages and TCPInUse are the host's, from /proc/net/sockstat.
	TCPMemPages int64 `json:"tcp_mem_pages"`
	TCPInUse    int64 `json:"tcp_inuse"`
}

// Result is what the probe measured.
type Result struct {
	Addr        string `json:"addr"`
	PID         int    `json:"pid"`
	Conns       int    `json:"conns"`  // asked for
	Opened      int    `json:"opened"` // dialled successfully
	Accepted    int    `json:"accepted"`
	SourceAddrs int    `json:"source_addrs"`
	Before      Sample `json:"before"`
	After       Sample `json:"after"`
	// Per connection, from the deltas divided by Opened.
	RSSPerConn     float64 `json:"rss_per_conn"`          // process, as the kernel charges it
	GoPerConn      float64 `json:"go_per_conn,omitempty"` // Go heap in use + stacks
	GoroutinesPer  float64 `json:"goroutines_per_conn,omitempty"`
	KernelPerConn  float64 `json:"kernel_per_conn"`  // socket objects + buffers
	KernelObjects  string  `json:"kernel_objects"`   // how KernelPerConn was composed
	BuffersPerConn float64 `json:"buffers_per_conn"` // the sockstat share of it
	// DataPerConn is the growth of VmData per connection: the memory
	// mapped for the heap, written or not (granular: the runtime maps it
	// 4 MiB and more at a time).
	DataPerConn float64 `json:"data_per_conn"`
	// FDsPerConn is the server's descriptor growth per connection: 1 for a
	// server, 2 for a proxy that dials a backend for each client.
	FDsPerConn float64 `json:"fds_per_conn"`
	// GreetingBytes is what the server sent on its own on the idle
	// connections (a protocol greeting), read by the probe before the
	// measurement.
	GreetingBytes int64 `json:"greeting_bytes,omitempty"`
	// ServerClosed counts the connections the server had closed when the
	// probe read them (end of file): they are not in the per-connection
	// division.
	ServerClosed int     `json:"server_closed,omitempty"`
	Seconds      float64 `json:"seconds"` // dialling and settling
	// ReleaseSeconds is how long the server took, after the probe closed
	// its connections, to be back to its descriptors before; HeldAfter
	// the descriptors it still held above them when the wait ended.
	ReleaseSeconds float64  `json:"release_seconds"`
	HeldAfter      int      `json:"held_after,omitempty"`
	Closed         bool     `json:"closed"`
	Notes          []string `json:"notes,omitempty"`
}

// ProcessPerConn is the figure the host checks use for the process: the
// larger of the RSS growth and the Go heap and stack growth. RSS can lag
// (the heap reuses pages already resident) and the live heap omits the GC's
// headroom, so the larger one is the safer ceiling.
func (r *Result) ProcessPerConn() (float64, string) {
	rss := fmt.Sprintf("RSS growth of pid %d over %d idle connections (/proc/%d/status): %.0f B", r.PID, r.Opened, r.PID, r.RSSPerConn)
	if r.GoPerConn > r.RSSPerConn {
		return r.GoPerConn, fmt.Sprintf("Go heap in use and stack growth over %d idle connections (/debug/pprof/heap after a GC): %.0f B, above the %s", r.Opened, r.GoPerConn, rss)
	}
	if r.RSSPerConn > 0 {
		return r.RSSPerConn, rss
	}
	return 0, ""
}

// ErrNotLoopback is returned for a target that is not on this host's
// loopback.
var ErrNotLoopback = errors.New("the probe dials loopback addresses only (127.0.0.0/8 or ::1)")

// Run opens the connections, measures, and closes them all, also on error
// and cancellation.
func Run(ctx context.Context, opt Options) (*Result, error) {
	ap, err := loopback(opt.Addr)
	if err != nil {
		return nil, err
	}
	if opt.PprofURL != "" {
		if err := CheckPprofURL(opt.PprofURL); err != nil {
			return nil, err
		}
	}
	if opt.Conns <= 0 {
		return nil, fmt.Errorf("conns %d: want a positive number", opt.Conns)
	}
	if opt.PID <= 0 {
		return nil, fmt.Errorf("pid %d: the probe needs the server's process ID to measure it", opt.PID)
	}
	if err := checkFDs(opt.Conns); err != nil {
		return nil, err
	}
	procDir := "/proc/" + strconv.Itoa(opt.PID)
	if _, err := os.Stat(procDir); err != nil {
		return nil, fmt.Errorf("server process %d: %w", opt.PID, err)
	}
	sources, err := sourceAddrs(ap, opt.Conns)
	if err != nil {
		return nil, err
	}
	res := &Result{Addr: opt.Addr, PID: opt.PID, Conns: opt.Conns, SourceAddrs: len(sources)}
	res.Before, err = measure(ctx, opt, procDir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	conns, dialErr := dialAll(ctx, opt, ap, sources)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
		res.Closed = true
		// Wait for the server to close its ends: a report read right after
		// would show hundreds of its sockets in CLOSE_WAIT, the probe's own
		// hang-ups not yet seen, and call them a leak.
		res.ReleaseSeconds, res.HeldAfter = released(ctx, procDir, res.Before.FDs, opt.Settle)
		if res.HeldAfter > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("the server still held %d more descriptors than before %.0fs after the probe closed its connections", res.HeldAfter, res.ReleaseSeconds))
		}
	}()
	res.Opened = len(conns)
	if dialErr != nil && len(conns) == 0 {
		return nil, dialErr
	}
	if dialErr != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("%d of %d connections failed: %v", opt.Conns-len(conns), opt.Conns, dialErr))
	}
	res.Accepted = settle(ctx, opt, procDir, res.Before.FDs, len(conns))
	if res.Accepted < len(conns) {
		res.Notes = append(res.Notes, fmt.Sprintf("the server showed %d new descriptors for %d connections when measured (accept queue, or descriptors closed meanwhile)", res.Accepted, len(conns)))
	}
	// Read what the server sent unprompted (a NATS INFO line, a TLS 1.3
	// session ticket, a banner): a real client reads it, and left unread it
	// sits in the probe's receive queues, where sockstat would count it as
	// the server's buffers.
	var serverClosed int
	res.GreetingBytes, serverClosed = drain(ctx, conns, opt.Parallel)
	if serverClosed > 0 {
		res.ServerClosed = serverClosed
		res.Notes = append(res.Notes, fmt.Sprintf("the server closed %d of the %d idle connections before the measurement (an idle or read-header timeout): the figures are per connection it kept", serverClosed, len(conns)))
	}
	res.Seconds = time.Since(start).Seconds()
	res.After, err = measure(ctx, opt, procDir)
	if err != nil {
		return res, err
	}
	if opt.Hold != nil {
		opt.Hold()
	}
	n := float64(len(conns) - res.ServerClosed)
	if n > 0 {
		res.RSSPerConn = float64(res.After.RSSBytes-res.Before.RSSBytes) / n
		if res.Before.HeapInuseBytes >= 0 && res.After.HeapInuseBytes >= 0 {
			res.GoPerConn = float64(res.After.HeapInuseBytes+res.After.StackInuseBytes-res.Before.HeapInuseBytes-res.Before.StackInuseBytes) / n
			res.GoroutinesPer = float64(res.After.Goroutines-res.Before.Goroutines) / n
		}
		// The probe has sent nothing since the handshake and has read what
		// the server sent (drain), so its own sockets hold no buffers: the
		// growth sockstat shows is held by the server's ends (and by the
		// rest of the host, which is why it is clamped at 0, not trusted
		// to the byte).
		res.BuffersPerConn = max(float64(res.After.TCPMemPages-res.Before.TCPMemPages)*4096/n, 0)
		// RSS grows only by pages the process did not hold yet: a server
		// that held more connections before reuses the memory they freed
		// (the runtime returns it to the OS slowly), and RSS growth then
		// undercounts. Measured here: nats-server at 3000 connections, 15.8
		// KiB/conn when fresh, 3.3 KiB/conn on a second probe.
		res.DataPerConn = float64(res.After.VmDataBytes-res.Before.VmDataBytes) / n
		switch {
		case res.Before.HeapInuseBytes < 0 && res.DataPerConn > 2*max(res.RSSPerConn, 0) && res.DataPerConn > 4096:
			// Without the Go heap figure, the mapped data is the only sign of
			// memory allocated per connection and not yet touched. Measured
			// here: go-tcp-proxy allocates two 64 KiB buffers per connection,
			// 13 KiB of which are resident while idle.
			res.Notes = append(res.Notes, fmt.Sprintf("the server's mapped data (VmData) grew %.0f B per connection, RSS %.0f B: memory allocated and not yet written (buffers) becomes resident once the connections carry data; the server's pprof endpoint would show the Go heap", res.DataPerConn, res.RSSPerConn))
		case res.Before.HeapInuseBytes < 0:
			res.Notes = append(res.Notes, "only RSS growth was measured (no pprof endpoint): it undercounts on a server that held more connections before (their freed memory is reused), so probe a freshly started server")
		case res.GoPerConn > 2*res.RSSPerConn:
			res.Notes = append(res.Notes, fmt.Sprintf("RSS grew %.0f B per connection, the Go heap and stacks %.0f B: buffers allocated and not yet written are not resident, and pages freed earlier are reused without growing RSS; the larger Go figure is used", res.RSSPerConn, res.GoPerConn))
		}
		objs, what := SocketObjects("/", ap.Addr().Is6())
		// A proxy opens a backend connection for each client: its
		// descriptors grow by two per connection, and so do its kernel
		// sockets. Rounded: a stray descriptor (a log file rotated
		// meanwhile) must not make 1.003 sockets.
		res.FDsPerConn = float64(res.After.FDs-res.Before.FDs) / n
		socks := max(math.Round(res.FDsPerConn), 1)
		res.KernelPerConn = objs*socks + res.BuffersPerConn
		res.KernelObjects = what
		if socks > 1 {
			res.KernelObjects = fmt.Sprintf("%.0f sockets per connection (descriptors grew by %d for %d connections) x %s",
				socks, res.After.FDs-res.Before.FDs, int(n), what)
		}
	}
	return res, nil
}

// CheckPprofURL checks that a pprof base URL is http(s) on a loopback
// address: the probe measures the user's own server on this host, and
// must not be pointed at another host's endpoints.
func CheckPprofURL(raw string) error {
	// httpfetch.ParseURL's error never shows a password, whatever the
	// scheme; the URL is named redacted below too.
	u, err := httpfetch.ParseURL(raw)
	if err != nil {
		return fmt.Errorf("pprof URL: %w", err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return fmt.Errorf("pprof URL %q: %w", u.Redacted(), ErrNotLoopback)
	}
	return nil
}

// loopback parses addr and checks it is a loopback address.
func loopback(addr string) (netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("probe address %q: %w", addr, err)
	}
	if host == "localhost" || host == "" {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("probe address %q: want a loopback IP (127.0.0.1:PORT or [::1]:PORT): %w", addr, err)
	}
	ip = ip.Unmap()
	if !ip.IsLoopback() {
		return netip.AddrPort{}, fmt.Errorf("probe address %q: %w", addr, ErrNotLoopback)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return netip.AddrPort{}, fmt.Errorf("probe address %q: bad port", addr)
	}
	return netip.AddrPortFrom(ip, uint16(p)), nil
}

// perSourceLimit, when set by a test, replaces the ports one source
// address may use, so that spreading over 127.0.0.0/8 can be tested with
// a few hundred connections.
var perSourceLimit int

// sourceAddrs picks the local addresses to dial from: one while N fits in
// the ephemeral port range (with a quarter kept for the rest of the host),
// more of 127.0.0.0/8 beyond.
func sourceAddrs(dst netip.AddrPort, n int) ([]netip.Addr, error) {
	size := 28232 // the kernel's default range, 32768-60999
	if data, err := sysread.File("/", "/proc/sys/net/ipv4/ip_local_port_range", 0); err == nil {
		var lo, hi int
		if _, err := fmt.Sscan(string(data), &lo, &hi); err == nil && hi > lo {
			size = hi - lo + 1
		}
	}
	per := max(size*3/4, 1)
	if perSourceLimit > 0 {
		per = perSourceLimit
	}
	k := (n + per - 1) / per
	if k <= 1 {
		return []netip.Addr{{}}, nil // the kernel picks
	}
	if !dst.Addr().Is4() {
		return nil, fmt.Errorf("%d connections exceed the %d ports of one source address, and IPv6 loopback has only ::1: probe an IPv4 loopback address", n, per)
	}
	if k > 250 {
		return nil, fmt.Errorf("%d connections need %d source addresses of 127.0.0.0/8: too many for a probe", n, k)
	}
	out := make([]netip.Addr, k)
	for i := range out {
		out[i] = netip.AddrFrom4([4]byte{127, 0, 0, byte(i + 1)})
	}
	return out, nil
}

// dialAll opens opt.Conns connections spread over the source addresses.
// The connections made so far are returned with the first error.
func dialAll(ctx context.Context, opt Options, dst netip.AddrPort, sources []netip.Addr) ([]net.Conn, error) {
	par := opt.Parallel
	if par <= 0 {
		par = 64
	}
	conns := make([]net.Conn, opt.Conns)
	var next atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tlsConf := &tls.Config{InsecureSkipVerify: true} // the user's own server on loopback: nothing to verify against
	for range par {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= opt.Conns || ctx.Err() != nil {
					return
				}
				d := net.Dialer{Timeout: 10 * time.Second}
				if src := sources[i%len(sources)]; src.IsValid() {
					d.LocalAddr = &net.TCPAddr{IP: src.AsSlice()}
				}
				c, err := d.DialContext(ctx, "tcp", dst.String())
				if err == nil && opt.TLS {
					tc := tls.Client(c, tlsConf)
					if err = tc.HandshakeContext(ctx); err != nil {
						c.Close()
					} else {
						c = tc
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("dialling %s (connection %d): %w", dst, i+1, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				conns[i] = c
			}
		})
	}
	wg.Wait()
	out := conns[:0]
	for _, c := range conns {
		if c != nil {
			out = append(out, c)
		}
	}
	if firstErr == nil && ctx.Err() != nil && len(out) < opt.Conns {
		firstErr = ctx.Err()
	}
	return out, firstErr
}

// settle waits until the server's descriptors show the new connections
// (it has accepted them) or opt.Settle passes, and returns how many it
// shows.
func settle(ctx context.Context, opt Options, procDir string, before, n int) int {
	wait := opt.Settle
	if wait <= 0 {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	got := 0
	for {
		if fds, err := countFDs(procDir); err == nil {
			got = fds - before
		}
		if got >= n || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Let the server finish what it does per connection after accept
	// (a first read, a handshake's buffers) before measuring.
	time.Sleep(200 * time.Millisecond)
	return min(got, n)
}

// drain reads, on every connection, what the server has already sent,
// waiting at most a few milliseconds on each (the server has had the
// settling time to write its greeting). It returns the bytes read and how
// many connections the server had already closed.
func drain(ctx context.Context, conns []net.Conn, parallel int) (int64, int) {
	if parallel <= 0 {
		parallel = 64
	}
	var total, next, closed atomic.Int64
	var wg sync.WaitGroup
	for range min(parallel, len(conns)) {
		wg.Go(func() {
			buf := make([]byte, 4096)
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(conns) {
					return
				}
				c := conns[i]
				// A deadline in the near future, not the past: Go checks an
				// expired deadline before it tries the read.
				c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
				for {
					n, err := c.Read(buf)
					total.Add(int64(n))
					if errors.Is(err, io.EOF) {
						closed.Add(1)
					}
					if err != nil || n == 0 {
						break
					}
				}
				c.SetReadDeadline(time.Time{})
			}
		})
	}
	wg.Wait()
	return total.Load(), int(closed.Load())
}

// released waits, up to the settling time, until the server's descriptors
// are back to what it held before the probe, and returns the wait and the
// descriptors still held above that level.
func released(ctx context.Context, procDir string, before int, wait time.Duration) (float64, int) {
	if wait <= 0 {
		wait = 10 * time.Second
	}
	start := time.Now()
	held := 0
	for {
		fds, err := countFDs(procDir)
		if err != nil {
			return time.Since(start).Seconds(), 0 // the server exited: nothing held
		}
		held = max(fds-before, 0)
		if held == 0 || time.Since(start) > wait || ctx.Err() != nil {
			return time.Since(start).Seconds(), held
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countFDs(procDir string) (int, error) {
	ents, err := os.ReadDir(procDir + "/fd")
	if err != nil {
		return 0, err
	}
	return len(ents), nil
}
