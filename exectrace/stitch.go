package exectrace

import (
	"fmt"
	"io"

	"golang.org/x/exp/trace"
)

// This file turns the events of generations decoded each by a reader of
// its own (parallel.go) into the events the reader of the whole trace
// gives, before the analysis sees them. Where they differ
// (golang.org/x/exp/trace's order.go and reader.go):
//
//   - The statuses that open a generation: a reader that starts there says
//     "from GoUndetermined (ProcUndetermined) to X"; the whole-trace reader
//     knew the state and says "from X to X", or for a P it had not seen,
//     "from ProcNotExist". Goroutine statuses are remade; P statuses are
//     not (see status).
//   - A P whose thread was in a system call across the boundary and whose
//     status a stealing thread wrote as "abandoned": the whole-trace reader
//     knew it in a syscall, and says "Running to Running" then, at the
//     steal that follows at once, "Running to Idle"; a reader that starts
//     there says "to Idle", then "Idle to Idle".
//   - Times: the reader makes them strictly increasing, bumping an event
//     at or before the previous one to 1ns after it. A reader that starts
//     at a generation did not see the previous one's last time, so the
//     first events of a generation may need the same bump.
//   - Sync events: one at each generation's start and one at the end of
//     the trace, numbered; a reader per generation ends each with its own.
//
// Events that must change are remade with trace.MakeEvent. What is not
// put back: the P statuses that open a generation, the thread and
// goroutine context of the goroutine statuses (the analysis ignores a
// status that does not change a state), and the
// checks that span generations (a goroutine status that contradicts the
// previous generation is an error for the whole-trace reader; the checks
// within a generation all still run).

// stitcher carries what the events of one generation need from the
// generations before it.
type stitcher struct {
	last     trace.Time // time of the last event handed on
	catching bool       // this generation's times have not passed last yet
	index    int        // the generation's index among those read
	syncs    int
	pKnown   map[trace.ProcID]trace.ProcState // each P's state at the generation's start
	promoted map[trace.ProcID]bool            // Ps abandoned in a syscall this generation, not yet stolen
	procFrom map[[2]trace.ProcState]trace.ProcState
	inexact  int  // events that had to change but could not be remade (kept as read)
	lastSync bool // the last event handed on was a sync
}

func newStitcher() *stitcher {
	return &stitcher{
		pKnown:   map[trace.ProcID]trace.ProcState{},
		promoted: map[trace.ProcID]bool{},
		procFrom: map[[2]trace.ProcState]trace.ProcState{},
	}
}

// begin starts the events of the generation with this index.
func (s *stitcher) begin(index int) {
	s.index = index
	s.catching = index > 0
}

// end folds the P states a generation ended with.
func (s *stitcher) end(pEnd map[trace.ProcID]trace.ProcState) {
	for id, st := range pEnd {
		s.pKnown[id] = st
	}
	for id := range s.promoted {
		// Still in its syscall: the whole-trace reader knows it running.
		s.pKnown[id] = trace.ProcRunning
	}
	clear(s.promoted)
}

// status puts back what the whole-trace reader says of an event that the
// decoder listed for review (genTask.review).
func (s *stitcher) status(ev *trace.Event) error {
	st := ev.StateTransition()
	switch st.Resource.Kind {
	case trace.ResourceGoroutine:
		from, to := st.Goroutine()
		if from != trace.GoUndetermined {
			return nil
		}
		nt := trace.MakeGoStateTransition(st.Resource.Goroutine(), to, to)
		nt.Reason, nt.Stack = st.Reason, st.Stack
		s.remake(ev, ev.Time(), nt)
	case trace.ResourceProc:
		// P statuses are passed as read (from ProcUndetermined):
		// MakeEvent cannot make "Running to Running" nor "NotExist to
		// Idle", and the analysis takes a P status from an unknown state
		// for a P it has seen as the re-announcement it is
		// (analyzer.procTransition). What must change is the steal of a
		// P abandoned in a syscall.
		from, to := st.Proc()
		id := st.Resource.Proc()
		if from == trace.ProcIdle && to == trace.ProcIdle {
			if s.promoted[id] {
				delete(s.promoted, id)
				s.remakeProc(ev, id, trace.ProcRunning, trace.ProcIdle)
			}
			return nil
		}
		if from != trace.ProcUndetermined {
			return nil
		}
		known, ok := s.pKnown[id]
		switch {
		case !ok || known == to:
		case known == trace.ProcRunning && to == trace.ProcIdle:
			s.promoted[id] = true
		default:
			return fmt.Errorf("inconsistent status for proc %d: %v at the end of a generation, %v at the start of the next", id, known, to)
		}
	}
	return nil
}

