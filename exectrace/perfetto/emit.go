package perfetto

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Track uuids: a kind in the top byte, an id below it. Perfetto wants
// them unique within the trace, nothing else.
const (
	uuidGroupPs      = 1
	uuidGroupGs      = 2
	uuidGroupRuntime = 3
	uuidNotes        = 4

	kindP       = 1 << 56
	kindG       = 2 << 56
	kindCounter = 3 << 56
	kindRange   = 4 << 56
	idMask      = 1<<56 - 1
)

// The counters, their tracks' names and units, and the runtime metric
// each follows (names as golang.org/x/exp/trace gives them).
type counterID int

const (
	cRunnable counterID = iota
	cHeap
	cHeapGoal
	cGOMAXPROCS
	nCounters
)

var counters = [nCounters]struct {
	name, metric string
	unit         int
}{
	cRunnable:   {"runnable goroutines", "", unitCount},
	cHeap:       {"heap objects (bytes)", "/memory/classes/heap/objects:bytes", unitSizeBytes},
	cHeapGoal:   {"heap goal (bytes)", "/gc/heap/goal:bytes", unitSizeBytes},
	cGOMAXPROCS: {"GOMAXPROCS", "/sched/gomaxprocs:threads", unitCount},
}

// The runtime's ranges shown, each on its own track (they may overlap one
// another, and slices of one track must nest). Only one of each is active
// at a time, whatever resource the trace scopes it to (the mark phase is
// global, a stop-the-world the stopping goroutine's).
type rangeID int

const (
	rGC rangeID = iota
	rSTW
	nRanges
)

var rangeNames = [nRanges]string{rGC: "GC mark", rSTW: "stop-the-world"}

func rangeOf(name string) (rangeID, bool) {
	switch {
	case name == "GC concurrent mark phase":
		return rGC, true
	case strings.HasPrefix(name, "stop-the-world"):
		return rSTW, true
	}
	return 0, false
}

// What a P runs, as its track shows it.
type pkind uint8

const (
	pIdle pkind = iota
	pRun        // a goroutine runs on it
	pSys        // its goroutine is in a system call, the P still held
)

type pstate struct {
	g    trace.GoID
	kind pkind
	open bool // its slice is begun in the output
}

type gstate struct {
	naming
	escaped string // the final name, escaped
	state   trace.GoState
	p       trace.ProcID // the P it runs on, or ran on into a system call
	reason  string       // why it waits (the transition's reason)
	open    bool         // its state slice is begun in the output
	flow    uint64       // the flow from its unblocker, until it runs
}

type openRange struct {
	name   string
	active bool // in the trace
	open   bool // its slice is begun in the output
}

// exporter is the second pass: it follows every P's and goroutine's
// state from the trace's start and writes the window.
type exporter struct {
	s      *scan
	w      *writer
	picked map[trace.GoID]int // goroutines with a state track → their rank
	order  []trace.GoID

	ws, we   trace.Time // the window, in the trace's clock; we 0: no end
	live     bool       // inside the window, writing
	done     bool       // the window was closed
	cut      bool
	end      trace.Time // where the window closed
	last     trace.Time // the last event seen
	declared map[uint64]bool

	ps       map[trace.ProcID]*pstate
	gs       map[trace.GoID]*gstate
	vals     [nCounters]int64
	known    [nCounters]bool
	written  [nCounters]int64 // last value written
	wrote    [nCounters]bool
	pendAt   trace.Time // runnable changed at this time, not yet written
	pending  bool
	ranges   [nRanges]openRange
	nextFlow uint64

	st Stats
}

func newExporter(s *scan, w io.Writer, maxBytes int64, picked []trace.GoID) *exporter {
	e := &exporter{
		s: s, w: newWriter(w, maxBytes),
		picked: map[trace.GoID]int{}, order: picked,
		ws: s.first + trace.Time(s.win.Start), declared: map[uint64]bool{},
		ps: map[trace.ProcID]*pstate{}, gs: map[trace.GoID]*gstate{},
	}
	if s.win.End > 0 {
		e.we = s.first + trace.Time(s.win.End)
	}
	for i, g := range picked {
		e.picked[g] = i
	}
	e.st.MaxBytes = maxBytes
	return e
}

