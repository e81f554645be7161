// Package prom exports a live.Monitor's derived figures to Prometheus
// under the schedoctor_ prefix. It is the only part of schedoctor that
// imports client_golang.
//
// It exports what the monitor derives, never the runtime's raw metrics:
// goroutine and thread counts, GOMAXPROCS, GC pause histograms and the raw
// /sched/latencies histogram are client_golang's Go collector's
// (go_goroutines, go_threads, go_sched_gomaxprocs_threads, and
// go_sched_latencies_seconds with collectors.MetricsScheduler), so
// registering both duplicates nothing.
//
//	m, _ := live.Start(ctx, live.Options{})
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(collectors.NewGoCollector(), prom.NewCollector(m))
//	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
package prom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/schedoctor/schedoctor/live"
)

// Collector reads the monitor's State at each scrape; it keeps nothing
// itself. It is safe for concurrent scrapes.
type Collector struct {
	m *live.Monitor
}

// NewCollector returns a collector for m.
func NewCollector(m *live.Monitor) *Collector { return &Collector{m: m} }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("schedoctor_"+name, help, labels, nil)
}

var (
	latencyQ = desc("sched_latency_seconds",
		"Scheduling latency (runnable to running) quantile over the monitor's latency span, from the differences of "+
			"/sched/latencies (one transition in eight sampled); a quantile in the open top bucket is its lower bound, "+
			"see schedoctor_sched_latency_at_least (label q, not quantile: this is a gauge over a span, not a summary).", "q")
	latencyAtLeast = desc("sched_latency_at_least",
		"1 when the quantile fell in the runtime histogram's open top bucket: the value is a lower bound.", "q")
	latencyCI = desc("sched_latency_p99_interval_seconds",
		"95% confidence interval of the p99 scheduling latency (sampling error and bucket width).", "bound")
	latencySampled = desc("sched_latency_sampled_transitions",
		"Transitions the runtime sampled (one in eight) over the latency span.")
	latencySpan  = desc("sched_latency_span_seconds", "Length of the span the latency quantiles are taken over.")
	p99Hist      = desc("sched_latency_p99_rolling_seconds", "Distribution of the rolling p99 scheduling latency, one observation per reading with enough samples.")
	runnableNow  = desc("runnable_per_p", "Runnable goroutines per P (GOMAXPROCS) at the last reading.")
	runnableMean = desc("runnable_per_p_mean", "Mean runnable goroutines per P over the latency span.")
	runnableHist = desc("runnable_per_p_rolling", "Distribution of runnable goroutines per P, one observation per reading.")
	created      = desc("goroutines_created_per_second", "Goroutines created per second over the latency span.")
	mutexWait    = desc("mutex_wait_seconds_per_second", "Time goroutines waited on sync.Mutex/RWMutex per second, over the latency span.")
	gcShare      = desc("gc_cpu_share", "GC's share of the CPU the process used over the window (refreshed by the runtime at GC only).")
	gcPauseP99   = desc("gc_pause_p99_seconds", "p99 GC stop-the-world pause over the window.")
	fired        = desc("triggers_fired_total", "Times a snapshot trigger fired.", "trigger")
	skipped      = desc("triggers_skipped_total", "Trigger firings that wrote no snapshot (rate limit, one in progress, no flight recorder).", "trigger")
	active       = desc("trigger_active", "1 while a trigger's condition holds.", "trigger")
	written      = desc("snapshots_written_total", "Flight-recorder snapshots written.")
	kept         = desc("snapshots_kept", "Snapshot files kept in the directory.")
	keptBytes    = desc("snapshots_bytes", "Total bytes of the snapshot files kept.")
	recording    = desc("flight_recorder_recording", "1 when the monitor's flight recorder is recording.")
	errorsTotal  = desc("errors_total", "Errors the monitor met and survived (unwritable directory, failed diagnosis, recovered panic).")
	findings     = desc("findings", "Current findings by rule and severity.", "rule", "severity")
)

var all = []*prometheus.Desc{latencyQ, latencyAtLeast, latencyCI, latencySampled, latencySpan, p99Hist, runnableNow,
	runnableMean, runnableHist, created, mutexWait, gcShare, gcPauseP99, fired, skipped, active, written, kept,
	keptBytes, recording, errorsTotal, findings}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range all {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.m.State()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	l := st.Latency
	for _, q := range []struct {
		name string
		v    live.Quantile
	}{{"0.5", l.P50}, {"0.9", l.P90}, {"0.99", l.P99}, {"0.999", l.P999}, {"1", l.Max}} {
		gauge(latencyQ, q.v.Seconds, q.name)
		gauge(latencyAtLeast, b2f(q.v.AtLeast), q.name)
	}
	gauge(latencyCI, l.P99Low, "low")
	gauge(latencyCI, l.P99High.Seconds, "high")
	gauge(latencySampled, float64(l.Sampled))
	gauge(latencySpan, l.Span)
	histogram(ch, p99Hist, st.P99s)
	gauge(runnableNow, st.RunnablePerP)
	gauge(runnableMean, st.RunnablePerPMean)
	histogram(ch, runnableHist, st.RunnablePerPs)
	gauge(created, st.Goroutines.CreatedPerS)
	gauge(mutexWait, st.MutexWait)
	gauge(gcShare, st.GC.CPUShare)
	gauge(gcPauseP99, st.GC.PauseP99.Seconds)
	for _, t := range st.Triggers {
		counter(fired, float64(t.Fired), t.Kind)
		counter(skipped, float64(t.Skipped), t.Kind)
		gauge(active, b2f(t.Active), t.Kind)
	}
	counter(written, float64(st.SnapshotsWritten))
	gauge(kept, float64(len(st.Snapshots)))
	gauge(keptBytes, float64(st.SnapshotBytes))
	gauge(recording, b2f(st.FlightRecorder == "recording"))
	counter(errorsTotal, float64(st.ErrorCount))
	type key struct{ rule, sev string }
	n := map[key]int{}
	var order []key
	for _, f := range st.Findings {
		k := key{f.Rule, f.Severity.String()}
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	for _, k := range order {
		gauge(findings, float64(n[k]), k.rule, k.sev)
	}
}

// histogram exports a Distribution; its open tail is the +Inf bucket, so
// no observation is clipped.
func histogram(ch chan<- prometheus.Metric, d *prometheus.Desc, dist live.Distribution) {
	buckets := make(map[float64]uint64, len(dist.Bounds))
	var cum uint64
	for i, b := range dist.Bounds {
		cum += dist.Counts[i]
		buckets[b] = cum
	}
	ch <- prometheus.MustNewConstHistogram(d, dist.Count, dist.Sum, buckets)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
