package profile

import (
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/viz"
)

// This file builds the HTML report's pictures of a profile: CPU by cause
// in cores and the flame graph of the classified samples, each frame
// coloured by the cause with most of its CPU.

const (
	// flameMinShare drops the frames under 0.1% of the CPU: narrower than
	// a pixel at any width a report is read at, until zoomed in far.
	flameMinShare = 0.001
	// flameMaxNodes bounds the nodes kept (the threshold rises until they
	// fit), so that the report of any profile stays small.
	flameMaxNodes = 4000
)

// flameBuilder adds up the flame graph of the analysed profile: root first,
// inlined frames expanded, each sample's CPU counted under its cause.
func (a *analysis) flameBuilder() *vizbuild.Flame {
	names := make([]string, len(classify.Causes))
	for i, c := range classify.Causes {
		names[i] = string(c)
	}
	b := vizbuild.NewFlame(names)
	// One Add per stack, with its samples' CPU, the stacks sorted from
	// the root: each shares its callers with the one before, which
	// vizbuild counts without a lookup. Where the node bound cuts, the
	// stacks cut are the last in that order, whatever the order of the
	// samples in the file.
	groups := make([]stackGroup, 0, len(a.ft.groups))
	for _, g := range a.ft.groups {
		if g.v > 0 {
			groups = append(groups, g)
		}
	}
	a.ft.sortRootFirst(groups)
	var stack []string
	for _, g := range groups {
		stack = a.ft.rootFirst(g, stack[:0])
		b.Add(stack, g.v, string(a.classes[g.id].Cause))
	}
	return b
}

// Visuals returns the profile's pictures for the HTML report: CPU by cause
// and the flame graph.
func (s *Summary) Visuals() *viz.Set {
	if s == nil {
		return nil
	}
	set := &viz.Set{Title: "profile", Flame: s.Flame}
	for _, c := range s.Causes {
		set.Causes = append(set.Causes, viz.CauseCPU{Cause: string(c.Cause), Cores: c.Cores, Share: c.Share})
	}
	return set
}
