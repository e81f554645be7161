package live

import (
	"context"
	"fmt"
	"runtime/debug"
	"runtime/trace"
	"slices"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/safewrite"
)

// Trigger kinds, in the order they are listed and preferred when several
// fire at one reading.
var triggerKinds = []string{"runnable", "latency", "goroutines", "threads"}

// Monitor samples the runtime's scheduler metrics, judges SD701–SD704 and
// snapshots the flight recorder when a trigger fires. All its methods are
// safe for concurrent use.
type Monitor struct {
	o        Options
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
	fr       *trace.FlightRecorder // nil when not recording
	work     chan job

	// Only the sampling goroutine touches rd and w after Start.
	rd *reader
	w  *ring
	// Only the sampling goroutine touches the budget's reading (budget.go).
	bud budgetReader

	mu       sync.Mutex
	st       State
	online   []finding.Finding
	triggers map[string]*Trigger
	snaps    []*Snapshot
	// dir is Options.Dir, opened and checked at Start (nil when refused,
	// or after Stop): every snapshot is written, listed, served and
	// removed through it (safewrite), never by path.
	dir      *safewrite.Dir
	lastSnap time.Time
	busy     bool // a snapshot is being written or diagnosed
	written  int64
	largest  int64 // the largest snapshot written: the room made for the next
	errCount int64
	// The flight recorder's memory budget (budget.go): paused says the
	// monitor stopped its recorder to keep within it.
	paused      bool
	underBudget int
	pauses      int64
	p99s        Distribution
	runPerP     Distribution
	// lat accumulates /sched/latencies for State.LatencyHistogram; made
	// at the first reading that has the runtime's bucket bounds.
	lat *latencyHist
}

type job struct {
	kind string
	why  string
	at   time.Time
}

// Start takes a first reading, starts the flight recorder (unless
// Options.NoFlightRecorder) and the two goroutines that sample and write
// snapshots, and returns. They run until Stop is called or ctx is
// cancelled; Stop must be called in either case to stop the flight
// recorder and wait for them. Only invalid Options are an error: a Dir
// that cannot be written, or a flight recorder that cannot start because
// another one is active, is reported in State and the metrics keep
// running.
func Start(ctx context.Context, o Options) (*Monitor, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Monitor{
		o:        o,
		work:     make(chan job, 1),
		rd:       newReader(),
		w:        newRing(o.ringSize()),
		triggers: map[string]*Trigger{},
		p99s:     newDistribution(p99Bounds),
		runPerP:  newDistribution(runnableBounds),
	}
	for _, k := range triggerKinds {
		m.triggers[k] = &Trigger{Kind: k}
	}
	now := o.now()
	m.st.Started = now
	m.st.Interval = o.Interval.Seconds()
	m.st.Dir = o.Dir
	m.st.FlightRecorder = "off"
	if !o.NoFlightRecorder && !m.adopt() {
		// No directory fit to write to: recording would cost the service
		// for snapshots that cannot be kept.
		m.st.FlightRecorder = "off: the snapshot directory is refused (see dir_refused); metrics keep running"
		m.logf("live: %s: %s", m.st.FlightRecorder, m.st.DirRefused)
	} else if !o.NoFlightRecorder {
		fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: o.FlightRecorderAge, MaxBytes: uint64(o.FlightRecorderBytes)})
		if err := fr.Start(); err != nil {
			// Only one flight recorder may be active in a program: whoever
			// owns it keeps it, and the metrics go on without snapshots.
			m.st.FlightRecorder = "not recording: " + err.Error() +
				" (another part of the program owns the flight recorder, or a trace is being written); metrics keep running"
			m.logf("live: %s", m.st.FlightRecorder)
		} else {
			m.fr = fr
			m.st.FlightRecorder = "recording"
		}
	}
	m.tick()
	// The budget's first reading: the first check, 100ms from now, then
	// counts what the recorder took in since it started.
	m.bud.read(time.Now())
	ctx, m.cancel = context.WithCancel(ctx)
	m.wg.Add(2)
	go m.loop(ctx)
	go m.worker(ctx)
	return m, nil
}

