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
	groups := make([]int32, 0, len(a.ft.groups))
	for gi, g := range a.ft.groups {
		if g.v > 0 {
			groups = append(groups, int32(gi))
		}
	}
	a.ft.sortRootFirst(groups)
	// The names of each location, interned once: the stacks are then
	// compared and looked up by integer.
	ids := make([][]int32, len(a.ft.flame))
	for li, names := range a.ft.flame {
		ids[li] = make([]int32, len(names))
		for j, n := range names {
			ids[li][j] = b.NameID(n)
		}
	}
	var stack []int32
	for _, gi := range groups {
		g := a.ft.groups[gi]
		stack = a.ft.rootFirst(g, ids, stack[:0])
		b.AddIDs(stack, g.v, b.CauseID(string(a.classes[gi].Cause)))
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
