package probe

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// The test binary doubles as the model server: StartModel runs it again
// with SCHEDOCTOR_PROBE_MODEL set, as schedoctor runs itself with
// -serve-model.
func TestMain(m *testing.M) {
	if name := os.Getenv("SCHEDOCTOR_PROBE_MODEL"); name != "" {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			io.Copy(io.Discard, os.Stdin)
			cancel()
		}()
		if err := ServeModel(ctx, name, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startModel(t *testing.T, name string) *Model {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SCHEDOCTOR_PROBE_MODEL="+name)
	cmd.Stderr = os.Stderr
	m, err := StartModel(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Stop() })
	return m
}

func countSelfFDs(t *testing.T) int {
	t.Helper()
	n, err := countFDs("/proc/self")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return n
}

func rss(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := sysread.File("/", fmt.Sprintf("/proc/%d/status", pid), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := statusKB(data, "VmRSS:")
	if !ok {
		t.Fatal("no VmRSS")
	}
	return v
}

// goBytes is the Go heap in use and stacks by runtime/metrics: what
// MemStats' HeapInuse+StackInuse counts.
func goBytes(m map[string]uint64) float64 {
	return float64(m["/memory/classes/heap/objects:bytes"] + m["/memory/classes/heap/unused:bytes"] + m["/memory/classes/heap/stacks:bytes"])
}

// TestProbeGoroutineModel is the criterion: the probe's figure for
// a goroutine-per-connection echo server is within 20% of what the
// server's own runtime/metrics and /proc/PID/status say, divided by N; and
// every socket is closed afterwards.
func TestProbeGoroutineModel(t *testing.T) {
	if testing.Short() {
		t.Skip("opens thousands of connections")
	}
	const n = 3000
	m := startModel(t, "goroutine")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	selfBefore := countSelfFDs(t)
	before, err := m.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rssBefore := rss(t, m.PID)
	var after map[string]uint64
	var rssAfter int64
	res, err := Run(ctx, Options{Addr: m.Addr, PID: m.PID, Conns: n, PprofURL: m.DebugURL, Settle: time.Minute, Hold: func() {
		rssAfter = rss(t, m.PID)
		after, err = m.Metrics(ctx)
		if err != nil {
			t.Error(err)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opened %d, accepted %d in %.1fs; RSS %.0f B/conn, Go %.0f B/conn, %.2f goroutines/conn, kernel %.0f B/conn (%s)",
		res.Opened, res.Accepted, res.Seconds, res.RSSPerConn, res.GoPerConn, res.GoroutinesPer, res.KernelPerConn, res.KernelObjects)
	if res.Opened != n || res.Accepted != n {
		t.Fatalf("opened %d, accepted %d, want %d: %v", res.Opened, res.Accepted, n, res.Notes)
	}
	if !res.Closed {
		t.Error("Closed is false")
	}
	wantGo := (goBytes(after) - goBytes(before)) / n
	wantRSS := float64(rssAfter-rssBefore) / n
	t.Logf("the server's own figures: runtime/metrics heap+stacks %.0f B/conn, /proc/PID/status VmRSS %.0f B/conn", wantGo, wantRSS)
	within := func(what string, got, want float64) {
		if want <= 0 || math.Abs(got-want) > 0.2*want {
			t.Errorf("%s: probe says %.0f B/conn, the server's own figures %.0f B/conn: not within 20%%", what, got, want)
		}
	}
	within("Go heap+stacks vs runtime/metrics", res.GoPerConn, wantGo)
	within("RSS vs /proc/PID/status", res.RSSPerConn, wantRSS)
	if g := res.GoroutinesPer; g < 0.95 || g > 1.05 {
		t.Errorf("%.2f goroutines per connection, want 1 for a goroutine per connection", g)
	}

	// Every socket closed: ours at once, the server's when it reads EOF
	// (a generous deadline: on a crowded machine the server runs late).
	deadline := time.Now().Add(time.Minute)
	for {
		srv, err := countFDs(fmt.Sprintf("/proc/%d", m.PID))
		if err != nil {
			t.Fatal(err)
		}
		if srv <= res.Before.FDs {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still has %d descriptors, %d before the probe: connections left open", srv, res.Before.FDs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if self := countSelfFDs(t); self > selfBefore+4 {
		t.Errorf("the probe process holds %d descriptors, %d before: connections left open", self, selfBefore)
	}
}

// TestProbeModels measures each model with a few hundred connections and
// checks the ordering the designs imply: an event loop adds no goroutine,
// the goroutine models one each, bufio more bytes than the bare echo.
func TestProbeModels(t *testing.T) {
	if testing.Short() {
		t.Skip("opens connections to several model servers")
	}
	const n = 500
	figures := map[string]*Result{}
	for _, name := range Models {
		t.Run(name, func(t *testing.T) {
			m := startModel(t, name)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := Run(ctx, Options{Addr: m.Addr, PID: m.PID, Conns: n, PprofURL: m.DebugURL, TLS: ModelTLS(name), Settle: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.Opened != n {
				t.Fatalf("opened %d of %d: %v", res.Opened, n, res.Notes)
			}
			t.Logf("%s: RSS %.0f B/conn, Go %.0f B/conn, %.2f goroutines/conn", name, res.RSSPerConn, res.GoPerConn, res.GoroutinesPer)
			figures[name] = res
		})
	}
	el, g, b := figures["eventloop"], figures["goroutine"], figures["bufio"]
	if el == nil || g == nil || b == nil {
		return
	}
	if el.GoroutinesPer > 0.05 {
		t.Errorf("eventloop: %.2f goroutines per connection, want none", el.GoroutinesPer)
	}
	if el.GoPerConn >= g.GoPerConn {
		t.Errorf("eventloop %.0f B/conn of Go memory, goroutine %.0f: the event loop should cost less", el.GoPerConn, g.GoPerConn)
	}
	if b.GoPerConn <= g.GoPerConn {
		t.Errorf("bufio %.0f B/conn, goroutine %.0f: two 4 KiB buffers should cost more", b.GoPerConn, g.GoPerConn)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"10.0.0.1:80", "example.com:80", "8.8.8.8:53", "[2001:db8::1]:80", "127.0.0.1", "127.0.0.1:0"} {
		if _, err := loopback(addr); err == nil {
			t.Errorf("%s accepted", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "127.3.2.1:8080", "[::1]:80", "localhost:80", "[::ffff:127.0.0.1]:80"} {
		if _, err := loopback(addr); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	_, err := Run(context.Background(), Options{Addr: "192.0.2.1:80", PID: os.Getpid(), Conns: 1})
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("Run to a remote address: %v", err)
	}
}

func TestSourceAddrs(t *testing.T) {
	v4 := mustAddrPort(t, "127.0.0.1:80")
	one, err := sourceAddrs(v4, 100)
	if err != nil || len(one) != 1 || one[0].IsValid() {
		t.Errorf("100 connections: %v %v, want the kernel's choice", one, err)
	}
	many, err := sourceAddrs(v4, 200000)
	if err != nil || len(many) < 2 || many[1].String() != "127.0.0.2" {
		t.Errorf("200000 connections: %v %v, want several 127.0.0.x", many, err)
	}
	if _, err := sourceAddrs(mustAddrPort(t, "[::1]:80"), 200000); err == nil {
		t.Error("200000 connections to ::1 accepted: IPv6 loopback has one address")
	}
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := loopback(s)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// TestProbeSpreadsSources: beyond the ports of one source address, the
// probe dials from several addresses of 127.0.0.0/8, and the server sees
// them all; every connection is closed afterwards.
func TestProbeSpreadsSources(t *testing.T) {
	perSourceLimit = 100
	defer func() { perSourceLimit = 0 }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	peers := map[string]int{}
	open := 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
			mu.Lock()
			peers[host]++
			open++
			mu.Unlock()
			go func() {
				io.Copy(io.Discard, c)
				c.Close()
				mu.Lock()
				open--
				mu.Unlock()
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Addr: ln.Addr().String(), PID: os.Getpid(), Conns: 250, Settle: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.SourceAddrs != 3 || res.Opened != 250 {
		t.Errorf("%d source addresses, %d opened; want 3 and 250", res.SourceAddrs, res.Opened)
	}
	mu.Lock()
	if len(peers) != 3 || peers["127.0.0.2"] == 0 || peers["127.0.0.3"] == 0 {
		t.Errorf("the server saw peers %v, want 127.0.0.1-3", peers)
	}
	mu.Unlock()
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		n := open
		mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open after the probe", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProbeGreetingAndServerClose: what a server sends unprompted (a NATS
// INFO line) is read by the probe, so it is not counted as the server's
// buffers; connections the server closes at once are counted apart and
// left out of the division; and every descriptor, the probe's and the
// server's, is released before Run returns.
func TestProbeGreetingAndServerClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	greeting := []byte("INFO {\"server_id\":\"probe-test\"}\r\n")
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(greeting)
			if i%4 == 0 {
				c.Close() // an idle timeout of zero: one in four
				continue
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
			go func() { // close when the probe hangs up
				io.Copy(io.Discard, c)
				c.Close()
			}()
		}
	}()
	const n = 200
	selfBefore := countSelfFDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{Addr: ln.Addr().String(), PID: os.Getpid(), Conns: n, Settle: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Opened != n {
		t.Fatalf("opened %d of %d: %v", res.Opened, n, res.Notes)
	}
	if want := int64(n * len(greeting)); res.GreetingBytes != want {
		t.Errorf("greeting: read %d bytes, want %d", res.GreetingBytes, want)
	}
	if res.ServerClosed != n/4 {
		t.Errorf("server closed %d, want %d", res.ServerClosed, n/4)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "closed 50 of the 200") {
		t.Errorf("notes %q", res.Notes)
	}
	if self := countSelfFDs(t); self > selfBefore+4 {
		t.Errorf("%d descriptors after Run, %d before: connections left open (held after: %d)", self, selfBefore, res.HeldAfter)
	}
}

func TestCheckPprofURL(t *testing.T) {
	for _, u := range []string{"http://10.0.0.1:6060", "http://example.com/", "ftp://127.0.0.1/", "127.0.0.1:6060", "http://[2001:db8::1]:80"} {
		if CheckPprofURL(u) == nil {
			t.Errorf("%s accepted", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:6060", "http://localhost:6060/", "https://[::1]:8443", "http://127.9.9.9:1"} {
		if err := CheckPprofURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
