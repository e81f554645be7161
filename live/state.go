package live

import (
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// State is what the monitor knows now: the latest figures, the findings,
// the triggers and the snapshots. Handler serves it as HTML and, with
// ?format=json, as {"source":"live","findings":[...],"summary":State} —
// the shape of every schedoctor command's JSON, so `schedoctor check` and
// any other consumer read it like the rest. Durations are in seconds.
type State struct {
	Time     time.Time `json:"time"`
	Started  time.Time `json:"started"`
	Interval float64   `json:"interval_s"`
	// Window is the history the growth and GC rules were judged over (at
	// most Options.Window); Readings is how many readings it holds.
	Window   float64 `json:"window_s"`
	Readings int     `json:"readings"`

	GOMAXPROCS int64      `json:"gomaxprocs"`
	Goroutines Goroutines `json:"goroutines"`
	// RunnablePerP is runnable goroutines over GOMAXPROCS at the last
	// reading; RunnablePerPMean its mean over the latency span.
	RunnablePerP     float64 `json:"runnable_per_p"`
	RunnablePerPMean float64 `json:"runnable_per_p_mean"`
	Threads          int64   `json:"threads"`

	Latency Latency `json:"latency"`
	GC      GC      `json:"gc"`
	// MutexWait is the time goroutines spent waiting on sync.Mutex and
	// RWMutex per second of the latency span (/sync/mutex/wait/total:seconds
	// is itself estimated from one transition in eight).
	MutexWait float64 `json:"mutex_wait_s_per_s"`

	Findings []finding.Finding `json:"-"`
	Triggers []Trigger         `json:"triggers"`
	// FlightRecorder is "recording", "off" (Options.NoFlightRecorder) or
	// why it could not start, e.g. another flight recorder is active in the
	// program; the metrics keep running either way.
	FlightRecorder string `json:"flight_recorder"`
	// RecorderRate is the scheduling transitions per second at the last
	// check (eight times the sampled ones), RecorderEstimate the memory
	// the flight recorder holds for the transitions of the last two
	// seconds, RecorderCPU the share of GOMAXPROCS's CPU it cost (or
	// would have, paused) over the last minute, RecorderBudget and RecorderCPUBudget
	// Options.FlightRecorderMemory and FlightRecorderCPU, RecorderPauses
	// how often the recorder was paused to keep within them (budget.go).
	RecorderRate      float64 `json:"recorder_transitions_per_s"`
	RecorderEstimate  float64 `json:"recorder_bytes_estimate"`
	RecorderCPU       float64 `json:"recorder_cpu_share"`
	RecorderBudget    int64   `json:"recorder_budget_bytes"`
	RecorderCPUBudget float64 `json:"recorder_cpu_budget"`
	RecorderPauses    int64   `json:"recorder_pauses"`
	Dir               string  `json:"dir"`
	// DirRefused says why Dir was refused at Start (a link, another
	// user's, writable by group or others, not a directory): then no
	// flight recorder runs and no snapshot is written or served.
	DirRefused    string     `json:"dir_refused,omitempty"`
	Snapshots     []Snapshot `json:"snapshots"` // kept in Dir, oldest first
	SnapshotBytes int64      `json:"snapshot_bytes"`
	// SnapshotsWritten counts the snapshots written since Start, including
	// those since removed to keep Dir within its bounds.
	SnapshotsWritten int64 `json:"snapshots_written"`

	// P99s is the distribution of the rolling p99 scheduling latency
	// (seconds) at every reading whose span had enough samples;
	// RunnablePerPs that of runnable goroutines per P at every reading.
	P99s          Distribution `json:"p99_distribution"`
	RunnablePerPs Distribution `json:"runnable_per_p_distribution"`
	// LatencyHistogram is scheduling latency (runnable to running) since
	// Start: the sum of the differences of successive readings of
	// /sched/latencies:seconds, in buckets about twice as wide as the one
	// before from 8µs to 1s, each bound one of the runtime's own
	// (latencyhist.go), so no runtime bucket is split. Counts are sampled
	// transitions (the runtime samples one in eight); Sum is estimated from
	// the buckets' middles. Empty when the runtime lacks the metric.
	LatencyHistogram Distribution `json:"latency_histogram"`
	// Errors are the latest problems (a full or read-only Dir, a failed
	// diagnosis, a recovered panic), newest last; at most 20.
	Errors []TimedError `json:"errors"`
	// ErrorCount counts every error since Start.
	ErrorCount int64 `json:"error_count"`
	// Missing lists the runtime/metrics this Go runtime does not have.
	Missing []string `json:"missing_metrics,omitempty"`
}

// Goroutines are the goroutines by state at the last reading
// (/sched/goroutines/*, Go 1.26) and the creation rate over the latency span.
type Goroutines struct {
	Total       int64   `json:"total"`
	Runnable    int64   `json:"runnable"`
	Running     int64   `json:"running"`
	Waiting     int64   `json:"waiting"`
	NotInGo     int64   `json:"not_in_go"`
	CreatedPerS float64 `json:"created_per_s"`
}

// Latency is scheduling latency (runnable → running) over the latency span,
// from the differences of /sched/latencies:seconds. The runtime samples one
// transition in eight: Sampled is how many were sampled, about an eighth
// of the transitions. P99Low–P99High is the 95% confidence interval of the
// p99 (sampling error and bucket width together). A quantile whose bucket
// is the open top one has at_least set.
type Latency struct {
	Span     float64  `json:"span_s"`
	Sampled  uint64   `json:"sampled"`
	P50      Quantile `json:"p50"`
	P90      Quantile `json:"p90"`
	P99      Quantile `json:"p99"`
	P999     Quantile `json:"p999"`
	Max      Quantile `json:"max"`
	P99Low   float64  `json:"p99_low_s"`
	P99High  Quantile `json:"p99_high"`
	Judged   bool     `json:"judged"` // Sampled ≥ Options.MinLatencySamples
	Resolved string   `json:"resolution"`
}

// GC is garbage collection over the window: cycles, the GC's share of the
// CPU the process used (from /cpu/classes, which the runtime refreshes only
// at GC, so the span is between the first and last GC seen), and the
// stop-the-world pauses (/sched/pauses/total/gc).
type GC struct {
	Cycles     uint64   `json:"cycles"`
	Forced     uint64   `json:"forced"`
	CPUShare   float64  `json:"cpu_share"`
	PauseCount uint64   `json:"pauses"`
	PauseP99   Quantile `json:"pause_p99"`
	PauseMax   Quantile `json:"pause_max"`
	// StoppingP99 is the p99 of the time it took to stop the world for a
	// GC pause (/sched/pauses/stopping/gc), part of each pause.
	StoppingP99  Quantile `json:"stopping_p99"`
	AllocBytesPS float64  `json:"alloc_bytes_per_s"`
}

// Trigger is one kind of trigger and how often it fired.
type Trigger struct {
	Kind string `json:"kind"` // latency, runnable, goroutines, threads
	// Active says the condition holds at the last reading.
	Active bool `json:"active"`
	// Fired counts the times the condition started to hold, or still held
	// a SnapshotGap after it last fired.
	Fired int64     `json:"fired"`
	Last  time.Time `json:"last,omitzero"`
	// Skipped counts firings that got no snapshot (rate limit, a
	// snapshot in progress, no flight recorder). Triggers that fire at the
	// same reading share one snapshot, named after the first of
	// runnable, latency, goroutines, threads.
	Skipped int64  `json:"skipped"`
	Why     string `json:"why,omitempty"` // the figures behind the last firing
}

// Snapshot is one flight-recorder trace written to Dir.
type Snapshot struct {
	Name    string    `json:"name"`
	Trigger string    `json:"trigger"`
	Time    time.Time `json:"time"`
	Bytes   int64     `json:"bytes"`
	Why     string    `json:"why,omitempty"`
	// Diagnosis is "pending", "done", "failed: ...", or "none" (no
	// Options.Diagnose, or a file found in Dir from an earlier run).
	Diagnosis string            `json:"diagnosis"`
	Findings  []finding.Finding `json:"findings,omitempty"`
}

// TimedError is a problem the monitor met and survived.
type TimedError struct {
	Time  time.Time `json:"time"`
	Error string    `json:"error"`
}