// ts is the timestamp written for t: nanoseconds since the trace's first
// event, as `schedoctor trace` prints offsets.
func (e *exporter) ts(t trace.Time) uint64 { return uint64(t - e.s.first) }

// name is the escaped name of goroutine id's function: the first pass's,
// which looked ahead to the window's end, else what this pass has seen of
// it, else "G<id>".
func (e *exporter) name(id trace.GoID) string {
	g := e.gs[id]
	if g != nil && g.escaped != "" {
		return g.escaped
	}
	n := e.s.nameOf(id)
	if n == "" && g != nil {
		n = g.name
	}
	if n == "" {
		return gid(id)
	}
	n = textsafe.String(n)
	if g != nil && (g.user || e.s.nameOf(id) != "") {
		g.escaped = n // final
	}
	return n
}

func gid(id trace.GoID) string { return "G" + strconv.FormatInt(int64(id), 10) }

// trackName names a goroutine's state track: its function and its id.
func (e *exporter) trackName(id trace.GoID) string {
	if n := e.name(id); n != gid(id) {
		return n + " " + gid(id)
	}
	return gid(id)
}

func (e *exporter) visit(ev *trace.Event) bool {
	t := ev.Time()
	e.last = max(e.last, t)
	if e.we != 0 && t > e.we {
		if !e.live {
			e.begin(e.ws)
		}
		e.closeAt(e.we)
		return false
	}
	if !e.live && t >= e.ws {
		e.begin(e.ws)
		if e.done {
			return false
		}
	}
	if e.live && e.pending && t > e.pendAt {
		e.flushRunnable()
	}
	switch ev.Kind() {
	case trace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			e.goTransition(ev, &st, t)
		case trace.ResourceProc:
			e.procTransition(&st, t)
		}
	case trace.EventMetric:
		m := ev.Metric()
		for c := range nCounters {
			if counters[c].metric == m.Name && m.Value.Kind() == trace.ValueUint64 {
				e.setCounter(c, int64(min(m.Value.Uint64(), 1<<63-1)), t)
			}
		}
	case trace.EventRangeBegin, trace.EventRangeActive:
		r := ev.Range()
		if id, ok := rangeOf(r.Name); ok && !e.ranges[id].active {
			e.ranges[id] = openRange{name: r.Name, active: true}
			if e.live {
				e.ranges[id].open = e.begin1(t, &event{typ: typeSliceBegin, track: kindRange | uint64(id), name: stwName(r.Name)})
			}
		}
	case trace.EventRangeEnd:
		r := ev.Range()
		if id, ok := rangeOf(r.Name); ok && e.ranges[id].active {
			if e.ranges[id].open {
				e.end1(t, kindRange|uint64(id))
			}
			e.ranges[id] = openRange{}
		}
	}
	return !e.done
}

// stwName shortens "stop-the-world (GC mark termination)" to its reason.
func stwName(name string) string {
	if s, ok := strings.CutPrefix(name, "stop-the-world ("); ok {
		return strings.TrimSuffix(s, ")")
	}
	return name
}

func (e *exporter) g(id trace.GoID) *gstate {
	g := e.gs[id]
	if g == nil {
		g = &gstate{p: trace.NoProc}
		e.gs[id] = g
	}
	return g
}

func (e *exporter) p(id trace.ProcID) *pstate {
	p := e.ps[id]
	if p == nil {
		p = &pstate{g: trace.NoGoroutine}
		e.ps[id] = p
	}
	return p
}

