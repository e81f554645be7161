package perfetto

import (
	"cmp"
	"slices"
	"time"

	"golang.org/x/exp/trace"
)

// scan is the first pass: where the trace starts and ends, each
// goroutine's name, and which goroutines matter in the window.
type scan struct {
	win        Window // as asked
	first      trace.Time
	last       trace.Time
	started    bool
	gs         map[trace.GoID]*gscan
	events     int64 // besides the reader's syncs
	readErr    error // how the trace's reading broke; nil at its end
	reachedEnd bool  // the walk read past the window's end
}

type gscan struct {
	name     string
	user     bool // name is a user frame: final
	state    trace.GoState
	since    trace.Time
	inWin    bool          // seen in the window (in a state other than not existing)
	runnable time.Duration // time runnable inside the window
	unblocks int           // goroutines it made runnable inside the window
}

func newScan(win Window) *scan {
	return &scan{win: win, gs: map[trace.GoID]*gscan{}}
}

// rel is t as time since the trace's first event.
func (s *scan) rel(t trace.Time) time.Duration { return time.Duration(t - s.first) }

func (s *scan) g(id trace.GoID) *gscan {
	g := s.gs[id]
	if g == nil {
		g = &gscan{}
		s.gs[id] = g
	}
	return g
}

// overlap is how much of [from, to] lies in the window.
func (s *scan) overlap(from, to trace.Time) time.Duration {
	a, b := max(s.rel(from), s.win.Start), s.rel(to)
	if s.win.End > 0 {
		b = min(b, s.win.End)
	}
	return max(b-a, 0)
}

func (s *scan) visit(ev *trace.Event) bool {
	t := ev.Time()
	if !s.started {
		s.first, s.started = t, true
	}
	if s.win.End > 0 && s.rel(t) > s.win.End {
		s.reachedEnd = true
		return false
	}
	s.last = t
	if ev.Kind() == trace.EventSync {
		return true // the reader's mark of a generation: no event of the program
	}
	s.events++
	if ev.Kind() != trace.EventStateTransition {
		return true
	}
	st := ev.StateTransition()
	if st.Resource.Kind != trace.ResourceGoroutine {
		return true
	}
	from, to := st.Goroutine()
	id := st.Resource.Goroutine()
	g := s.g(id)
	if !g.user {
		if name, user := funcName(st.Stack); name != "" && (user || g.name == "") {
			g.name, g.user = name, user
		}
	}
	inWin := s.rel(t) >= s.win.Start
	if from == trace.GoRunnable && g.state == trace.GoRunnable {
		g.runnable += s.overlap(g.since, t)
	}
	if inWin && from == trace.GoWaiting && to == trace.GoRunnable {
		if by := ev.Goroutine(); by != trace.NoGoroutine && by != id {
			s.g(by).unblocks++
		}
	}
	if inWin {
		g.inWin = true // it existed in the window
	}
	if to == trace.GoNotExist && !g.inWin {
		delete(s.gs, id) // gone before the window: nothing to name
		return true
	}
	g.state, g.since = to, t
	return true
}

// finish counts the time of goroutines still runnable at the window's end.
func (s *scan) finish() {
	end := s.last
	for _, g := range s.gs {
		if g.state == trace.GoRunnable {
			g.runnable += s.overlap(g.since, end)
			if g.runnable > 0 {
				g.inWin = true
			}
		}
	}
}

// pick returns up to n goroutines that matter in the window, in the order
// their tracks are shown: taken in turn from those runnable longest (they
// waited for a P) and those that made most others runnable (the
// unblockers), each ranking in descending order, ties by id. A goroutine
// that neither waited nor woke anyone is not picked.
func (s *scan) pick(n int) []trace.GoID {
	var waited, woke []trace.GoID
	for id, g := range s.gs {
		if g.runnable > 0 {
			waited = append(waited, id)
		}
		if g.unblocks > 0 {
			woke = append(woke, id)
		}
	}
	slices.SortFunc(waited, func(a, b trace.GoID) int {
		return cmp.Or(cmp.Compare(s.gs[b].runnable, s.gs[a].runnable), cmp.Compare(a, b))
	})
	slices.SortFunc(woke, func(a, b trace.GoID) int {
		return cmp.Or(cmp.Compare(s.gs[b].unblocks, s.gs[a].unblocks), cmp.Compare(a, b))
	})
	var out []trace.GoID
	seen := map[trace.GoID]bool{}
	for i := 0; len(out) < n && (i < len(waited) || i < len(woke)); i++ {
		for _, list := range [][]trace.GoID{waited, woke} {
			if i < len(list) && !seen[list[i]] && len(out) < n {
				seen[list[i]] = true
				out = append(out, list[i])
			}
		}
	}
	return out
}
