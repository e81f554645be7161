package loadgen

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/labtest"
)

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080/x", "http://localhost:1/", "http://[::1]:9/", "http://127.1.2.3/"} {
		if _, err := CheckURL(ok); err != nil {
			t.Errorf("CheckURL(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"http://example.com/", "http://10.0.0.1:80/", "http://0.0.0.0:80/", "https://127.0.0.1/", "ftp://127.0.0.1/", "127.0.0.1:80", "http://:80/", "http://[::ffff:10.0.0.1]/", "%"} {
		if _, err := CheckURL(bad); err == nil {
			t.Errorf("CheckURL(%q) accepted a non-loopback or malformed URL", bad)
		}
	}
	_, err := CheckURL("http://192.168.1.1:80/")
	if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), "192.168.1.1") {
		t.Errorf("err = %v, want ErrNotLoopback naming the host", err)
	}
}

func TestDialRefusesNonLoopback(t *testing.T) {
	if err := loopbackOnly("tcp", "10.1.2.3:80", nil); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("loopbackOnly(10.1.2.3) = %v", err)
	}
	if err := loopbackOnly("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("loopbackOnly(127.0.0.1) = %v", err)
	}
}

func TestHistogram(t *testing.T) {
	for v := int64(0); v < 1<<20; v = v*3/2 + 1 {
		i := bucketOf(v)
		lo, hi := bucketRange(i)
		if v < lo || v > hi {
			t.Fatalf("value %d in bucket %d = [%d, %d]", v, i, lo, hi)
		}
	}
	if i := bucketOf(1<<63 - 1); i >= numBuckets {
		t.Fatalf("max int64 in bucket %d of %d", i, numBuckets)
	}
	var h Histogram
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]time.Duration, 10000)
	for i := range vals {
		vals[i] = time.Duration(r.ExpFloat64() * float64(time.Millisecond))
		h.Record(vals[i])
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := vals[int(q*float64(len(vals)))-1]
		got := h.Quantile(q)
		if d := float64(got-want) / float64(want); d > 1.0/64 || d < -1.0/64 {
			t.Errorf("p%v = %v, want %v within 1.6%%", q*100, got, want)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Count() != 10000 {
		t.Errorf("max %v count %d", h.Max(), h.Count())
	}
	var empty Histogram
	if empty.Quantile(0.99) != 0 {
		t.Error("empty histogram has a p99")
	}
}

func TestRunMeasuresLatency(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
	}))
	defer srv.Close()
	m := labtest.StartMeter()
	res, err := Run(context.Background(), Config{URL: srv.URL, Rate: 200, Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Planned != 100 || res.OK != 100 || res.Errors != 0 || res.Unsent != 0 {
		// A starved generator or server times requests out (5s).
		m.SkipIfBusy(t, "planned %d ok %d errors %d (%s) unsent %d", res.Planned, res.OK, res.Errors, res.FirstError, res.Unsent)
		t.Errorf("planned %d ok %d errors %d unsent %d, want 100 ok", res.Planned, res.OK, res.Errors, res.Unsent)
	}
	if res.P50 < 0.010 || res.P99 < res.P50 || res.P999 < res.P99 || res.Max < res.P999 {
		t.Errorf("latencies p50 %v p99 %v p99.9 %v max %v: p50 must be at least the 10ms the server sleeps, in order", res.P50, res.P99, res.P999, res.Max)
	}
}

// TestOpenLoop: a server that stalls once for 300ms while one request may be
// in flight. A closed-loop generator would see one slow request; measured
// from the intended send times, the 30 requests due during the stall are
// all late, so p90 shows the stall.
func TestOpenLoop(t *testing.T) {
	var once sync.Once
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if time.Since(start) > 200*time.Millisecond {
			once.Do(func() { time.Sleep(300 * time.Millisecond) })
		}
	}))
	defer srv.Close()
	m := labtest.StartMeter()
	start = time.Now()
	res, err := Run(context.Background(), Config{URL: srv.URL, Rate: 100, Duration: time.Second, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.OK != 100 {
		// A generator that falls behind leaves requests unsent at the end.
		m.SkipIfBusy(t, "ok = %d of 100 (unsent %d)", res.OK, res.Unsent)
		t.Errorf("ok = %d, want 100", res.OK)
	}
	if res.P90 < 0.1 {
		t.Errorf("p90 = %v: the 300ms stall is hidden (coordinated omission)", res.P90)
	}
	if res.P50 > 0.1 {
		// Requests late only because the generator or the server waited
		// for a CPU: not the property under test.
		m.SkipIfBusy(t, "p50 = %v", res.P50)
		t.Errorf("p50 = %v: most requests were not delayed", res.P50)
	}
}

func TestRunCountsErrorsAndUnsent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{URL: srv.URL, Rate: 100, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 0 || res.Errors != 20 || !strings.Contains(res.FirstError, "500") {
		t.Errorf("ok %d errors %d (%q), want 20 errors naming status 500", res.OK, res.Errors, res.FirstError)
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(400 * time.Millisecond)
	}))
	defer slow.Close()
	res, err = Run(context.Background(), Config{URL: slow.URL, Rate: 100, Duration: 200 * time.Millisecond, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 1 || res.Unsent != 19 {
		t.Errorf("ok %d unsent %d, want 1 sent and 19 unsent under a cap of 1", res.OK, res.Unsent)
	}
}

func TestRunRejects(t *testing.T) {
	if _, err := Run(context.Background(), Config{URL: "http://example.com/", Rate: 1, Duration: time.Second}); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("err = %v, want ErrNotLoopback", err)
	}
	if _, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1/", Rate: 0, Duration: time.Second}); err == nil {
		t.Error("rate 0 accepted")
	}
}

func TestWaitReady(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := WaitReady(context.Background(), "http://"+addr+"/", time.Second, nil); err != nil {
		t.Errorf("listening: %v", err)
	}
	ln.Close()
	err = WaitReady(context.Background(), "http://"+addr+"/", 200*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "within 200ms") {
		t.Errorf("closed port: %v", err)
	}
	exited := make(chan struct{})
	close(exited)
	err = WaitReady(context.Background(), "http://"+addr+"/", time.Minute, exited)
	if err == nil || !strings.Contains(err.Error(), "exited before accepting") {
		t.Errorf("dead server: %v", err)
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	var h Histogram
	d := time.Duration(1)
	for b.Loop() {
		h.Record(d)
		d = (d*7 + 13) & (1<<40 - 1)
	}
}
