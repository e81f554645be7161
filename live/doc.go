// Package live is schedoctor's in-process monitor: it samples the
// runtime's scheduler metrics, judges SD701–SD704 as the program runs, and
// when scheduling goes wrong saves the flight recorder's last seconds of
// execution trace, so the 3 a.m. spike comes with the trace of that moment.
//
//	m, err := live.Start(ctx, live.Options{Dir: "/var/tmp/schedoctor"}) // zero Options: defaults
//	defer m.Stop()                                                      // waits for its goroutines; idempotent
//	mux.Handle("/debug/schedoctor/", m.Handler())                       // a localhost-only or authenticated mux
//	fs := m.Findings()                                                  // []finding.Finding, current
//
// Every Options.Interval (1s) it reads runtime/metrics into a bounded ring
// of Window (5m) readings: goroutines by state, runnable goroutines per P,
// threads, the /sched/latencies histogram (as differences of readings,
// with the 95% interval of its p99: the runtime samples one transition in
// eight), GC pauses and GC CPU, mutex wait. Triggers (runnable goroutines
// above RunnablePerP × GOMAXPROCS, the SD702 latency condition, goroutine
// and thread growth) write a runtime/trace.FlightRecorder snapshot to Dir:
// rate-limited, bounded in count and bytes, files 0600 named by time and
// trigger, then diagnosed in the background by Options.Diagnose. The
// flight recorder's memory follows the program's scheduling rate, so the
// monitor pauses it while the rate it reads would keep more than
// Options.FlightRecorderMemory (8 MiB) in it or cost more than
// Options.FlightRecorderCPU (1% of GOMAXPROCS), and records again once the
// rate falls (budget.go).
//
// The package uses the standard library, schedoctor's finding model
// (which imports nothing) and internal/safewrite, the one way schedoctor
// writes files (it brings golang.org/x/sys/unix for openat). The trace analysis that diagnoses
// snapshots is wired by live/livetrace (which brings golang.org/x/exp/trace);
// Prometheus export is live/prom (the only importer of client_golang).
//
// All methods of Monitor are safe for concurrent use. The monitor never
// panics into its host: panics in its goroutines and its handler are
// recovered and reported in State.Errors. Logging is off unless
// Options.Logf is set. docs/live.md has a real session, the JSON, the
// metrics and the measured overhead.
package live
