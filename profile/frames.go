package profile

import (
	"slices"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/profile/classify"
)

// This file holds what the per-sample passes know of a frame, computed
// once per location instead of once per sample: a merged fleet profile
// has a million samples 32 frames deep over some ten thousand locations,
// so every name lookup, canonicalisation or string built per frame of
// every sample costs a second (issue 23: 13× pprof's Parse before this).
// It also groups the samples by stack: a fleet profile holds each stack
// once per pod and version label, and everything but the label tally
// depends on the stack alone.

// frameFam is the frame family a scan frame belongs to, in the order the
// scan's switch tests them (nb-select before select before yield before
// batching).
type frameFam uint8

const (
	famNone frameFam = iota
	famNBSelect
	famSelect
	famYield
	famBatch
)

// frame is one function of a location (inlined frames expanded), as the
// scans read it.
type frame struct {
	name string // canonical (classify.Canonical)
	raw  string // the profile's own name, "" for a line without a function
	file string
	line int64
	id   int32 // interned (raw name, file, line): UserStacks' key
	fam  frameFam
	user bool // classify.UserFrame
	comm bool // commFrames: completes a channel communication
	// lockFrame and mutexSpin: runtime.lock's own frames (lockFrames) and
	// the frames of a sync.Mutex spinning for its lock.
	lockFrame, mutexSpin bool
	// wake and timer are this frame's wakeDriver and timerDriver verdicts
	// alone ("" when it says nothing): the first frame with one decides.
	wake, timer string
}

// frameTable holds the frames of every location of a profile, and the
// profile's samples grouped by stack.
type frameTable struct {
	locs  [][]frame  // by location index (locIndex); nil Function lines left out
	flame [][]string // by location index: its names for the flame graph, root first (flameNames)
	byID  []int32    // location ID → index+1, when the IDs are dense
	byPtr map[*profile.Location]int32
	extra map[*profile.Location]int32 // locations missing from p.Location (a Profile built by hand)
	ids   []frame                     // by frame id: the first frame seen with that id
	names map[string]frame            // by raw name: what the name alone says
	lines map[lineKey]int32           // frame ids

	// group is the stack group of each sample; groups are the groups in
	// the order of their first sample.
	group     []int32
	groups    []stackGroup
	maxFrames int // frames of the deepest stack
}

// stackGroup is the samples with one stack (the same locations).
type stackGroup struct {
	first int   // index of its first sample
	v, n  int64 // summed CPU (ns) and sample count
	// locs are its location indexes, root first (in one of
	// groupSamples' chunks).
	locs []int32
}

func newFrameTable(a *analysis, ci int) *frameTable {
	p := a.p
	t := &frameTable{names: map[string]frame{}, lines: map[lineKey]int32{}}
	maxID := uint64(0)
	for _, l := range p.Location {
		maxID = max(maxID, l.ID)
	}
	if maxID <= uint64(4*len(p.Location)+16) {
		t.byID = make([]int32, maxID+1)
	} else {
		t.byPtr = make(map[*profile.Location]int32, len(p.Location))
	}
	t.locs = make([][]frame, 0, len(p.Location))
	t.flame = make([][]string, 0, len(p.Location))
	for i, l := range p.Location {
		t.add(l)
		if t.byID != nil {
			t.byID[l.ID] = int32(i + 1)
		} else {
			t.byPtr[l] = int32(i)
		}
	}
	t.groupSamples(a, ci)
	return t
}

// add computes the frames of one location, at the next index.
func (t *frameTable) add(l *profile.Location) int32 {
	fs := make([]frame, 0, len(l.Line))
	for _, ln := range l.Line {
		if ln.Function == nil {
			continue
		}
		raw := ln.Function.Name
		f, ok := t.names[raw]
		if !ok {
			f = nameFrame(raw)
			t.names[raw] = f
		}
		f.file, f.line = ln.Function.Filename, ln.Line
		k := lineKey{raw, f.file, f.line}
		id, ok := t.lines[k]
		if !ok {
			id = int32(len(t.ids))
			t.lines[k] = id
			t.ids = append(t.ids, f)
		}
		f.id = id
		fs = append(fs, f)
	}
	t.locs = append(t.locs, fs)
	t.flame = append(t.flame, flameNames(nil, l))
	return int32(len(t.locs) - 1)
}

// nameFrame is what a frame's function name alone says.
func nameFrame(raw string) frame {
	nm := classify.Canonical(raw)
	f := frame{raw: raw, name: nm, user: classify.UserFrame(raw)}
	switch {
	case nbSelectFrames[nm]:
		f.fam = famNBSelect
	case selectFrames[nm]:
		f.fam = famSelect
	case yieldFrames[nm]:
		f.fam = famYield
	case finding.BatchingFrame(nm):
		f.fam = famBatch
	}
	f.comm = commFrames[nm]
	f.lockFrame = lockFrames[nm]
	f.mutexSpin = nm == "internal/sync.runtime_doSpin" || nm == "runtime.procyield" || nm == "runtime.procyieldAsm"
	f.wake = wakeDriver([]string{nm})
	f.timer = timerDriverOf(nm)
	return f
}

