package probe

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/pprof"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Models are the built-in model servers, cheapest design last.
var Models = []string{"goroutine", "bufio", "http", "tls", "eventloop"}

// ModelTLS reports whether a model speaks TLS (the probe must handshake).
func ModelTLS(name string) bool { return name == "tls" }

// MetricNames are the runtime/metrics a model server's /metrics serves:
// the Go heap in use (objects plus the free space of in-use spans) and
// the goroutine stacks, which together are MemStats' HeapInuse+StackInuse.
var MetricNames = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/sched/goroutines:goroutines",
}

// ServeModel runs the named model server on a loopback port until ctx is
// done. It first writes one line to out: "model NAME addr HOST:PORT debug
// http://HOST:PORT", the second address serving net/http/pprof and
// /metrics (MetricNames as JSON, after a GC).
func ServeModel(ctx context.Context, name string, out io.Writer) error {
	if !slices.Contains(Models, name) {
		return fmt.Errorf("model %q: want one of %s", name, strings.Join(Models, ", "))
	}
	dbg, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for the debug server: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/metrics", serveMetrics)
	dsrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go dsrv.Serve(dbg)
	defer dsrv.Close()

	var addr string
	var serve func() error
	var stop func()
	if name == "eventloop" {
		el, err := newEventLoop()
		if err != nil {
			return fmt.Errorf("model eventloop: %w", err)
		}
		addr, serve, stop = el.addr, el.run, el.close
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("listening for model %s: %w", name, err)
		}
		addr = ln.Addr().String()
		serve, stop, err = goModel(name, ln)
		if err != nil {
			ln.Close()
			return err
		}
	}
	if _, err := fmt.Fprintf(out, "model %s addr %s debug http://%s\n", name, addr, dbg.Addr()); err != nil {
		stop()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- serve() }()
	select {
	case <-ctx.Done():
		stop()
		<-done
		return nil
	case err := <-done:
		stop()
		return err
	}
}

// goModel builds the goroutine-based models: each accepted connection gets
// its own goroutine (net/http's and crypto/tls's included).
func goModel(name string, ln net.Listener) (serve func() error, stop func(), err error) {
	switch name {
	case "http":
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(w, r.Body)
		})}
		return func() error {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}, func() { srv.Close() }, nil
	case "tls":
		cert, err := selfSigned()
		if err != nil {
			return nil, nil, err
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
	}
	var handle func(net.Conn)
	switch name {
	case "goroutine", "tls":
		handle = echo
	case "bufio":
		handle = echoBufio
	}
	return func() error { return acceptLoop(ln, handle) }, func() { ln.Close() }, nil
}

// acceptLoop accepts until the listener is closed, one goroutine per
// connection. Connections are closed by their handlers when the peer goes.
func acceptLoop(ln net.Listener, handle func(net.Conn)) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go handle(c)
	}
}

// echo is the tuned goroutine-per-connection server: one goroutine, a 2 KiB
// buffer on its stack.
func echo(c net.Conn) {
	defer c.Close()
	var buf [2048]byte
	for {
		n, err := c.Read(buf[:])
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// echoBufio is the idiomatic one: a bufio.Reader and bufio.Writer (4 KiB
// each) per connection, lines echoed.
func echoBufio(c net.Conn) {
	defer c.Close()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	for {
		line, err := r.ReadSlice('\n')
		if len(line) > 0 {
			w.Write(line)
			if w.Flush() != nil {
				return
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// serveMetrics writes MetricNames after a GC, as a JSON object.
func serveMetrics(w http.ResponseWriter, r *http.Request) {
	runtime.GC()
	samples := make([]metrics.Sample, len(MetricNames))
	for i, n := range MetricNames {
		samples[i].Name = n
	}
	metrics.Read(samples)
	out := map[string]uint64{}
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			out[s.Name] = s.Value.Uint64()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// selfSigned makes a throwaway certificate for the tls model.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generating the tls model's key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "schedoctor tls model"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("making the tls model's certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Model is a model server running as a child process, so that its memory
// is measured apart from the probe's.
type Model struct {
	Name     string
	PID      int
	Addr     string // the model's loopback address
	DebugURL string // its net/http/pprof and /metrics
	cmd      *exec.Cmd
	stdin    io.WriteCloser
}

// StartModel starts cmd, a program that runs ServeModel (schedoctor host
// -serve-model NAME, or a test binary), and waits for its address line.
// The child stops when its stdin closes: Stop closes it.
func StartModel(cmd *exec.Cmd) (*Model, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the model server %s: %w", cmd.Path, err)
	}
	m := &Model{PID: cmd.Process.Pid, cmd: cmd, stdin: stdin}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		io.Copy(io.Discard, stdout)
	}()
	select {
	case s := <-line:
		f := strings.Fields(s)
		if len(f) != 6 || f[0] != "model" || f[2] != "addr" || f[4] != "debug" {
			m.Stop()
			return nil, fmt.Errorf("model server %s said %q, want \"model NAME addr ADDR debug URL\"", cmd.Path, strings.TrimSpace(s))
		}
		m.Name, m.Addr, m.DebugURL = f[1], f[3], f[5]
		return m, nil
	case <-time.After(30 * time.Second):
		m.Stop()
		return nil, fmt.Errorf("model server %s gave no address in 30s", cmd.Path)
	}
}

// Stop ends the child: stdin closed, then killed if it lingers.
func (m *Model) Stop() error {
	m.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- m.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		m.cmd.Process.Kill()
		return <-done
	}
}

// Metrics reads the model's /metrics (MetricNames after a GC).
func (m *Model) Metrics(ctx context.Context) (map[string]uint64, error) {
	data, err := get(ctx, m.DebugURL+"/metrics")
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("model /metrics: %w", err)
	}
	return out, nil
}

// String is "model goroutine (pid 123)".
func (m *Model) String() string { return "model " + m.Name + " (pid " + strconv.Itoa(m.PID) + ")" }