// fix numbers a sync event and bumps a time the reader of the whole
// trace would have bumped; then it records the time.
func (s *stitcher) fix(ev *trace.Event) {
	if ev.Kind() == trace.EventSync {
		s.syncs++
		t := ev.Time()
		if t <= s.last && s.index > 0 {
			t = s.last + 1
		}
		if sy := ev.Sync(); sy.N != s.syncs || t != ev.Time() {
			sy.N = s.syncs
			s.remake(ev, t, sy)
		}
	} else if s.catching {
		if t := ev.Time(); t <= s.last {
			s.bump(ev, s.last+1)
		} else {
			s.catching = false
		}
	}
	s.last = ev.Time()
	s.lastSync = ev.Kind() == trace.EventSync
}

// bump remakes ev at time t.
func (s *stitcher) bump(ev *trace.Event, t trace.Time) {
	switch ev.Kind() {
	case trace.EventMetric:
		s.remake(ev, t, ev.Metric())
	case trace.EventLabel:
		s.remake(ev, t, ev.Label())
	case trace.EventRangeBegin, trace.EventRangeActive, trace.EventRangeEnd:
		if ev.Kind() == trace.EventRangeEnd && len(ev.RangeAttributes()) > 0 {
			s.inexact++ // MakeEvent keeps no attributes
			return
		}
		s.remake(ev, t, ev.Range())
	case trace.EventStateTransition:
		st := ev.StateTransition()
		if st.Resource.Kind == trace.ResourceProc {
			from, to := st.Proc()
			s.remakeProc(ev, st.Resource.Proc(), from, to, t)
			return
		}
		s.remake(ev, t, st)
	case trace.EventTaskBegin, trace.EventTaskEnd:
		s.remake(ev, t, ev.Task())
	case trace.EventRegionBegin, trace.EventRegionEnd:
		s.remake(ev, t, ev.Region())
	case trace.EventLog:
		s.remake(ev, t, ev.Log())
	case trace.EventStackSample:
		s.remake(ev, t, trace.StackSample{})
	default:
		s.inexact++ // experimental events: MakeEvent makes none
	}
}

// remake replaces ev by the event MakeEvent makes of its context, kind,
// stack and the details given, at time t; when MakeEvent refuses, ev is
// kept and counted.
func remakeEvent[T trace.EventDetails](ev *trace.Event, t trace.Time, d T) bool {
	ne, err := trace.MakeEvent(trace.EventConfig[T]{
		Time: t, Kind: ev.Kind(),
		Goroutine: ev.Goroutine(), Proc: ev.Proc(), Thread: ev.Thread(),
		Stack: ev.Stack(), Details: d,
	})
	if err != nil || ne.Kind() != ev.Kind() {
		return false
	}
	*ev = ne
	return true
}

func (s *stitcher) remake(ev *trace.Event, t trace.Time, d any) {
	var ok bool
	switch d := d.(type) {
	case trace.Sync:
		ok = remakeEvent(ev, t, d)
	case trace.Metric:
		ok = remakeEvent(ev, t, d)
	case trace.Label:
		ok = remakeEvent(ev, t, d)
	case trace.Range:
		ok = remakeEvent(ev, t, d)
	case trace.StateTransition:
		ok = remakeEvent(ev, t, d)
	case trace.Task:
		ok = remakeEvent(ev, t, d)
	case trace.Region:
		ok = remakeEvent(ev, t, d)
	case trace.Log:
		ok = remakeEvent(ev, t, d)
	case trace.StackSample:
		ok = remakeEvent(ev, t, d)
	}
	if !ok {
		s.inexact++
	}
}