// locIndex returns the index of a location's frames, making them for a
// location that is not in p.Location.
func (t *frameTable) locIndex(p *profile.Profile, l *profile.Location) int32 {
	if t.byID != nil {
		if l.ID < uint64(len(t.byID)) {
			if i := t.byID[l.ID]; i > 0 && p.Location[i-1] == l {
				return i - 1
			}
		}
	} else if i, ok := t.byPtr[l]; ok {
		return i
	}
	if i, ok := t.extra[l]; ok {
		return i
	}
	if t.extra == nil {
		t.extra = map[*profile.Location]int32{}
	}
	i := t.add(l)
	t.extra[l] = i
	return i
}

// groupSamples groups the samples by their locations (the same pointers
// in the same order), summing their CPU and counts. The groups are found
// in an open-addressing table of group indexes on a hash of the location
// IDs. A new group's location indexes are written while its sample's are
// at hand, into chunks: appended to one slice, they cost a fleet profile
// as much again in copies as they keep (190 MB at 1M samples, and a
// collection of the parsed heap with them).
func (t *frameTable) groupSamples(a *analysis, ci int) {
	p := a.p
	t.group = make([]int32, len(p.Sample))
	var tab stackTable
	tab.init(len(p.Sample) / 4)
	var chunk []int32
	for i, s := range p.Sample {
		h := stackHash(s.Location)
		g := int32(-1)
		for at := tab.start(h); ; at = tab.next(at) {
			gi := tab.slots[at] - 1
			if gi < 0 {
				g = int32(len(t.groups))
				tab.slots[at] = g + 1
				tab.hashes = append(tab.hashes, h)
				if cap(chunk)-len(chunk) < len(s.Location) {
					chunk = make([]int32, 0, max(stackChunk, len(s.Location)))
				}
				n0, nf := len(chunk), 0
				for j := len(s.Location) - 1; j >= 0; j-- {
					if l := s.Location[j]; l != nil { // CheckValid refuses nil ones
						li := t.locIndex(p, l)
						chunk = append(chunk, li)
						nf += len(t.locs[li])
					}
				}
				if len(t.groups) == cap(t.groups) {
					t.groups = slices.Grow(t.groups, groupsGrowth(len(t.groups), i, len(p.Sample)))
				}
				t.groups = append(t.groups, stackGroup{first: i, locs: chunk[n0:len(chunk):len(chunk)]})
				t.maxFrames = max(t.maxFrames, nf)
				tab.grow(len(t.groups))
				break
			}
			if tab.hashes[gi] == h && sameStack(p.Sample[t.groups[gi].first].Location, s.Location) {
				g = gi
				break
			}
		}
		t.group[i] = g
		gr := &t.groups[g]
		gr.v += a.value(s)
		gr.n += a.countOf(s, ci)
	}
}

// groupsGrowth is how many groups to make room for when groups fill up
// at sample i of n: as many as the samples seen so far promise for the
// rest, and a tenth more, rather than append's quarter more at a time
// (five times the final size copied, at a million samples).
func groupsGrowth(groups, i, n int) int {
	want := groups*n/(i+1) + groups/10
	want = max(want, groups+max(groups/4, 256))
	return max(min(want, n)-groups, 1)
}

// stackChunk is the location indexes of one of groupSamples' chunks.
const stackChunk = 64 << 10

// stackHash hashes a stack's location IDs, two lanes at a time so that
// the multiplications of a deep stack do not wait on each other.
func stackHash(locs []*profile.Location) uint64 {
	h1, h2 := uint64(14695981039346656037), uint64(0x9e3779b97f4a7c15)
	id := func(l *profile.Location) uint64 {
		if l == nil {
			return 0
		}
		return l.ID
	}
	j := 0
	for ; j+1 < len(locs); j += 2 {
		h1 = (h1 ^ id(locs[j])) * 1099511628211
		h2 = (h2 ^ id(locs[j+1])) * 0xff51afd7ed558ccd
	}
	if j < len(locs) {
		h1 = (h1 ^ id(locs[j])) * 1099511628211
	}
	h := h1 ^ (h2 >> 1) ^ (h2 << 31) ^ uint64(len(locs))
	h ^= h >> 29
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>32
}

// stackTable is groupSamples' open-addressing table: slots hold a group
// index + 1 (0: empty), hashes each group's stackHash.
type stackTable struct {
	slots  []int32
	hashes []uint64
	mask   uint64
}

