package live

import (
	"fmt"
	"runtime/trace"
)

// The flight recorder's memory is not bounded by FlightRecorderConfig.MaxBytes
// alone: the runtime cuts its trace into generations of about a second
// (runtime.defaultTraceAdvancePeriod) and keeps the generation being
// written plus at least one complete one, whatever MaxBytes says
// (runtime/trace's recorder.endGeneration). What it holds is therefore the
// trace's event rate times a few seconds, plus the Go heap's headroom over
// that garbage-collected data. The event rate follows the scheduling
// transitions, which the monitor reads anyway: /sched/latencies samples
// one runnable→running transition in eight.
//
// recorderBytesPerRate is the mapped memory the flight recorder added per
// scheduling transition per second, at the default FlightRecorderAge of
// 2s: measured here on the overhead benchmark's RPC workload (16 clients,
// 4 servers, channel round trips) at 383,000–595,000 transitions/s, which
// added 28.7–40.7 MB (68–75 bytes per transition/s); the larger is kept so
// that the estimate errs towards pausing.
const recorderBytesPerRate = 75

// pauseAfter and resumeAfter are how many consecutive readings the
// estimate must be above the budget before the recorder is paused, and
// below half of it before it records again. One reading above pauses: the
// recorder fills at the rate it measures, so every reading waited for is
// another second of trace held (measured: two readings let the RPC
// workload's recorder reach 17 MB before the pause). Five below half
// before resuming keep a workload that hovers at the budget from turning
// the recorder on and off every second.
const (
	pauseAfter  = 1
	resumeAfter = 5
)

// recorderEstimate is the memory the flight recorder would hold at the
// scheduling transition rate between two readings.
func recorderEstimate(prev, s *sample) (rate, bytes float64) {
	if prev == nil || s == nil || !s.at.After(prev.at) || len(prev.latency) != len(s.latency) {
		return 0, 0
	}
	var n0, n1 uint64
	for i := range s.latency {
		n0 += prev.latency[i]
		n1 += s.latency[i]
	}
	if n1 < n0 {
		return 0, 0
	}
	rate = 8 * float64(n1-n0) / s.at.Sub(prev.at).Seconds()
	return rate, rate * recorderBytesPerRate
}

// budget pauses the flight recorder while the estimate of what it holds
// is above Options.FlightRecorderMemory, and restarts it once the rate
// has fallen. The trade-off: while paused, a trigger gets no snapshot
// (counted as skipped), and after a restart the recorder holds only what
// happened since. Called by tick with m.mu held, and only when no snapshot
// is being written (m.busy false): FlightRecorder.Stop must not run beside
// WriteTo, which only the worker calls, for a job tick handed it.
func (m *Monitor) budget(prev, s *sample) {
	if m.o.NoFlightRecorder || m.o.FlightRecorderMemory < 0 {
		return
	}
	rate, est := recorderEstimate(prev, s)
	m.st.RecorderRate, m.st.RecorderEstimate = round(rate, 0), round(est, 0)
	m.st.RecorderBudget = m.o.FlightRecorderMemory
	limit := float64(m.o.FlightRecorderMemory)
	switch {
	case m.fr != nil && est > limit:
		m.overBudget++
		m.underBudget = 0
	case m.fr == nil && m.paused && est < limit/2:
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
		m.logf("live: flight recorder %s", m.st.FlightRecorder)
		return
	}
	if m.paused && m.underBudget >= resumeAfter {
		fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: m.o.FlightRecorderAge, MaxBytes: uint64(m.o.FlightRecorderBytes)})
		if err := fr.Start(); err != nil {
			// Someone else took the flight recorder while it was paused.
			m.st.FlightRecorder = "not recording: " + err.Error() + " (taken by another part of the program while paused); metrics keep running"
			m.paused = false
			return
		}
		m.fr, m.paused, m.underBudget = fr, false, 0
		m.st.FlightRecorder = "recording"
		m.logf("live: flight recorder recording again (%.0f transitions/s, about %s)", rate, fmtBytes(est))
	}
}

func fmtBytes(b float64) string {
	return fmt.Sprintf("%.1f MB", b/1e6)
}
