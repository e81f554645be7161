package profile

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// TestSortRootFirst: the depth-at-a-time sort gives the order of a plain
// sort by slices.Compare, on stacks that share prefixes, are prefixes of
// each other, and differ at the root.
func TestSortRootFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ft := &frameTable{}
	var gs []stackGroup
	seen := map[string]bool{}
	for len(gs) < 3000 {
		depth := 1 + rng.IntN(12)
		locs := make([]int32, depth)
		for d := range locs {
			locs[d] = int32(rng.IntN(3 + d)) // few values near the root: long shared prefixes
		}
		k := string(keyOf(nil, locs))
		if seen[k] {
			continue
		}
		seen[k] = true
		gs = append(gs, stackGroup{first: len(gs), locs: locs})
	}
	ft.groups = gs
	want := slices.Clone(gs)
	slices.SortFunc(want, func(x, y stackGroup) int { return slices.Compare(ft.rootLocs(x), ft.rootLocs(y)) })
	idx := make([]int32, len(gs))
	for i := range idx {
		idx[i] = int32(i)
	}
	ft.sortRootFirst(idx)
	for i, gi := range idx {
		if gs[gi].first != want[i].first {
			t.Fatalf("position %d: stack %v, want %v", i, ft.rootLocs(gs[gi]), ft.rootLocs(want[i]))
		}
	}
}

// TestGroupsByStack: samples with the same locations are one group with
// their summed CPU and counts, whatever their labels; the same frames
// under other locations (another binary's addresses) are another group.
func TestGroupsByStack(t *testing.T) {
	p := synth.Fleet(synth.FleetOptions{Samples: 2000, Seed: 7})
	a := newAnalysis(p)
	ft := newFrameTable(a, a.countIndex())
	if len(ft.groups) >= len(p.Sample) || len(ft.groups) < len(p.Sample)/10 {
		t.Fatalf("%d groups of %d samples: the fleet profile repeats each stack on 1-6 label sets", len(ft.groups), len(p.Sample))
	}
	var v, n int64
	for i, s := range p.Sample {
		g := ft.groups[ft.group[i]]
		if !sameStack(p.Sample[g.first].Location, s.Location) {
			t.Fatalf("sample %d is in the group of sample %d, another stack", i, g.first)
		}
		v += a.value(s)
		n += a.countOf(s, a.countIndex())
	}
	if v <= 0 || n <= 0 {
		t.Fatalf("the samples sum to %d ns, %d samples", v, n)
	}
	var gv, gn int64
	for _, g := range ft.groups {
		gv += g.v
		gn += g.n
	}
	if gv != v || gn != n {
		t.Errorf("groups sum to %d ns, %d samples; the samples to %d, %d", gv, gn, v, n)
	}
	// A copy of a location (same frames, another ID) is another stack.
	s0 := p.Sample[0]
	l := *s0.Location[0]
	l.ID = uint64(len(p.Location) + 1)
	p.Location = append(p.Location, &l)
	p.Sample = append(p.Sample, &profile.Sample{Location: append([]*profile.Location{&l}, s0.Location[1:]...), Value: slices.Clone(s0.Value)})
	ft = newFrameTable(a, a.countIndex())
	if g := ft.group[len(p.Sample)-1]; g != int32(len(ft.groups)-1) || ft.groups[g].first != len(p.Sample)-1 {
		t.Errorf("the sample on a copied location joined group %d (of sample %d)", g, ft.groups[g].first)
	}
}

// TestAnalyzeCostsLessThanParse holds the analysis of a merged fleet
// profile to what reading it allocates, most of which is pprof's parse
// (issue 23: the whole command within twice Parse's memory; the analysis
// allocated 4.3 times as much as Parse, building a string per user stack
// of every sample).
func TestAnalyzeCostsLessThanParse(t *testing.T) {
	var buf bytes.Buffer
	if err := synth.Fleet(synth.FleetOptions{Samples: 50_000}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var p *profile.Profile
	var err error
	parse := labtest.Allocated(func() {
		p, err = Read(context.Background(), "fleet.pb.gz", bytes.NewReader(buf.Bytes()), ReadOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	var res *Result
	analyze := labtest.Allocated(func() { res, err = Analyze([]*profile.Profile{p}, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Read allocated %.1f MB, Analyze %.1f MB", float64(parse)/(1<<20), float64(analyze)/(1<<20))
	if analyze > parse {
		t.Errorf("Analyze allocated %d bytes, more than Read's %d", analyze, parse)
	}
	// The planted spin is found, at its line.
	if !slices.ContainsFunc(res.Findings, func(f finding.Finding) bool {
		return f.Rule == "SD204" && len(f.Locations) > 0 && f.Locations[0].File == synth.SpinFile && f.Locations[0].Line == synth.SpinLine
	}) {
		t.Errorf("no SD204 at %s:%d in %d findings", synth.SpinFile, synth.SpinLine, len(res.Findings))
	}
}
