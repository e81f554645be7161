package goroutines

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// Summary is the JSON "summary" of the goroutines source.
type Summary struct {
	Dumps []DumpSummary `json:"dumps"`
	// WindowSeconds is the age past which one dump calls a send, nil
	// channel or lock wait stuck; BetweenSeconds the time between two
	// dumps when both times are known (0 otherwise).
	WindowSeconds  float64 `json:"window_seconds"`
	BetweenSeconds float64 `json:"between_seconds"`
	MinGroup       int     `json:"min_group"`
	// Methods lists the leak methods the input allowed, and Blind what
	// the input could not show.
	Methods []string `json:"methods"`
	Blind   []string `json:"blind"`
	// Groups are the last goroutine dump's largest groups (Top), with the
	// count in the first dump when there were two.
	Groups      []GroupSummary `json:"groups"`
	GroupsTotal int            `json:"groups_total"`
}

// DumpSummary describes one input.
type DumpSummary struct {
	Name       string    `json:"name"`
	Format     Format    `json:"format"`
	Profile    string    `json:"profile"`
	Time       time.Time `json:"time,omitzero"`
	Goroutines int       `json:"goroutines"`
	Records    int       `json:"records"`
	Skipped    int       `json:"skipped"`
	Truncated  bool      `json:"truncated"`
	Leaked     int       `json:"leaked"`
}

// GroupSummary is one group in the summary.
type GroupSummary struct {
	Key
	Count         int  `json:"count"`
	StartCount    int  `json:"start_count"` // -1 without a first dump
	OldestMinutes int  `json:"oldest_minutes"`
	Leaked        int  `json:"leaked"`
	StateInferred bool `json:"state_inferred"`
	// Durable and Labels as in Group.
	Durable   int          `json:"durable,omitempty"`
	Labels    []LabelCount `json:"labels,omitempty"`
	LabelSets int          `json:"label_sets,omitempty"`
}

func (a *analysis) summary(dumps []*Dump, start, end *Dump, endGroups []*Group) *Summary {
	s := &Summary{WindowSeconds: a.window.Seconds(), BetweenSeconds: a.between.Seconds(), MinGroup: a.opt.minGroup()}
	leak := false
	for _, d := range dumps {
		if d == nil {
			continue
		}
		ds := DumpSummary{Name: d.Name, Format: d.Format, Profile: d.Profile, Time: d.Time, Goroutines: d.Total,
			Records: len(d.Goroutines), Skipped: d.Skipped, Truncated: d.Truncated}
		for _, g := range d.Goroutines {
			if g.Leaked {
				ds.Leaked += g.Count
			}
		}
		if d.Profile == ProfileGoroutineLeak {
			leak = true
		}
		s.Dumps = append(s.Dumps, ds)
	}
	if leak {
		s.Methods = append(s.Methods, MethodLeakProfile)
		if end == nil {
			s.Blind = append(s.Blind, "leak profile only: goroutines blocked on a channel or lock that something still reachable holds "+
				"(a global, a long-lived struct) are not in it; give debug=2 dumps too")
		}
	} else {
		s.Blind = append(s.Blind, "no goroutineleak profile: leaks are inferred, not proved (Go 1.26 with GOEXPERIMENT=goroutineleakprofile serves /debug/pprof/goroutineleak)")
	}
	if start != nil {
		s.Methods = append(s.Methods, MethodGrowth)
		if !start.HasIDs() || !end.HasIDs() {
			s.Blind = append(s.Blind, "no goroutine IDs (debug=1 or proto): growth cannot show the first goroutines never left, so a group must double")
		}
	} else if end != nil {
		s.Blind = append(s.Blind, "one dump: no growth; give a second dump taken later to see slow leaks and leaks in receives and selects")
	}
	if end != nil {
		if end.HasWaits() {
			s.Methods = append(s.Methods, MethodAge)
		} else {
			s.Blind = append(s.Blind, fmt.Sprintf("%s (%s) has no states as the runtime prints them, no wait times and no creators: use debug=2", end.Name, end.Format))
		}
	}
	top := a.opt.Top
	if top <= 0 {
		top = 20
	}
	var before map[Key]int
	if start != nil {
		before = map[Key]int{}
		for _, g := range Groups(start) {
			before[g.Key] = g.Count
		}
	}
	s.GroupsTotal = len(endGroups)
	s.Groups = []GroupSummary{}
	for i, g := range endGroups {
		if i == top {
			break
		}
		gs := GroupSummary{Key: g.Key, Count: g.Count, StartCount: -1, OldestMinutes: g.OldestMinutes, Leaked: g.Leaked,
			StateInferred: g.StateInferred, Durable: g.Durable, Labels: g.Labels, LabelSets: g.LabelSets}
		if before != nil {
			gs.StartCount = before[g.Key]
		}
		s.Groups = append(s.Groups, gs)
	}
	return s
}

