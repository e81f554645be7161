package perfetto

import (
	"cmp"
	"slices"
	"time"

	"golang.org/x/exp/trace"
)

// maxGoneNames bounds the names kept of goroutines that ended in the
// window after a later stack named them better than their start (a
// goroutine net/http started, named after the handler it ran): about
// 50 bytes each. Past it, the second pass names such a goroutine from
// what it has seen so far, as the first pass would have without looking
// ahead.
const maxGoneNames = 1 << 18

// scan is the first pass: where the trace starts and ends, each
// goroutine's name, and which goroutines matter in the window. Its memory
// is per live goroutine, as the analysis', plus a bounded few of those
// that ended.
type scan struct {
	win        Window // as asked
	want       int    // how many goroutines will be picked
	first      trace.Time
	last       trace.Time
	started    bool
	gs         map[trace.GoID]*gscan // live goroutines
	gone       []candidate           // ended in the window and may be picked: the best of each ranking
	goneNames  map[trace.GoID]string
	picked     map[trace.GoID]string // the picked goroutines' names
	events     int64                 // besides the reader's syncs
	readErr    error                 // how the trace's reading broke; nil at its end
	reachedEnd bool                  // the walk read past the window's end
}

type gscan struct {
	naming
	state    trace.GoState
	since    trace.Time
	runnable time.Duration // time runnable inside the window
	unblocks int           // goroutines it made runnable inside the window
}

// naming follows the name of one goroutine as its stacks are seen (see
// funcName): the first pass and the second name goroutines alike.
type naming struct {
	name      string
	user      bool // name is a user frame: final
	firstUser bool // the first name seen was one: nothing was learned later
	named     bool
}

func (n *naming) observe(s trace.Stack) {
	if n.user {
		return
	}
	if name, user := funcName(s); name != "" && (user || n.name == "") {
		n.name, n.user = name, user
		if !n.named {
			n.firstUser, n.named = user, true
		}
	}
}

// candidate is what ranks a goroutine for a state track.
type candidate struct {
	id       trace.GoID
	runnable time.Duration
	unblocks int
	name     string
}

func newScan(win Window, want int) *scan {
	return &scan{win: win, want: want, gs: map[trace.GoID]*gscan{}, goneNames: map[trace.GoID]string{}}
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
	g.observe(st.Stack)
	inWin := s.rel(t) >= s.win.Start
	if from == trace.GoRunnable && g.state == trace.GoRunnable {
		g.runnable += s.overlap(g.since, t)
	}
	if inWin && from == trace.GoWaiting && to == trace.GoRunnable {
		if by := ev.Goroutine(); by != trace.NoGoroutine && by != id {
			s.g(by).unblocks++
		}
	}
	if to == trace.GoNotExist {
		if inWin {
			s.retire(id, g)
		}
		delete(s.gs, id)
		return true
	}
	g.state, g.since = to, t
	return true
}

// retire keeps what the second pass and the picking need of a goroutine
// that ended in the window.
func (s *scan) retire(id trace.GoID, g *gscan) {
	if g.user && !g.firstUser && len(s.goneNames) < maxGoneNames {
		s.goneNames[id] = g.name
	}
	if g.runnable > 0 || g.unblocks > 0 {
		s.gone = append(s.gone, candidate{id, g.runnable, g.unblocks, g.name})
		if len(s.gone) > 4*s.want+64 {
			s.gone = best(s.gone, s.want)
		}
	}
}

// finish counts the time of goroutines still runnable at the window's end.
func (s *scan) finish() {
	for _, g := range s.gs {
		if g.state == trace.GoRunnable {
			g.runnable += s.overlap(g.since, s.last)
		}
	}
}

// nameOf is the name the first pass found for goroutine id, looking as
// far ahead as the window's end; "" when it kept none (the goroutine ended
// before, or its name is what its first stacks say).
func (s *scan) nameOf(id trace.GoID) string {
	if g := s.gs[id]; g != nil {
		return g.name
	}
	if n, ok := s.picked[id]; ok {
		return n
	}
	return s.goneNames[id]
}

// pick returns up to n goroutines that matter in the window, in the order
// their tracks are shown: taken in turn from those runnable longest (they
// waited for a P) and those that made most others runnable (the
// unblockers), each ranking in descending order, ties by id. A goroutine
// that neither waited nor woke anyone is not picked.
func (s *scan) pick(n int) []trace.GoID {
	all := slices.Clone(s.gone)
	for id, g := range s.gs {
		if g.runnable > 0 || g.unblocks > 0 {
			all = append(all, candidate{id, g.runnable, g.unblocks, g.name})
		}
	}
	waited, woke := rankings(all)
	var out []trace.GoID
	s.picked = map[trace.GoID]string{}
	for i := 0; len(out) < n && (i < len(waited) || i < len(woke)); i++ {
		for _, list := range [][]candidate{waited, woke} {
			if i >= len(list) || len(out) == n {
				continue
			}
			if _, seen := s.picked[list[i].id]; !seen {
				s.picked[list[i].id] = list[i].name
				out = append(out, list[i].id)
			}
		}
	}
	return out
}

// rankings sorts the candidates that waited by time runnable and those
// that unblocked others by how many, both descending, ties by id.
func rankings(all []candidate) (waited, woke []candidate) {
	for _, c := range all {
		if c.runnable > 0 {
			waited = append(waited, c)
		}
		if c.unblocks > 0 {
			woke = append(woke, c)
		}
	}
	slices.SortFunc(waited, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.runnable, a.runnable), cmp.Compare(a.id, b.id))
	})
	slices.SortFunc(woke, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.unblocks, a.unblocks), cmp.Compare(a.id, b.id))
	})
	return waited, woke
}

// best keeps the candidates among the first n of either ranking: no other
// can be picked.
func best(all []candidate, n int) []candidate {
	waited, woke := rankings(all)
	keep := map[trace.GoID]bool{}
	var out []candidate
	for _, list := range [][]candidate{waited, woke} {
		for _, c := range list[:min(n, len(list))] {
			if !keep[c.id] {
				keep[c.id] = true
				out = append(out, c)
			}
		}
	}
	return out
}
