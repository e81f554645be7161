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

// recorderWindow is the span of trace the model charges a transition for:
// the recorder keeps about FlightRecorderAge (2s by default) of it, so at
// a steady rate R it holds R×recorderBytesPerRate, which is
// recorderBytesPerRate/2s = 37.5 bytes for each transition of the last
// two seconds. Counting transitions rather than extrapolating one check's
// rate matters for bursts: the runtime's background sweeper yields in a
// loop when the host is loaded (runtime.bgsweep calls goschedIfBusy while
// another sweeper holds the last spans), and was measured here putting
// 6,400–17,500 transitions into 100ms of an otherwise idle test binary:
// about 0.2–0.7 MB of trace, but 5–13 MB once read as a rate that lasts.
const recorderWindow = 2 * time.Second

// budgetInterval is how often the budget is checked (at most Interval):
// one read of one histogram, a few microseconds, while the recorder fills
// at up to about 10 MB per second at the rates measured here, so a check
// every second would let a burst of scheduling put that much in it
// before the pause (measured: 12.6–29.6 MB with a check per reading).
const budgetInterval = 100 * time.Millisecond

// resumeAfter is how many consecutive checks the held estimate must be
// below half the budget before the recorder records again (5s): a
// workload that hovers at the budget does not turn the recorder on and
// off.
const resumeAfter = 50

// budgetReader counts scheduling transitions from the latency histogram,
// which samples one runnable→running transition in eight.
type budgetReader struct {
	s     []metrics.Sample
	at    time.Time
	count uint64
	ok    bool
	// recent holds the transitions counted by each check of the last
	// recorderWindow, oldest first.
	recent []budgetStep
}

type budgetStep struct {
	at time.Time
	n  float64
}

// budgetReading is what one check measured.
type budgetReading struct {
	// step is the transitions since the previous check, and rate the
	// same per second.
	step, rate float64
	// held is the transitions of the last recorderWindow.
	held float64
}

// read returns the transitions since the last call and over the last
// recorderWindow (false on the first call, or when the histogram is
// missing or went backwards).
func (b *budgetReader) read(now time.Time) (budgetReading, bool) {
	if b.s == nil {
		b.s = []metrics.Sample{{Name: mLatency}}
	}
	metrics.Read(b.s)
	if b.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return budgetReading{}, false
	}
	var n uint64
	for _, c := range b.s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return b.observe(now, n)
}

// observe takes the histogram's total count n (sampled transitions) at
// now.
func (b *budgetReader) observe(now time.Time, n uint64) (budgetReading, bool) {
	prevAt, prev, ok := b.at, b.count, b.ok
	b.at, b.count, b.ok = now, n, true
	if !ok || !now.After(prevAt) || n < prev {
		return budgetReading{}, false
	}
	step := 8 * float64(n-prev)
	b.recent = append(b.recent, budgetStep{at: now, n: step})
	drop := 0
	for drop < len(b.recent) && now.Sub(b.recent[drop].at) >= recorderWindow {
		drop++
	}
	b.recent = b.recent[drop:]
	r := budgetReading{step: step, rate: step / now.Sub(prevAt).Seconds()}
	for _, s := range b.recent {
		r.held += s.n
	}
	return r, true
}

// overBudget reports whether the recorder would pass limit bytes by the
// next check if the pace of the last one went on.
func (r budgetReading) overBudget(limit float64) bool {
	return heldBytes(r.held)+heldBytes(r.step) > limit
}

// heldBytes is the memory the model says the recorder holds for n
// transitions of the last recorderWindow.
func heldBytes(n float64) float64 {
	return n * recorderBytesPerRate / recorderWindow.Seconds()
}

// checkBudget pauses the flight recorder before the memory it holds
// passes Options.FlightRecorderMemory, and restarts it once that has
// fallen to half. The model (recorderWindow): the recorder holds 37.5
// bytes for each scheduling transition of the last two seconds; it is
// paused when that, plus as many bytes again as the last check added,
// would pass the budget, that is, when the next check would likely find
// it over. A sustained 1M transitions/s is paused at the second check
// (about 7.5 MB held under the default 8 MiB), a 100ms burst is not.
// The trade-off: while paused, a trigger gets no snapshot (counted as
// skipped), and after a restart the recorder holds only what happened
// since. It runs on the sampling goroutine and changes m.fr only when no
// snapshot is being written (m.busy false): FlightRecorder.Stop must not
// run beside WriteTo, which only the worker calls, for a job tick handed
// it.
func (m *Monitor) checkBudget() {
	defer m.guard("the flight recorder's budget")
	r, ok := m.bud.read(time.Now())
	if !ok {
		return
	}
	held := heldBytes(r.held)
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
	m.st.RecorderRate, m.st.RecorderEstimate = round(r.rate, 0), round(held, 0)
	m.st.RecorderBudget = m.o.FlightRecorderMemory
	if m.paused && held < limit/2 {
		m.underBudget++
	} else {
		m.underBudget = 0
	}
	if m.busy {
		return
	}
	if m.fr != nil && r.overBudget(limit) {
		m.fr.Stop()
		m.fr = nil
		m.paused = true
		m.pauses++
		m.st.FlightRecorder = fmt.Sprintf("paused: %.0f scheduling transitions in the last %v (%.0f/s at the last check) keep about %s in the flight recorder, and one more check at that pace would pass the budget of %s (Options.FlightRecorderMemory); metrics keep running; recording resumes below half the budget",
			r.held, recorderWindow, r.rate, fmtBytes(held), fmtBytes(limit))
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
		log = fmt.Sprintf("live: flight recorder recording again (%.0f transitions/s, about %s)", r.rate, fmtBytes(held))
	}
}

func fmtBytes(b float64) string {
	return fmt.Sprintf("%.1f MB", b/1e6)
}
