package prom_test

import (
	"io"
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