func (e *exporter) goTransition(ev *trace.Event, st *trace.StateTransition, t trace.Time) {
	from, to := st.Goroutine()
	id := st.Resource.Goroutine()
	if from == to {
		return // re-announced at a generation boundary
	}
	g := e.g(id)
	g.observe(st.Stack)
	// Leaving: its P slice (running or in a system call), its state slice.
	if from == trace.GoRunning || from == trace.GoSyscall {
		if p := e.ps[g.p]; p != nil && p.g == id {
			if p.open && e.live {
				e.end1(t, kindP|uint64(g.p))
			}
			*p = pstate{g: trace.NoGoroutine}
		}
	}
	if g.open && e.live {
		e.end1(t, kindG|uint64(id)&idMask)
	}
	g.open = false
	if from == trace.GoRunnable {
		e.addRunnable(-1, t)
	}

	// Who unblocked it: the goroutine running the event, on its P.
	if from == trace.GoWaiting && to == trace.GoRunnable && e.live {
		by, on := ev.Goroutine(), ev.Proc()
		if p := e.ps[on]; by != trace.NoGoroutine && by != id && p != nil && p.g == by && p.kind == pRun && p.open {
			e.nextFlow++
			f := e.nextFlow
			if e.instant(t, kindP|uint64(on), "unblock", []annot{{name: "goroutine", i: int64(id)}, {name: "function", s: e.name(id), isStr: true}}, []uint64{f}) {
				g.flow = f
				e.st.Flows++
			}
		}
	}
	if to != trace.GoRunnable && to != trace.GoRunning {
		g.flow = 0 // it did not run after all: the flow ends where it began
	}

	// Entering.
	switch to {
	case trace.GoNotExist:
		delete(e.gs, id)
		return
	case trace.GoRunnable:
		e.addRunnable(+1, t)
	case trace.GoRunning:
		g.p = ev.Proc()
		e.show(g.p, id, pRun, g, t)
	case trace.GoSyscall:
		if g.p == trace.NoProc || from != trace.GoRunning {
			g.p = ev.Proc()
		}
		e.show(g.p, id, pSys, g, t)
	case trace.GoWaiting:
		g.reason = ""
		if from == trace.GoRunning {
			g.reason = st.Reason
		}
	}
	g.state = to
	if _, ok := e.picked[id]; ok && e.live {
		g.open = e.beginG(t, id, g)
	}
}

// show makes P pid show goroutine id running, or in a system call. What
// the P showed is ended first: in a consistent trace its goroutine left
// it already, but a library must not let a trace that says otherwise
// leave a slice open.
func (e *exporter) show(pid trace.ProcID, id trace.GoID, kind pkind, g *gstate, t trace.Time) {
	if pid == trace.NoProc {
		return
	}
	p := e.p(pid)
	if p.open {
		e.end1(t, kindP|uint64(pid))
	}
	*p = pstate{g: id, kind: kind}
	if e.live {
		p.open = e.beginP(t, pid, id, g)
	}
}

func (e *exporter) procTransition(st *trace.StateTransition, t trace.Time) {
	from, to := st.Proc()
	id := st.Resource.Proc()
	p := e.p(id)
	if e.live && !e.declared[kindP|uint64(id)] {
		e.declareP(t, id)
	}
	if from == to || to == trace.ProcRunning {
		return
	}
	// Stopped, or taken from a goroutine in a system call: what it ran ends.
	if p.open && e.live {
		e.end1(t, kindP|uint64(id))
	}
	*p = pstate{g: trace.NoGoroutine}
}

// begin opens the window at t: the tracks, and a slice for what every P
// and every picked goroutine is doing, the counters' values and the
// ranges active then.
func (e *exporter) begin(t trace.Time) {
	e.live = true
	ok := e.declare(t, &track{uuid: uuidGroupPs, name: "Ps", description: "what each P runs: a slice per goroutine run, named after its function; an unblock instant where it made another goroutine runnable, with a flow to where that one ran", explicit: true}) &&
		e.declare(t, &track{uuid: uuidGroupGs, name: "Goroutines", description: fmt.Sprintf("the states of the goroutines (at most %d) that waited longest for a P or unblocked the most others in the window, in turn", len(e.order)), explicit: true}) &&
		e.declare(t, &track{uuid: uuidGroupRuntime, name: "Runtime", description: "counters and the GC's ranges"})
	pids := make([]trace.ProcID, 0, len(e.ps))
	for id := range e.ps {
		pids = append(pids, id)
	}
	slices.Sort(pids)
	for _, id := range pids {
		ok = ok && e.declareP(t, id)
	}
	for c := range nCounters {
		ok = ok && e.declare(t, &track{uuid: kindCounter | uint64(c), parent: uuidGroupRuntime, name: counters[c].name, counterUnit: counters[c].unit})
	}
	for r := range nRanges {
		ok = ok && e.declare(t, &track{uuid: kindRange | uint64(r), parent: uuidGroupRuntime, name: rangeNames[r]})
	}
	if !ok {
		e.closeAt(t)
		return
	}
	for _, id := range pids {
		if p := e.ps[id]; p.g != trace.NoGoroutine && p.kind != pIdle {
			p.open = e.beginP(t, id, p.g, e.g(p.g))
		}
	}
	for _, id := range e.order {
		if g := e.gs[id]; g != nil {
			g.open = e.beginG(t, id, g)
		}
	}
	for c := range nCounters {
		if e.known[c] {
			e.writeCounter(c, t)
		}
	}
	for r := range nRanges {
		if e.ranges[r].active {
			e.ranges[r].open = e.begin1(t, &event{typ: typeSliceBegin, track: kindRange | uint64(r), name: stwName(e.ranges[r].name)})
		}
	}
}