// Stop stops sampling, waits for the monitor's goroutines (a diagnosis in
// progress is cancelled) and stops the flight recorder. It is idempotent.
func (m *Monitor) Stop() {
	m.stopOnce.Do(func() {
		m.cancel()
		m.wg.Wait()
		if m.fr != nil {
			m.fr.Stop()
			m.mu.Lock()
			m.st.FlightRecorder = "stopped"
			m.mu.Unlock()
		}
		m.mu.Lock()
		d := m.dir
		m.dir = nil
		m.mu.Unlock()
		if d != nil {
			d.Close()
		}
	})
}

func (m *Monitor) logf(format string, args ...any) {
	if m.o.Logf != nil {
		m.o.Logf(format, args...)
	}
}

// record keeps a problem for the handler (the last 20).
func (m *Monitor) record(err error) {
	m.logf("live: %v", err)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.errLocked(err.Error())
}

func (m *Monitor) errLocked(msg string) {
	m.errCount++
	m.st.Errors = append(m.st.Errors, TimedError{Time: m.o.now(), Error: msg})
	if n := len(m.st.Errors); n > 20 {
		m.st.Errors = slices.Delete(m.st.Errors, 0, n-20)
	}
}

// guard turns a panic in the monitor into an error in State: the monitor
// runs inside someone else's service and must never take it down.
func (m *Monitor) guard(what string) {
	if r := recover(); r != nil {
		m.record(fmt.Errorf("recovered panic in %s: %v\n%s", what, r, debug.Stack()))
	}
}

func (m *Monitor) loop(ctx context.Context) {
	defer m.wg.Done()
	t := time.NewTicker(m.o.Interval)
	defer t.Stop()
	// The flight recorder's budget is checked more often than the
	// readings: the recorder fills at the rate it measures, so each check
	// waited for is more trace held (budget.go).
	var budget <-chan time.Time
	if !m.o.NoFlightRecorder && (m.o.FlightRecorderMemory > 0 || m.o.FlightRecorderCPU > 0) {
		bt := time.NewTicker(min(budgetInterval, m.o.Interval))
		defer bt.Stop()
		budget = bt.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.tick()
		case <-budget:
			m.checkBudget()
		}
	}
}

