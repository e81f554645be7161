package profile

import (
	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
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
	locs  [][]frame // by location index in p.Location; nil Function lines left out
	byID  []int32   // location ID → index+1, when the IDs are dense
	byPtr map[*profile.Location]int32
	ids   []frame // by frame id: the first frame seen with that id
	extra map[*profile.Location][]frame

	// group is the stack group of each sample; groups are the groups in
	// the order of their first sample.
	group  []int32
	groups []stackGroup
}

// stackGroup is the samples with one stack (the same locations).
type stackGroup struct {
	first int   // index of its first sample
	pos   int   // index of its first sample with CPU (-1 when none has any)
	v, n  int64 // summed CPU (ns) and sample count
}

func newFrameTable(a *analysis, ci int) *frameTable {
	t := &frameTable{}
	p := a.p
	names := map[string]frame{} // by raw name: the name-only part
	ids := map[lineKey]int32{}
	maxID := uint64(0)
	for _, l := range p.Location {
		maxID = max(maxID, l.ID)
	}
	if maxID <= uint64(4*len(p.Location)+16) {
		t.byID = make([]int32, maxID+1)
	} else {
		t.byPtr = make(map[*profile.Location]int32, len(p.Location))
	}
	t.locs = make([][]frame, len(p.Location))
	for i, l := range p.Location {
		t.locs[i] = t.build(l, names, ids)
		if t.byID != nil {
			t.byID[l.ID] = int32(i + 1)
		} else {
			t.byPtr[l] = int32(i)
		}
	}
	t.groupSamples(a, ci)
	return t
}

// build computes the frames of one location.
func (t *frameTable) build(l *profile.Location, names map[string]frame, ids map[lineKey]int32) []frame {
	fs := make([]frame, 0, len(l.Line))
	for _, ln := range l.Line {
		if ln.Function == nil {
			continue
		}
		raw := ln.Function.Name
		f, ok := names[raw]
		if !ok {
			f = nameFrame(raw)
			names[raw] = f
		}
		f.file, f.line = ln.Function.Filename, ln.Line
		k := lineKey{raw, f.file, f.line}
		id, ok := ids[k]
		if !ok {
			id = int32(len(t.ids))
			ids[k] = id
			t.ids = append(t.ids, f)
		}
		f.id = id
		fs = append(fs, f)
	}
	return fs
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

// frames returns the frames of a location of the profile.
func (t *frameTable) frames(p *profile.Profile, l *profile.Location) []frame {
	if t.byID != nil {
		if l.ID < uint64(len(t.byID)) {
			if i := t.byID[l.ID]; i > 0 && p.Location[i-1] == l {
				return t.locs[i-1]
			}
		}
	} else if i, ok := t.byPtr[l]; ok {
		return t.locs[i]
	}
	// A location missing from p.Location (a Profile built by hand): its
	// frames are made on first use, with ids of their own.
	if fs, ok := t.extra[l]; ok {
		return fs
	}
	if t.extra == nil {
		t.extra = map[*profile.Location][]frame{}
	}
	fs := make([]frame, 0, len(l.Line))
	for _, ln := range l.Line {
		if ln.Function == nil {
			continue
		}
		f := nameFrame(ln.Function.Name)
		f.file, f.line = ln.Function.Filename, ln.Line
		f.id = int32(len(t.ids))
		t.ids = append(t.ids, f)
		fs = append(fs, f)
	}
	t.extra[l] = fs
	return fs
}

// groupSamples groups the samples by their locations (the same pointers
// in the same order), summing their CPU and counts.
func (t *frameTable) groupSamples(a *analysis, ci int) {
	p := a.p
	t.group = make([]int32, len(p.Sample))
	byHash := make(map[uint64]int32, len(p.Sample)/2)
	for i, s := range p.Sample {
		h := uint64(14695981039346656037)
		for _, l := range s.Location {
			var id uint64
			if l != nil {
				id = l.ID
			}
			h = (h ^ id) * 1099511628211
			h ^= h >> 29
		}
		h ^= uint64(len(s.Location))
		// Open addressing on the hash: a collision of two stacks moves on.
		g := int32(-1)
		for {
			gi, ok := byHash[h]
			if !ok {
				break
			}
			if sameStack(p.Sample[t.groups[gi].first].Location, s.Location) {
				g = gi
				break
			}
			h++
		}
		if g < 0 {
			g = int32(len(t.groups))
			byHash[h] = g
			t.groups = append(t.groups, stackGroup{first: i, pos: -1})
		}
		t.group[i] = g
		gr := &t.groups[g]
		v := a.value(s)
		gr.v += v
		gr.n += a.countOf(s, ci)
		if gr.pos < 0 && v > 0 {
			gr.pos = i
		}
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

// walk appends the frames of a sample, leaf first, to out.
func (t *frameTable) walk(p *profile.Profile, s *profile.Sample, out []*frame) []*frame {
	for _, l := range s.Location {
		if l == nil {
			continue
		}
		fs := t.frames(p, l)
		for i := range fs {
			out = append(out, &fs[i])
		}
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