func (e *exporter) declareP(t trace.Time, id trace.ProcID) bool {
	if !e.declare(t, &track{uuid: kindP | uint64(id), parent: uuidGroupPs, name: "P" + strconv.FormatInt(int64(id), 10), rank: int32(id), ranked: true}) {
		return false
	}
	e.st.Ps++
	return true
}

// declare writes a track's descriptor once; false when the limit is
// reached (the caller cuts the window).
func (e *exporter) declare(t trace.Time, tr *track) bool {
	if e.declared[tr.uuid] {
		return true
	}
	if !e.put(t, fPacketTrackDesc, appendTrack(nil, tr)) {
		return false
	}
	e.declared[tr.uuid] = true
	return true
}

// put writes a packet; when the limit refuses it, the window is cut at t.
func (e *exporter) put(t trace.Time, field int, msg []byte) bool {
	if e.done {
		return false
	}
	if e.w.packet(e.ts(t), field, msg, false) {
		return true
	}
	e.cut = true
	e.closeAt(t)
	return false
}

func (e *exporter) begin1(t trace.Time, ev *event) bool {
	if !e.put(t, fPacketTrackEvent, appendEvent(nil, ev)) {
		return false
	}
	e.w.open++
	e.st.Slices++
	return true
}

func (e *exporter) end1(t trace.Time, track uint64) {
	if e.done {
		return
	}
	// Never refused: the reserve kept room for it.
	e.w.packet(e.ts(t), fPacketTrackEvent, appendEvent(nil, &event{typ: typeSliceEnd, track: track}), true)
	e.w.open--
}

func (e *exporter) instant(t trace.Time, track uint64, name string, annots []annot, flows []uint64) bool {
	return e.put(t, fPacketTrackEvent, appendEvent(nil, &event{typ: typeInstant, track: track, name: name, annots: annots, flows: flows}))
}

// beginP begins the slice of goroutine id on P p: named after its
// function when it runs, "syscall" when it holds the P in a system call.
// The slice where an unblocked goroutine runs ends its flow.
func (e *exporter) beginP(t trace.Time, p trace.ProcID, id trace.GoID, g *gstate) bool {
	if !e.declared[kindP|uint64(p)] && !e.declareP(t, p) {
		return false
	}
	ev := event{typ: typeSliceBegin, track: kindP | uint64(p), name: e.name(id), annots: []annot{{name: "goroutine", i: int64(id)}}}
	if e.ps[p].kind == pSys {
		ev.name = "syscall"
		ev.annots = append(ev.annots, annot{name: "function", s: e.name(id), isStr: true})
	} else if g.flow != 0 {
		ev.ends = []uint64{g.flow}
		g.flow = 0
	}
	return e.begin1(t, &ev)
}

// beginG begins the state slice of a picked goroutine. Its runnable
// slice is a step of the flow from its unblocker.
//
// Its track is declared with its first slice: a goroutine picked from the
// window that first shows after the size limit cut it gets no track.
func (e *exporter) beginG(t trace.Time, id trace.GoID, g *gstate) bool {
	ev := event{typ: typeSliceBegin, track: kindG | uint64(id)&idMask}
	if g.state == trace.GoNotExist || g.state == trace.GoUndetermined {
		return false
	}
	if !e.declared[ev.track] {
		if !e.declare(t, &track{uuid: ev.track, parent: uuidGroupGs, name: e.trackName(id), rank: int32(e.picked[id]), ranked: true}) {
			return false
		}
		e.st.Goroutines++
	}
	switch g.state {
	case trace.GoRunning:
		ev.name = "running"
		ev.annots = []annot{{name: "P", i: int64(g.p)}}
	case trace.GoRunnable:
		ev.name = "runnable"
		if g.flow != 0 {
			ev.flows = []uint64{g.flow}
		}
	case trace.GoWaiting:
		ev.name = "waiting"
		if g.reason != "" {
			ev.name = "waiting: " + textsafe.String(g.reason)
		}
	case trace.GoSyscall:
		ev.name = "syscall"
	default:
		return false
	}
	return e.begin1(t, &ev)
}

