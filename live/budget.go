package live

import (
	"fmt"
	"runtime"
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

// recorderCPUPerTransition is the CPU the flight recorder adds to each
// scheduling transition: its events (block, unblock, start, each with a
// stack) and the copying of its buffers. Measured here with
// BenchmarkTransitionCost: 232–305ns (median 284) on a channel ping-pong
// on one P, 267–373ns (median 310) on the RPC workload on two; the
// largest is kept, so that the estimate errs towards pausing. A program
// whose stacks are deeper, or that makes many syscalls (each two events,
// no transition), pays more per transition than this.
const recorderCPUPerTransition = 375 * time.Nanosecond

// cpuWindow is the span the CPU budget averages over: the goal is the
// monitor's cost to the program's throughput over time, and a spike of
// scheduling is what the recorder is there to catch. Over two seconds, a
// one-second burst of 500,000 transitions on two Ps would read as 4.7%
// and pause the recorder just before the trigger that wanted its trace;
// over a minute it is 0.16%, while a sustained 100,000 transitions/s
// passes 1% after about 32s.
const cpuWindow = time.Minute

// resumeAfter is how many consecutive checks both estimates must be
// below half their budgets before the recorder records again (5s): a
// workload that hovers at a budget does not turn the recorder on and
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
	// cpuWindow, oldest first; sum totals those of the last
	// recorderWindow (from index held on), minute all of them.
	recent []budgetStep
	held   int
	sum    float64
	minute float64
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
	// held is the transitions of the last recorderWindow, minute those
	// of the last cpuWindow.
	held, minute float64
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
	b.sum += step
	b.minute += step
	for b.held < len(b.recent) && now.Sub(b.recent[b.held].at) >= recorderWindow {
		b.sum -= b.recent[b.held].n
		b.held++
	}
	drop := 0
	for drop < len(b.recent) && now.Sub(b.recent[drop].at) >= cpuWindow {
		b.minute -= b.recent[drop].n
		drop++
	}
	b.recent = b.recent[drop:]
	b.held -= drop
	if b.held == len(b.recent) || b.sum < 0 {
		b.sum = 0 // rounding
	}
	if len(b.recent) == 0 || b.minute < 0 {
		b.minute = 0
	}
	return budgetReading{step: step, rate: step / now.Sub(prevAt).Seconds(), held: b.sum, minute: b.minute}, true
}

// overBudget reports whether the recorder would pass limit bytes by the
// next check if the pace of the last one went on.
func (r budgetReading) overBudget(limit float64) bool {
	return heldBytes(r.held)+heldBytes(r.step) > limit
}

// cpuShare is the share of GOMAXPROCS's CPU that the model says the
// recorder cost (or would have, paused) over the last cpuWindow; the
// time before the monitor started counts as quiet.
func (r budgetReading) cpuShare(procs int) float64 {
	return r.minute / cpuWindow.Seconds() * recorderCPUPerTransition.Seconds() / float64(max(procs, 1))
}

// heldBytes is the memory the model says the recorder holds for n
// transitions of the last recorderWindow.
func heldBytes(n float64) float64 {
	return n * recorderBytesPerRate / recorderWindow.Seconds()
}

// checkBudget pauses the flight recorder while it would cost more than
// its budgets, and restarts it once both costs have fallen to half.
//
// Memory (Options.FlightRecorderMemory): the recorder holds 37.5 bytes
// for each scheduling transition of the last two seconds (recorderWindow);
// it is paused when that, plus as many bytes again as the last check
// added, would pass the budget, that is, when the next check would likely
// find it over. A sustained 1M transitions/s is paused at the second check
// (about 7.5 MB held under the default 8 MiB), a 100ms burst is not.
//
// CPU (Options.FlightRecorderCPU): the recorder adds
// recorderCPUPerTransition to every transition, so over the last minute
// (cpuWindow) it cost transitions/s × 375ns of the GOMAXPROCS CPUs; it is
// paused above the budget (1%: a sustained 53,000 transitions/s with
// GOMAXPROCS=2, 213,000 with 8). A minute is averaged so that a spike,
// the thing to record, does not pause it.
//
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
	procs := runtime.GOMAXPROCS(0)
	cpu := r.cpuShare(procs)
	memLimit, cpuLimit := float64(m.o.FlightRecorderMemory), m.o.FlightRecorderCPU
	overMem := memLimit > 0 && r.overBudget(memLimit)
	overCPU := cpuLimit > 0 && cpu > cpuLimit
	under := (memLimit <= 0 || held < memLimit/2) && (cpuLimit <= 0 || cpu < cpuLimit/2)
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
	m.st.RecorderCPU = round(cpu, 5)
	m.st.RecorderBudget, m.st.RecorderCPUBudget = m.o.FlightRecorderMemory, m.o.FlightRecorderCPU
	if m.paused && under {
		m.underBudget++
	} else {
		m.underBudget = 0
	}
	if m.busy {
		return
	}
	if m.fr != nil && (overMem || overCPU) {
		m.fr.Stop()
		m.fr = nil
		m.paused = true
		m.pauses++
		var why string
		if overMem {
			why = fmt.Sprintf("they keep about %s in the flight recorder, and one more check at that pace would pass the budget of %s (Options.FlightRecorderMemory)",
				fmtBytes(held), fmtBytes(memLimit))
		} else {
			why = fmt.Sprintf("at %v each (measured), the %.0f transitions of the last %v cost the flight recorder about %.2f%% of %d Ps' CPU, above the budget of %.2f%% (Options.FlightRecorderCPU)",
				recorderCPUPerTransition, r.minute, cpuWindow, 100*cpu, procs, 100*cpuLimit)
		}
		m.st.FlightRecorder = fmt.Sprintf("paused: %.0f scheduling transitions in the last %v (%.0f/s at the last check): %s; metrics keep running; recording resumes below half the budget",
			r.held, recorderWindow, r.rate, why)
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
		log = fmt.Sprintf("live: flight recorder recording again (%.0f transitions/s, about %s, %.2f%% CPU)", r.rate, fmtBytes(held), 100*cpu)
	}
}

func fmtBytes(b float64) string {
	return fmt.Sprintf("%.1f MB", b/1e6)
}
