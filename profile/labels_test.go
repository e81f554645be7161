package profile

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/pprof/profile"
)

// TestLabelTally: the tally by looked-up keys and interned values sums
// what ranging over every sample's labels sums, with more keys than it
// looks up, keys that come late, several values of one key, CauseLabel
// (never counted) and samples of no CPU (their labels are listed).
func TestLabelTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lt labelTally
	var got [2]causeLabels
	want := [2]map[labelKV]int64{{}, {}}
	for i := range 5000 {
		s := &profile.Sample{Label: map[string][]string{}}
		// Few common keys, then, past the first samples, up to 30 rarer ones.
		for k := range 3 {
			if rng.IntN(4) > 0 {
				s.Label[fmt.Sprint("k", k)] = []string{fmt.Sprint("v", rng.IntN(50))}
			}
		}
		if i > 100 && rng.IntN(3) == 0 {
			k := fmt.Sprint("rare", rng.IntN(30))
			s.Label[k] = []string{fmt.Sprint("v", rng.IntN(5)), fmt.Sprint("v", rng.IntN(5))}
		}
		if rng.IntN(10) == 0 {
			s.Label[CauseLabel] = []string{"mutex"}
		}
		v := int64(rng.IntN(3)) * 1000 // some samples have no CPU
		c := rng.IntN(2)
		lt.add(s, v, &got[c])
		for k, vs := range s.Label {
			if k == CauseLabel {
				continue
			}
			for _, lv := range vs {
				want[c][labelKV{k, lv}] += v
			}
		}
	}
	if len(lt.keys) != maxLookupKeys {
		t.Errorf("%d keys looked up, want %d", len(lt.keys), maxLookupKeys)
	}
	for c := range got {
		n := 0
		for id, seen := range got[c].seen {
			if !seen {
				continue
			}
			n++
			l := lt.labels[id]
			w, ok := want[c][l]
			if !ok || got[c].v[id] != w {
				t.Errorf("cause %d: %s=%s: %d, want %d (present %v)", c, l.key, l.value, got[c].v[id], w, ok)
			}
		}
		if n != len(want[c]) {
			t.Errorf("cause %d: %d labels, want %d", c, n, len(want[c]))
		}
	}
}
