package live

import (
	"fmt"
	"runtime/metrics"
	"runtime/trace"
	"time"
)

// The flight recorder's memory is not bounded by FlightRecorderConfig.MaxBytes
// alone: the runtime cuts its trace into generations of about a second
// (runtime.defaultTraceAdvancePeriod) and keeps the generation being
// written plus at least one complete one, whatever MaxBytes says
// (runtime/trace's recorder.endGeneration). What it holds is therefore the
// trace's event rate times a few seconds, plus the Go heap's headroom over
// that garbage-collected data. The event rate follows the scheduling
// transitions, which the runtime counts anyway: /sched/latencies samples
// one runnable→running transition in eight.
//
// recorderBytesPerRate is the mapped memory the flight recorder added per
// scheduling transition per second, at the default FlightRecorderAge of
// 2s: measured here on the overhead benchmark's RPC workload (16 clients,
// 4 servers, channel round trips) at 383,000–595,000 transitions/s, which
// added 28.7–40.7 MB (68–75 bytes per transition/s); the larger is kept so
// that the estimate errs towards pausing.
const recorderBytesPerRate = 75

// budgetInterval is how often the budget is checked (at most Interval):
// one read of one histogram, a few microseconds, while the recorder fills
// at up to about 10 MB per second at the rates measured here, so a check
// every second would let a burst of scheduling put that much in it
// before the pause (measured: 12.6–29.6 MB with a check per reading).
const budgetInterval = 100 * time.Millisecond

// pauseAfter and resumeAfter are how many consecutive checks the estimate
// must be above the budget before the recorder is paused (one: 0.1s), and
// below half of it before it records again (5s). One check suffices: at
// the budget a check counts about 1,400 sampled transitions, a rate, not a
// blip, and each check waited for is more trace held (measured with the
// RPC workload: 7.2–10.3 MB held after two checks at 0.6–1.1M
// transitions/s, 7.0–11.6 MB after one at 1.3–2.4M, 3.4–4.6 MB after one
// with the first reading taken at Start, at 0.34–0.93M). Five seconds below
// half keep a workload that hovers at the budget from turning the
// recorder on and off.
const (
	pauseAfter  = 1
	resumeAfter = 50
)

// budgetReader reads the latency histogram's total count.
type budgetReader struct {
	s     []metrics.Sample
	at    time.Time
	count uint64
	ok    bool
}

// rate returns the scheduling transitions per second since the last call
// (false on the first).
func (b *budgetReader) rate(now time.Time) (float64, bool) {
	if b.s == nil {
		b.s = []metrics.Sample{{Name: mLatency}}
	}
	metrics.Read(b.s)
	if b.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0, false
	}
	var n uint64
	for _, c := range b.s[0].Value.Float64Histogram().Counts {
		n += c
	}
	prevAt, prev, ok := b.at, b.count, b.ok
	b.at, b.count, b.ok = now, n, true
	if !ok || !now.After(prevAt) || n < prev {
		return 0, false
	}
	return 8 * float64(n-prev) / now.Sub(prevAt).Seconds(), true
}

// checkBudget pauses the flight recorder while the memory it would hold
// at the measured scheduling rate is above Options.FlightRecorderMemory,
// and restarts it once the rate has fallen. The trade-off: while paused,
// a trigger gets no snapshot (counted as skipped), and after a restart
// the recorder holds only what happened since. It runs on the sampling
// goroutine and changes m.fr only when no snapshot is being written
// (m.busy false): FlightRecorder.Stop must not run beside WriteTo, which
// only the worker calls, for a job tick handed it.
func (m *Monitor) checkBudget() {
	defer m.guard("the flight recorder's budget")
	rate, ok := m.bud.rate(time.Now())
	if !ok {
		return
	}
	est := rate * recorderBytesPerRate
	limit := float64(m.o.FlightRecorderMemory)
	// Log after unlocking (defers run last first): Logf is the host's
	// code and may be slow.
	var log string
	defer func() {
		if log != "" {
			m.logf("%s", log)
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.RecorderRate, m.st.RecorderEstimate = round(rate, 0), round(est, 0)
	m.st.RecorderBudget = m.o.FlightRecorderMemory
	switch {
	case m.fr != nil && est > limit:
		m.overBudget++
		m.underBudget = 0
	case m.paused && est < limit/2:
		m.underBudget++
		m.overBudget = 0
	default:
		m.overBudget, m.underBudget = 0, 0
	}
	if m.busy {
		return
	}
	if m.fr != nil && m.overBudget >= pauseAfter {
		m.fr.Stop()
		m.fr = nil
		m.paused = true
		m.pauses++
		m.overBudget = 0
		m.st.FlightRecorder = fmt.Sprintf("paused: %.0f scheduling transitions/s would keep about %s in the flight recorder, above the budget of %s (Options.FlightRecorderMemory); metrics keep running; recording resumes below half the budget",
			rate, fmtBytes(est), fmtBytes(limit))
		log = "live: flight recorder " + m.st.FlightRecorder
		return
	}
	if m.paused && m.underBudget >= resumeAfter {
		fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: m.o.FlightRecorderAge, MaxBytes: uint64(m.o.FlightRecorderBytes)})
		m.paused, m.underBudget = false, 0
		if err := fr.Start(); err != nil {
			// Another part of the program took the flight recorder while
			// it was paused.
			m.st.FlightRecorder = "not recording: " + err.Error() + " (taken by another part of the program while paused); metrics keep running"
			return
		}
		m.fr = fr
		m.st.FlightRecorder = "recording"
		log = fmt.Sprintf("live: flight recorder recording again (%.0f transitions/s, about %s)", rate, fmtBytes(est))
	}
}

func fmtBytes(b float64) string {
	return fmt.Sprintf("%.1f MB", b/1e6)
}