// WriteText prints the inputs and the largest groups, in 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the inputs and the largest groups within width
// columns (0: one line per group however wide): sentences are wrapped, and
// a table too wide puts each group's creator on a line under it. Names,
// states and files come from the dump: they are escaped (textsafe).
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	q := textsafe.String
	line := func(format string, args ...any) {
		b.WriteString(textlayout.Wrap("", "  ", fmt.Sprintf(format, args...), width))
	}
	for _, d := range s.Dumps {
		text := fmt.Sprintf("%s: %s %s, %d goroutines in %d records", q(d.Name), q(string(d.Profile)), q(string(d.Format)), d.Goroutines, d.Records)
		if d.Leaked > 0 {
			text += fmt.Sprintf(", %d leaked", d.Leaked)
		}
		if d.Skipped > 0 {
			text += fmt.Sprintf(", %d malformed lines skipped", d.Skipped)
		}
		if d.Truncated {
			text += ", truncated at the goroutine cap"
		}
		line("%s", text)
	}
	if s.BetweenSeconds > 0 {
		line("%s between the dumps", fmtSecs(s.BetweenSeconds))
	}
	line("leak methods: %s (window %s, at least %d goroutines)", strings.Join(s.Methods, ", "), fmtSecs(s.WindowSeconds), s.MinGroup)
	for _, bl := range s.Blind {
		line("cannot see: %s", q(bl))
	}
	if _, err := io.WriteString(w, b.String()+"\n"); err != nil {
		return err
	}
	if len(s.Groups) == 0 {
		return nil
	}
	hasStart := len(s.Groups) > 0 && s.Groups[0].StartCount >= 0
	tab := &textlayout.Table{Header: []string{"count", "state", "oldest", "waits at", "created at"}, Stack: 3}
	if hasStart {
		tab = &textlayout.Table{Header: []string{"count", "first", "state", "oldest", "waits at", "created at"}, Stack: 4}
	}
	for _, g := range s.Groups {
		state := q(g.State)
		if state == "" {
			state = "?"
		} else if g.StateInferred {
			state += "*"
		}
		if g.Leaked > 0 {
			state += " (leaked)"
		}
		oldest := "-"
		if g.OldestMinutes > 0 {
			oldest = fmt.Sprintf("%dm", g.OldestMinutes)
		}
		created := "-"
		if g.Created.Func != "" {
			created = frameText(g.Created)
		}
		if hasStart {
			tab.Add(fmt.Sprint(g.Count), fmt.Sprint(g.StartCount), state, oldest, frameText(g.Wait), created)
		} else {
			tab.Add(fmt.Sprint(g.Count), state, oldest, frameText(g.Wait), created)
		}
	}
	if err := tab.Write(w, width); err != nil {
		return err
	}
	if n := s.GroupsTotal - len(s.Groups); n > 0 {
		fmt.Fprintf(w, "(%d smaller groups not shown)\n", n)
	}
	var lb strings.Builder
	for _, g := range s.Groups {
		if len(g.Labels) == 0 {
			continue
		}
		var sets []string
		for _, lc := range g.Labels {
			sets = append(sets, fmt.Sprintf("%d %s", lc.Count, q(lc.Labels.String())))
		}
		if more := g.LabelSets - len(g.Labels); more > 0 {
			sets = append(sets, fmt.Sprintf("%d more sets", more))
		}
		lb.WriteString(textlayout.Wrap("", "  ", fmt.Sprintf("labels at %s: %s", frameText(g.Wait), strings.Join(sets, ", ")), width))
	}
	if lb.Len() > 0 {
		if _, err := io.WriteString(w, lb.String()); err != nil {
			return err
		}
	}
	for _, g := range s.Groups {
		if g.StateInferred {
			fmt.Fprintf(w, "* state inferred from the stack\n")
			break
		}
	}
	return nil
}

// frameText is a frame for a table cell, its names escaped.
func frameText(f Frame) string {
	if f.Func == "" {
		return "-"
	}
	if f.File == "" {
		return textsafe.String(shortFunc(f.Func))
	}
	return fmt.Sprintf("%s:%d %s", textsafe.String(filepath.Base(f.File)), f.Line, textsafe.String(shortFunc(f.Func)))
}
