// Package synth builds small CPU profiles from written-out stacks, for the
// tests of profile and profile/classify: each frame is a function name
// with an optional file:line, and a location can hold inlined frames.
package synth

import (
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Stack is one sample: its CPU value in nanoseconds and its locations,
// leaf first. A location is written "fn" or "fn@/file.go:12"; several
// frames joined with " > " form one location with inlined frames, inner
// (leaf) first: "internal/sync.(*Mutex).Lock > sync.(*Mutex).Lock".
type Stack struct {
	Nanos  int64
	Locs   []string
	Labels map[string][]string
}

// Period is the sampling period of the profiles Build makes (100 Hz).
const Period = 10_000_000

// Build makes a CPU profile (samples/count and cpu/nanoseconds) of the
// given duration from stacks.
func Build(durationNanos int64, stacks ...Stack) *profile.Profile {
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        Period,
		DurationNanos: durationNanos,
		TimeNanos:     1_700_000_000_000_000_000,
	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	fn := func(name, file string) *profile.Function {
		key := name + "\x00" + file
		if f, ok := funcs[key]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		funcs[key] = f
		p.Function = append(p.Function, f)
		return f
	}
	loc := func(spec string) *profile.Location {
		if l, ok := locs[spec]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + 16*len(p.Location))}
		for _, fr := range strings.Split(spec, " > ") {
			name, pos, _ := strings.Cut(strings.TrimSpace(fr), "@")
			file, line := pos, int64(0)
			if i := strings.LastIndexByte(pos, ':'); i >= 0 {
				file = pos[:i]
				line, _ = strconv.ParseInt(pos[i+1:], 10, 64)
			}
			if file == "" {
				file = "/usr/local/go/src/" + strings.SplitN(name, ".", 2)[0] + "/x.go"
			}
			l.Line = append(l.Line, profile.Line{Function: fn(name, file), Line: line})
		}
		locs[spec] = l
		p.Location = append(p.Location, l)
		return l
	}
	for _, s := range stacks {
		smp := &profile.Sample{Value: []int64{max(s.Nanos/Period, 1), s.Nanos}, Label: s.Labels}
		for _, spec := range s.Locs {
			smp.Location = append(smp.Location, loc(spec))
		}
		p.Sample = append(p.Sample, smp)
	}
	return p
}