// tick takes one reading, recomputes figures and findings, and fires the
// triggers whose conditions hold.
func (m *Monitor) tick() {
	defer m.guard("sampling")
	s := m.rd.read(m.o.now(), m.w.victim())
	// The reading before this one: its counts stay valid after add (the
	// ring overwrites the oldest reading, and holds two at least).
	var prevLatency []uint64
	if p := m.w.last(); p != nil {
		prevLatency = p.latency
	}
	m.w.add(s)
	var st State
	figures(&st, m.w, m.o, m.rd)
	fs, conds := evaluate(&st, m.w, m.o)

	// Log after unlocking (defers run last first): Logf is the host's
	// code and may be slow.
	var logs []string
	defer func() {
		for _, l := range logs {
			m.logf("%s", l)
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	st.Started, st.Interval, st.Dir, st.DirRefused = m.st.Started, m.st.Interval, m.st.Dir, m.st.DirRefused
	st.FlightRecorder, st.Errors = m.st.FlightRecorder, m.st.Errors
	st.RecorderRate, st.RecorderEstimate, st.RecorderBudget = m.st.RecorderRate, m.st.RecorderEstimate, m.st.RecorderBudget
	st.Missing = slices.Clone(m.rd.missing)
	m.st = st
	m.online = fs
	if st.Latency.Judged {
		m.p99s.observe(st.Latency.P99.Seconds)
	}
	if s.gomaxprocs > 0 {
		m.runPerP.observe(float64(s.runnable) / float64(s.gomaxprocs))
	}
	if m.lat == nil && m.rd.latBounds != nil {
		m.lat = newLatencyHist(m.rd.latBounds)
	}
	if m.lat != nil {
		m.lat.add(s.latency, prevLatency)
	}

	var fired []job
	for _, k := range triggerKinds {
		t := m.triggers[k]
		why, on := conds[k]
		if !on {
			t.Active = false
			continue
		}
		if !t.Active || s.at.Sub(t.Last) >= m.o.SnapshotGap {
			t.Fired++
			t.Last = s.at
			t.Why = why
			fired = append(fired, job{kind: k, why: why, at: s.at})
			logs = append(logs, fmt.Sprintf("live: trigger %s: %s", k, why))
		}
		t.Active = true
	}
	if len(fired) == 0 {
		return
	}
	// One snapshot covers every trigger of this reading: the flight
	// recorder holds the same seconds for all of them.
	ok := m.fr != nil && !m.busy && (m.lastSnap.IsZero() || s.at.Sub(m.lastSnap) >= m.o.SnapshotGap)
	if ok {
		select {
		case m.work <- fired[0]:
			m.busy = true
			m.lastSnap = s.at
		default:
			ok = false
		}
	}
	if !ok {
		for _, j := range fired {
			m.triggers[j.kind].Skipped++
		}
	}
}

// State returns a copy of the current state, findings included.
func (m *Monitor) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.st
	st.Errors = slices.Clone(st.Errors)
	st.Missing = slices.Clone(st.Missing)
	for _, k := range triggerKinds {
		st.Triggers = append(st.Triggers, *m.triggers[k])
	}
	for _, s := range m.snaps {
		c := *s
		c.Findings = slices.Clone(s.Findings)
		st.Snapshots = append(st.Snapshots, c)
		st.SnapshotBytes += s.Bytes
	}
	st.Findings = m.findingsLocked()
	st.SnapshotsWritten = m.written
	st.RecorderPauses = m.pauses
	st.ErrorCount = m.errCount
	st.P99s = m.p99s.clone()
	st.RunnablePerPs = m.runPerP.clone()
	if m.lat != nil {
		st.LatencyHistogram = m.lat.d.clone()
	}
	return st
}

// Findings returns the current findings: SD701–SD704 as judged at the last
// reading, and those of the latest diagnosed snapshot of each trigger kind
// (their messages name the snapshot), most severe first.
func (m *Monitor) Findings() []finding.Finding {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.findingsLocked()
}

// joinTrace names, in an SD702 finding, the snapshot of the same spike
// when one was taken within the latency span and diagnosed: the trace says
// whose goroutines queued and where, which the metrics cannot. The
// locations of the trace's scheduling findings become SD702's, and the
// finding then rests on two sources.
func (m *Monitor) joinTrace(f *finding.Finding, latest map[string]*Snapshot) {
	var snap *Snapshot
	for _, k := range []string{"latency", "runnable"} {
		s := latest[k]
		// A snapshot of an earlier spike is not evidence for this one.
		if s != nil && m.st.Time.Sub(s.Time) <= m.o.LatencySpan+m.o.SnapshotDelay && (snap == nil || s.Time.After(snap.Time)) {
			snap = s
		}
	}
	if snap == nil {
		return
	}
	f.Note(finding.NoteLink, fmt.Sprintf("trace of it: snapshot %s (%d findings)", snap.Name, len(snap.Findings)))
	// The backlog findings already name the cause's lines (a spin, or the
	// sites that queue); SD308 alone names the spinning site.
	for _, r := range []string{"SD302", "SD301", "SD308"} {
		for _, tf := range snap.Findings {
			if tf.Rule != r || len(tf.Locations) == 0 {
				continue
			}
			f.Locations = slices.Clone(tf.Locations)
			f.Sources = []string{"live", "trace"}
			for _, e := range tf.Evidence[:min(len(tf.Evidence), 3)] {
				e.Label = "trace (" + r + "): " + e.Label
				f.Evidence = append(f.Evidence, e)
			}
			return
		}
	}
}

func (m *Monitor) findingsLocked() []finding.Finding {
	fs := make([]finding.Finding, 0, len(m.online))
	latest := map[string]*Snapshot{}
	for _, s := range m.snaps {
		if s.Diagnosis == "done" {
			latest[s.Trigger] = s
		}
	}
	for _, f := range m.online {
		f.Evidence = slices.Clone(f.Evidence)
		if f.Rule == "SD702" {
			m.joinTrace(&f, latest)
		}
		fs = append(fs, f)
	}
	for _, k := range triggerKinds {
		if s := latest[k]; s != nil {
			for _, f := range s.Findings {
				f.Evidence = slices.Clone(f.Evidence)
				fs = append(fs, f)
			}
		}
	}
	finding.Sort(fs)
	return fs
}