func (tab *stackTable) init(groups int) {
	n := 1024
	for n < 2*groups {
		n *= 2
	}
	tab.slots, tab.mask = make([]int32, n), uint64(n-1)
}

func (tab *stackTable) start(h uint64) uint64 { return h & tab.mask }
func (tab *stackTable) next(at uint64) uint64 { return (at + 1) & tab.mask }

// grow doubles the table when it is half full: linear probing stays short.
func (tab *stackTable) grow(groups int) {
	if 2*groups <= len(tab.slots) {
		return
	}
	n := 2 * len(tab.slots)
	tab.slots, tab.mask = make([]int32, n), uint64(n-1)
	for g, h := range tab.hashes {
		at := tab.start(h)
		for tab.slots[at] != 0 {
			at = tab.next(at)
		}
		tab.slots[at] = int32(g + 1)
	}
}

func sameStack(x, y []*profile.Location) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// rootLocs returns the location indexes of a group's stack, root first.
func (t *frameTable) rootLocs(g stackGroup) []int32 { return g.locs }

// sortRootFirst sorts groups (indexes in t.groups) by their location
// indexes from the root (slices.Compare of rootLocs), one depth at a
// time: the groups that share a prefix are sorted by their next location
// only, packed with the group's index into one integer, where comparing
// whole stacks would go over the shared prefix again at every comparison.
func (t *frameTable) sortRootFirst(idx []int32) {
	type span struct{ lo, hi, d int }
	// key is the location at depth d + 1, 0 past the end: the shorter
	// stack first.
	key := func(g int32, d int) uint64 {
		locs := t.groups[g].locs
		if d >= len(locs) {
			return 0
		}
		return uint64(locs[d]) + 1
	}
	order := make([]uint64, len(idx)) // key<<32 | group index
	todo := []span{{0, len(idx), 0}}
	for len(todo) > 0 {
		sp := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		run := order[sp.lo:sp.hi]
		for i, gi := range idx[sp.lo:sp.hi] {
			run[i] = key(gi, sp.d)<<32 | uint64(gi)
		}
		slices.Sort(run)
		for i := range run {
			idx[sp.lo+i] = int32(uint32(run[i]))
		}
		for i := 0; i < len(run); {
			k := run[i] >> 32
			j := i + 1
			for j < len(run) && run[j]>>32 == k {
				j++
			}
			if j-i > 1 && k > 0 {
				todo = append(todo, span{sp.lo + i, sp.lo + j, sp.d + 1})
			}
			i = j
		}
	}
}

// walk appends the frames of a group's stack, leaf first, to out.
func (t *frameTable) walk(g stackGroup, out []*frame) []*frame {
	locs := t.rootLocs(g)
	for i := len(locs) - 1; i >= 0; i-- {
		fs := t.locs[locs[i]]
		for j := range fs {
			out = append(out, &fs[j])
		}
	}
	return out
}

// rootFirst appends the flame graph's name ids (ids: by location index,
// of flameNames) of a group's stack, outermost caller first, as many as
// it keeps (vizbuild.MaxDepth).
func (t *frameTable) rootFirst(g stackGroup, ids [][]int32, out []int32) []int32 {
	for _, li := range t.rootLocs(g) {
		if len(out) >= vizbuild.MaxDepth {
			break
		}
		out = append(out, ids[li]...)
	}
	return out
}

// flameNames appends the location's function names for the flame graph,
// outermost (inlining) caller first: "?" for a line without a named
// function, and for a location without lines.
func flameNames(out []string, loc *profile.Location) []string {
	if len(loc.Line) == 0 {
		return append(out, "?")
	}
	for j := len(loc.Line) - 1; j >= 0; j-- {
		name := "?"
		if f := loc.Line[j].Function; f != nil && f.Name != "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// stackFrame is the UserStacks frame of a frame id.
func (t *frameTable) stackFrame(id int32) StackFrame {
	f := &t.ids[id]
	return StackFrame{Function: f.name, File: f.file, Line: int(f.line)}
}

// timerDriverOf is timerDriver's verdict on one frame, "" when the frame
// says nothing (timerDriver then goes on to the next).
func timerDriverOf(name string) string {
	const upkeep = "timer heap upkeep ((*timers).check/adjust)"
	if d := timerDriver([]string{name}); d != upkeep {
		return d
	}
	return ""
}

// keyOf is the map key of a chain of frame ids: their bytes, 4 per id.
func keyOf(buf []byte, ids []int32) []byte {
	buf = buf[:0]
	for _, id := range ids {
		buf = append(buf, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	return buf
}

// idsOf is keyOf's inverse.
func idsOf(key string, out []int32) []int32 {
	out = out[:0]
	for i := 0; i+4 <= len(key); i += 4 {
		out = append(out, int32(uint32(key[i])|uint32(key[i+1])<<8|uint32(key[i+2])<<16|uint32(key[i+3])<<24))
	}
	return out
}
