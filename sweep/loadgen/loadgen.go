// Package loadgen is an open-loop HTTP load generator for loopback
// servers: it schedules requests at a fixed rate and measures each
// latency from the time the request was meant to be sent, not from when it
// was sent, so a server that stalls cannot hide its stall by slowing the
// generator down (coordinated omission). At most MaxInFlight requests are
// outstanding; a request that must wait for a slot still counts its wait.
//
// It talks to loopback addresses only: the URL's host must be a loopback
// IP or "localhost", and every connection is checked again when it is
// dialled, so a name that resolves elsewhere is refused too.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// Config is one load run. Rate and Duration are required.
type Config struct {
	URL         string
	Rate        float64       // requests per second
	Duration    time.Duration // how long to send
	MaxInFlight int           // outstanding requests at most; 0 means 512
	Timeout     time.Duration // per request; 0 means 5s
}

// Result is what one load run measured. Latencies are in seconds, of
// successful requests only (status < 400), measured from the intended
// send time.
type Result struct {
	Planned    int64   `json:"planned"`    // requests the rate and duration call for
	OK         int64   `json:"ok"`         // status < 400, body read
	Errors     int64   `json:"errors"`     // transport errors, timeouts and statuses >= 400
	Unsent     int64   `json:"unsent"`     // never sent: all MaxInFlight slots stayed busy until the end
	FirstError string  `json:"firstError"` // an example, "" for none
	Seconds    float64 `json:"seconds"`    // from the first intended send to the last response
	Throughput float64 `json:"throughput"` // OK responses per second
	P50        float64 `json:"p50"`
	P90        float64 `json:"p90"`
	P99        float64 `json:"p99"`
	P999       float64 `json:"p999"`
	Max        float64 `json:"max"`
}

// ErrNotLoopback is returned for a URL whose host is not a loopback address.
var ErrNotLoopback = errors.New("only loopback addresses may be loaded (127.0.0.0/8, ::1, localhost)")

// CheckURL parses raw and returns it when it is an http URL on a loopback
// host with a port or a default port.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("load URL: %w", err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("load URL %q: scheme %q: only http is supported", raw, u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("load URL %q: no host", raw)
	}
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("load URL %q: host %q: %w", raw, host, ErrNotLoopback)
		}
	}
	return u, nil
}

// hostPort returns u's host:port, with port 80 when none is given.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// loopbackOnly is a net.Dialer Control that refuses non-loopback peers.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("dialling %s: %w", address, ErrNotLoopback)
	}
	return nil
}

// WaitReady dials the URL's host and port until a connection is accepted,
// every 20ms, for at most timeout. It gives up early when exited is closed
// (the server died) or ctx is done.
func WaitReady(ctx context.Context, raw string, timeout time.Duration, exited <-chan struct{}) error {
	u, err := CheckURL(raw)
	if err != nil {
		return err
	}
	addr := hostPort(u)
	d := net.Dialer{Timeout: 200 * time.Millisecond, Control: loopbackOnly}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-exited:
			return fmt.Errorf("the command exited before accepting connections on %s", addr)
		case <-deadline.C:
			return fmt.Errorf("nothing accepted connections on %s within %v (last: %v)", addr, timeout, last)
		case <-tick.C:
		}
	}
}

// Run sends the load and returns what it measured. It returns early, with
// what it has, when ctx is done.
func Run(ctx context.Context, cfg Config) (Result, error) {
	u, err := CheckURL(cfg.URL)
	if err != nil {
		return Result{}, err
	}
	if cfg.Rate <= 0 || cfg.Duration <= 0 {
		return Result{}, fmt.Errorf("load: rate %v and duration %v must be positive", cfg.Rate, cfg.Duration)
	}
	inflight := cfg.MaxInFlight
	if inflight <= 0 {
		inflight = 512
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	tr := &http.Transport{
		Proxy:               nil, // never through a proxy: loopback only
		DialContext:         (&net.Dialer{Timeout: timeout, Control: loopbackOnly}).DialContext,
		MaxIdleConns:        inflight,
		MaxIdleConnsPerHost: inflight,
		MaxConnsPerHost:     inflight,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: timeout}

	g := &gen{client: client, url: u.String()}
	planned := int64(cfg.Duration.Seconds() * cfg.Rate)
	res := Result{Planned: planned}
	sem := make(chan struct{}, inflight)
	start := time.Now()
	end := time.NewTimer(cfg.Duration)
	defer end.Stop()
	var wg sync.WaitGroup
	sleep := time.NewTimer(0)
	<-sleep.C
send:
	for i := int64(0); i < planned; i++ {
		intended := start.Add(time.Duration(float64(i) * float64(time.Second) / cfg.Rate))
		if d := time.Until(intended); d > 0 {
			sleep.Reset(d)
			select {
			case <-sleep.C:
			case <-ctx.Done():
				res.Unsent = planned - i
				break send
			}
		}
		select {
		case sem <- struct{}{}:
		default:
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				res.Unsent = planned - i
				break send
			case <-end.C:
				// Every slot stayed busy to the end of the window: the
				// rest could not be sent without breaking the cap.
				res.Unsent = planned - i
				break send
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			g.do(ctx, intended)
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	g.mu.Lock()
	defer g.mu.Unlock()
	res.OK, res.Errors, res.FirstError = g.hist.Count(), g.errors, g.firstErr
	if res.Seconds > 0 {
		res.Throughput = float64(res.OK) / res.Seconds
	}
	res.P50 = g.hist.Quantile(0.50).Seconds()
	res.P90 = g.hist.Quantile(0.90).Seconds()
	res.P99 = g.hist.Quantile(0.99).Seconds()
	res.P999 = g.hist.Quantile(0.999).Seconds()
	res.Max = g.hist.Max().Seconds()
	return res, nil
}

// gen holds one run's shared state.
type gen struct {
	client *http.Client
	url    string

	mu       sync.Mutex
	hist     Histogram
	errors   int64
	firstErr string
}

func (g *gen) do(ctx context.Context, intended time.Time) {
	err := g.request(ctx)
	lat := time.Since(intended)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.errors++
		if g.firstErr == "" {
			g.firstErr = err.Error()
		}
		return
	}
	g.hist.Record(lat)
}

func (g *gen) request(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.url, nil)
	if err != nil {
		return err
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("reading the response: %w", err)
	}
	if resp.StatusCode >= 400 {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
