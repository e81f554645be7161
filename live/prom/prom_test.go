package prom_test

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/prom"
)

func value(t *testing.T, body, series string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no series %s in the scrape", series)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestScrapeShowsTrigger: beside client_golang's Go collector with the
// scheduler metrics on (no duplicate names), a spike of runnable
// goroutines shows as a fired trigger and a written snapshot.
func TestScrapeShowsTrigger(t *testing.T) {
	m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, LatencySpan: 500 * time.Millisecond,
		Dir: t.TempDir(), SnapshotDelay: -1, MinLatencySamples: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler, collectors.MetricsGC)),
		prom.NewCollector(m))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()

	labtest.Spike(100*runtime.GOMAXPROCS(0), 700*time.Millisecond)
	deadline := time.Now().Add(20 * time.Second)
	for m.State().SnapshotsWritten == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %d %s", resp.StatusCode, b)
	}
	body := string(b)
	if v := value(t, body, `schedoctor_triggers_fired_total{trigger="runnable"}`); v < 1 {
		t.Errorf("runnable trigger fired %v times", v)
	}
	if v := value(t, body, `schedoctor_snapshots_written_total`); v < 1 {
		t.Errorf("%v snapshots written", v)
	}
	if v := value(t, body, `schedoctor_sched_latency_p99_rolling_seconds_count`); v < 1 {
		t.Errorf("rolling p99 observed %v times", v)
	}
	value(t, body, `schedoctor_sched_latency_seconds{q="0.99"}`)
	value(t, body, `go_sched_latencies_seconds_count`) // the Go collector's, beside ours
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "schedoctor_") && (strings.Contains(line, "goroutines ") || strings.HasPrefix(line, "schedoctor_threads")) {
			t.Errorf("raw runtime figure exported: %s", line)
		}
	}
	problems, err := testutil.CollectAndLint(prom.NewCollector(m))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// TestLatencyHistogramExposition scrapes a real monitor in the text format
// and parses the whole body with Prometheus's own parser (expfmt): the
// latency histogram is a histogram, labelled with this Go version, its
// buckets the runtime's bounds about ×2 apart from ~8µs to past 1s, with
// cumulative counts that never fall and end at _count.
func TestLatencyHistogramExposition(t *testing.T) {
	m, err := live.Start(t.Context(), live.Options{Interval: 20 * time.Millisecond, NoFlightRecorder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler)),
		prom.NewCollector(m))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()

	// Goroutines that block and wake make scheduling transitions to count.
	deadline := time.Now().Add(20 * time.Second)
	for m.State().LatencyHistogram.Count == 0 && time.Now().Before(deadline) {
		labtest.Spike(4*runtime.GOMAXPROCS(0), 30*time.Millisecond)
		time.Sleep(30 * time.Millisecond)
	}
	req, err := http.NewRequest("GET", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("content type %q, want the text format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the scrape is not valid text exposition: %v", err)
	}
	fam := fams["schedoctor_sched_latencies_seconds"]
	if fam == nil || fam.GetType() != dto.MetricType_HISTOGRAM || len(fam.Metric) != 1 {
		t.Fatalf("schedoctor_sched_latencies_seconds: %v", fam)
	}
	mt := fam.Metric[0]
	if lp := mt.GetLabel(); len(lp) != 1 || lp[0].GetName() != "go_version" || lp[0].GetValue() != runtime.Version() {
		t.Errorf("labels %v, want go_version=%q", lp, runtime.Version())
	}
	h := mt.GetHistogram()
	bs := h.GetBucket()
	if n := len(bs); n > 0 && math.IsInf(bs[n-1].GetUpperBound(), 1) {
		bs = bs[:n-1] // the parser keeps the +Inf bucket; _count is its count
	}
	if len(bs) < 15 {
		t.Fatalf("%d buckets, want about 18", len(bs))
	}
	if lo, hi := bs[0].GetUpperBound(), bs[len(bs)-1].GetUpperBound(); lo < 8e-6 || lo > 16e-6 || hi < 1 {
		t.Errorf("buckets from %v to %v, want ~8µs to past 1s", lo, hi)
	}
	var prev uint64
	for i, b := range bs {
		if i > 0 {
			if r := b.GetUpperBound() / bs[i-1].GetUpperBound(); r < 1.99 || r > 2.51 {
				t.Errorf("le=%v is %.3f× the bucket before", b.GetUpperBound(), r)
			}
		}
		if b.GetCumulativeCount() < prev {
			t.Errorf("le=%v: cumulative count %d falls below %d", b.GetUpperBound(), b.GetCumulativeCount(), prev)
		}
		prev = b.GetCumulativeCount()
	}
	if h.GetSampleCount() == 0 || prev > h.GetSampleCount() || h.GetSampleSum() <= 0 {
		t.Errorf("count %d, last bucket %d, sum %v: want transitions counted", h.GetSampleCount(), prev, h.GetSampleSum())
	}
	// 1.05ms (2^20ns) is a bound: the bucket 1ms falls in, apart from 9ms's.
	found := false
	for _, b := range bs {
		found = found || b.GetUpperBound() == 0.001048576
	}
	if !found {
		t.Errorf("no bucket le=0.001048576 (2^20ns) among %v", bs)
	}
	if fams["go_sched_latencies_seconds"] == nil {
		t.Errorf("client_golang's own histogram missing beside ours")
	}
}
