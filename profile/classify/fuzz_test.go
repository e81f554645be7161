package classify_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// FuzzClassifyStack classifies stacks of arbitrary frame names (one
// location per line, leaf first, inlined frames joined by " > ", each
// "fn@file:line"): the classifier must give every sample one known cause,
// the same one twice, and a user frame only where classify.UserFrame
// agrees (a finding is never located at a runtime or standard-library
// frame). The seeds are this package's test stacks and their near misses.
func FuzzClassifyStack(f *testing.F) {
	for _, c := range cases {
		f.Add(strings.Join(c.locs, "\n"))
	}
	f.Add("runtime.futex\nruntime.futexwakeup\nruntime.notewakeup\nruntime.startm\nruntime.wakep\n" + user)
	f.Add("main.\x1b]0;x\a@/src/\u202e.go:1\nruntime.main")
	f.Add("runtime.findrunnable > runtime.schedule\nruntime.park_m\nruntime.mcall")
	f.Fuzz(func(t *testing.T, stack string) {
		locs := strings.Split(stack, "\n")
		if len(locs) > 200 {
			return
		}
		rev := slices.Clone(locs)
		slices.Reverse(rev) // the same frames, the other way up
		p := synth.Build(1e9, synth.Stack{Nanos: 1e7, Locs: locs}, synth.Stack{Nanos: 2e7, Locs: rev})
		c := classify.New()
		classes := c.Classify(p)
		if len(classes) != len(p.Sample) {
			t.Fatalf("%d classes for %d samples", len(classes), len(p.Sample))
		}
		again := classify.New().Classify(p)
		for i, cl := range classes {
			if !slices.Contains(classify.Causes, cl.Cause) {
				t.Fatalf("sample %d: unknown cause %q", i, cl.Cause)
			}
			if cl.Cause != again[i].Cause || cl.User != again[i].User || cl.Rule != again[i].Rule {
				t.Fatalf("sample %d: %+v, then %+v", i, cl, again[i])
			}
			if cl.HasUser() && !classify.UserFrame(cl.User.Function) {
				t.Fatalf("sample %d: user frame %q is not a user function", i, cl.User.Function)
			}
			if cl.Rule >= len(classify.Rules) {
				t.Fatalf("sample %d: rule %d of %d", i, cl.Rule, len(classify.Rules))
			}
			_ = c.Chain(p.Sample[i], cl)
			_ = c.HintCauses(cl)
		}
	})
}