// remakeProc remakes a P's transition as from → to (at time t, by default
// the event's). MakeEvent does not express every P transition as given
// (it writes a status event's previous state in the wire format's terms),
// so the input that yields from → to is found once by trying each and
// reading the result back.
func (s *stitcher) remakeProc(ev *trace.Event, id trace.ProcID, from, to trace.ProcState, at ...trace.Time) {
	t := ev.Time()
	if len(at) > 0 {
		t = at[0]
	}
	key := [2]trace.ProcState{from, to}
	try := func(in trace.ProcState) bool {
		ne := *ev
		if !remakeEvent(&ne, t, trace.MakeProcStateTransition(id, in, to)) || ne.Kind() != trace.EventStateTransition {
			return false
		}
		nt := ne.StateTransition()
		if f, tt := nt.Proc(); f != from || tt != to || nt.Resource != trace.MakeResourceID(id) {
			return false
		}
		*ev = ne
		return true
	}
	if in, ok := s.procFrom[key]; ok && try(in) {
		return
	}
	for _, in := range []trace.ProcState{from, trace.ProcUndetermined, trace.ProcNotExist, trace.ProcRunning, trace.ProcIdle} {
		if try(in) {
			s.procFrom[key] = in
			return
		}
	}
	s.inexact++
}

// consumeParallel analyses the generations' events in trace order, as
// consume does the sequential reader's. Event accessors of the reader
// panic on inconsistent tables: the input's fault, so it ends the
// analysis like a read error.
func (a *analyzer) consumeParallel(d *pdecoder, s *stitcher, bytesRead func() int64) (off int64, readErr error) {
	defer func() {
		if p := recover(); p != nil {
			readErr = fmt.Errorf("malformed trace: event %d: %v", a.events, p)
		}
		a.lastSync = s.lastSync
	}()
	return s.run(d, bytesRead, a.handle)
}

// run hands the generations' events to handle in trace order, as the
// reader of the whole trace gives them. It returns the input offset of
// the generation where the reading stopped and the error (io.EOF never).
func (s *stitcher) run(d *pdecoder, bytesRead func() int64, handle func(*trace.Event)) (off int64, readErr error) {
	// A generation's reader ends it with a sync of its own, which the
	// whole-trace reader gives only at the trace's end: a sync that ends a
	// chunk waits (pending) until what follows shows whether it was that
	// one (then it is held, and handed only if no generation follows).
	var held, pending trace.Event
	hasHeld, hasPending := false, false
	give := func(ev *trace.Event) {
		s.fix(ev)
		handle(ev)
	}
	for t := range d.tasks {
		hasHeld, hasPending = false, false
		s.begin(t.index)
		for c := range t.ch {
			n := len(c.evs)
			if hasPending && (n > 0 || c.err != io.EOF) {
				hasPending = false
				give(&pending)
			}
			if n > 0 && c.evs[n-1].Kind() == trace.EventSync && (c.err == nil || c.err == io.EOF) {
				n--
				pending, hasPending = c.evs[n], true
			}
			r := 0
			for i := range c.evs[:n] {
				ev := &c.evs[i]
				if r < len(c.review) && int(c.review[r]) == i {
					r++
					if err := s.status(ev); err != nil {
						return t.p.end, fmt.Errorf("malformed trace: %w", err)
					}
				}
				give(ev)
			}
			if c.err == io.EOF && hasPending {
				held, hasHeld, hasPending = pending, true, false
			}
			if c.err != nil && c.err != io.EOF {
				if t.p.rest != nil {
					return bytesRead(), c.err
				}
				return t.p.end, c.err
			}
			d.recycle(c)
		}
		s.end(t.pEnd)
		d.done()
	}
	if hasHeld {
		give(&held)
	}
	return 0, nil
}