func (e *exporter) addRunnable(d int64, t trace.Time) {
	e.setCounter(cRunnable, e.vals[cRunnable]+d, t)
}

// setCounter records a counter's value; in the window it is written once
// its time has passed, so that the changes at one instant (a goroutine
// leaving the run queue as another joins it) write one sample.
func (e *exporter) setCounter(c counterID, v int64, t trace.Time) {
	e.vals[c], e.known[c] = v, true
	if !e.live {
		return
	}
	if c == cRunnable {
		e.pending, e.pendAt = true, t
		return
	}
	e.writeCounter(c, t)
}

func (e *exporter) flushRunnable() {
	e.pending = false
	e.writeCounter(cRunnable, e.pendAt)
}

func (e *exporter) writeCounter(c counterID, t trace.Time) {
	if e.wrote[c] && e.written[c] == e.vals[c] {
		return
	}
	if e.put(t, fPacketTrackEvent, appendEvent(nil, &event{typ: typeCounter, track: kindCounter | uint64(c), value: e.vals[c]})) {
		e.written[c], e.wrote[c] = e.vals[c], true
		e.st.Counters++
	}
}

// closeAt ends the window at t: every open slice ends there, and when the
// size limit or a break of the trace ended it early, an instant on the
// "schedoctor" track says so.
func (e *exporter) closeAt(t trace.Time) {
	if e.done {
		return
	}
	if e.pending && !e.cut {
		e.flushRunnable()
	}
	e.end = t
	pids := make([]trace.ProcID, 0, len(e.ps))
	for id, p := range e.ps {
		if p.open {
			pids = append(pids, id)
		}
	}
	slices.Sort(pids)
	for _, id := range pids {
		e.end1(t, kindP|uint64(id))
		e.ps[id].open = false
	}
	for _, id := range e.order {
		if g := e.gs[id]; g != nil && g.open {
			e.end1(t, kindG|uint64(id)&idMask)
			g.open = false
		}
	}
	for r := range nRanges {
		if e.ranges[r].open {
			e.end1(t, kindRange|uint64(r))
			e.ranges[r].open = false
		}
	}
	if e.cut {
		e.note(t, fmt.Sprintf("window cut: the size limit of %d bytes was reached", e.w.max),
			annot{name: "max_bytes", i: e.w.max})
	}
	e.done = true
}

// note writes an instant on the "schedoctor" track, in the reserve.
func (e *exporter) note(t trace.Time, what string, a annot) {
	if !e.declared[uuidNotes] {
		e.w.packet(e.ts(t), fPacketTrackDesc, appendTrack(nil, &track{uuid: uuidNotes, name: "schedoctor", description: "notes of the export"}), true)
		e.declared[uuidNotes] = true
	}
	e.w.packet(e.ts(t), fPacketTrackEvent, appendEvent(nil, &event{typ: typeInstant, track: uuidNotes, name: what, annots: []annot{a}}), true)
}

// close ends the window at the last event read when the trace ended
// inside it, saying where a broken trace broke.
func (e *exporter) close(broken error) {
	if e.done {
		return
	}
	last := max(e.last, e.ws) // a window in a gap of the trace ends where it starts
	if !e.live {
		e.begin(e.ws)
	}
	if e.pending && !e.done {
		e.flushRunnable()
	}
	e.closeAt(last)
	if broken != nil && !e.cut {
		e.note(last, "the trace breaks here: "+textsafe.String(broken.Error()), annot{name: "broken", i: 1})
	}
}

func (e *exporter) stats(broken error) *Stats {
	st := e.st
	st.Window = Window{Start: e.s.win.Start, End: time.Duration(e.end - e.s.first)}
	st.TraceEnd = e.s.rel(max(e.last, e.s.first))
	st.Bytes, st.Packets, st.Cut = e.w.n, e.w.packets, e.cut
	if broken != nil {
		st.Broken = broken.Error()
	}
	return &st
}
