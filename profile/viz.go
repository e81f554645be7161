package profile

import (
	"cmp"
	"slices"

	"github.com/google/pprof/profile"

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

// flameOf builds the flame graph of the analysed profile: root first,
// inlined frames expanded, each sample's CPU counted under its cause.
func (a *analysis) flameOf() *viz.Flame {
	names := make([]string, len(classify.Causes))
	for i, c := range classify.Causes {
		names[i] = string(c)
	}
	b := vizbuild.NewFlame(names)
	// One Add per stack, with its samples' CPU, in the order of the
	// first sample of each with CPU: where the node bound cuts, the same
	// stacks are cut as when adding sample by sample.
	groups := make([]stackGroup, 0, len(a.ft.groups))
	for _, g := range a.ft.groups {
		if g.pos >= 0 {
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(x, y stackGroup) int { return cmp.Compare(x.pos, y.pos) })
	var stack []string
	for _, g := range groups {
		stack = rootFirst(stack[:0], a.p.Sample[g.first])
		b.Add(stack, g.v, string(a.classes[g.first].Cause))
	}
	cores := 0.0
	if a.sum != nil {
		cores = a.sum.Cores
	}
	return b.Build(flameMinShare, flameMaxNodes, cores)
}

// rootFirst appends the sample's function names, outermost caller first.
func rootFirst(out []string, s *profile.Sample) []string {
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		if loc == nil {
			continue
		}
		if len(loc.Line) == 0 {
			out = append(out, "?")
			continue
		}
		for j := len(loc.Line) - 1; j >= 0; j-- {
			name := "?"
			if f := loc.Line[j].Function; f != nil && f.Name != "" {
				name = f.Name
			}
			out = append(out, name)
		}
	}
	return out
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
