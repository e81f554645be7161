package profile

import "github.com/google/pprof/profile"

// This file holds the per-sample part of the tally: the CPU of each cause
// by pprof label. It is the one pass over every sample of a fleet profile
// that the stack groups cannot save (a merged profile's samples of one
// stack differ in their labels), and pprof gives each sample its own
// map: ranging over a million small maps, and hashing each key and value
// as one struct key, was a fifth of the analysis (issue 23). The keys a
// profile uses are few (pod, version, ...): they are looked up by name,
// and each key's values interned by their string alone.

// maxLookupKeys bounds the label keys looked up in each sample: a profile
// with more distinct keys ranges over the maps of the samples that have
// others, so that a crafted profile of a million keys costs one range
// per sample, not a lookup per key.
const maxLookupKeys = 8

// labelTally interns the profile's (key, value) labels.
type labelTally struct {
	keys    []string           // looked up in every sample (CauseLabel among them when seen, skipped)
	byValue []map[string]int32 // by keys' index: label id by value
	ids     map[labelKV]int32  // label id of every label
	labels  []labelKV          // by label id
}

// causeLabels is one cause's CPU by label id; seen marks the labels its
// samples carried, CPU or none.
type causeLabels struct {
	v    []int64
	seen []bool
}

func (c *causeLabels) add(id int32, v int64) {
	if int(id) >= len(c.v) {
		n := max(int(id)+1, 2*len(c.v))
		c.v = append(c.v, make([]int64, n-len(c.v))...)
		c.seen = append(c.seen, make([]bool, n-len(c.seen))...)
	}
	c.v[id] += v
	c.seen[id] = true
}

// add counts a sample's labels (but CauseLabel, which Analyze wrote
// itself when the profile went through -o before) for its cause.
func (lt *labelTally) add(s *profile.Sample, v int64, into *causeLabels) {
	n := len(s.Label)
	if n == 0 {
		return
	}
	looked, found := len(lt.keys), 0
	for ki, k := range lt.keys {
		vs, ok := s.Label[k]
		if !ok {
			continue
		}
		found++
		if k == CauseLabel {
			continue
		}
		for _, lv := range vs {
			into.add(lt.id(ki, k, lv), v)
		}
	}
	if found == n {
		return
	}
	// Keys not looked up: range over the map, and look them up in the
	// next samples while there is room.
	for k, vs := range s.Label {
		ki := lt.keyIndex(k)
		if ki >= 0 && ki < looked {
			continue // counted above
		}
		if ki < 0 && len(lt.keys) < maxLookupKeys {
			ki = len(lt.keys)
			lt.keys = append(lt.keys, k)
			lt.byValue = append(lt.byValue, map[string]int32{})
		}
		if k == CauseLabel {
			continue
		}
		for _, lv := range vs {
			into.add(lt.id(ki, k, lv), v)
		}
	}
}

func (lt *labelTally) keyIndex(k string) int {
	for i, x := range lt.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// id is the label id of (k, v); ki is k's index in keys, -1 when it is
// not looked up.
func (lt *labelTally) id(ki int, k, v string) int32 {
	if ki >= 0 {
		if id, ok := lt.byValue[ki][v]; ok {
			return id
		}
	}
	kv := labelKV{k, v}
	id, ok := lt.ids[kv]
	if !ok {
		if lt.ids == nil {
			lt.ids = map[labelKV]int32{}
		}
		id = int32(len(lt.labels))
		lt.ids[kv] = id
		lt.labels = append(lt.labels, kv)
	}
	if ki >= 0 {
		lt.byValue[ki][v] = id
	}
	return id
}
