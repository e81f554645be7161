package vizbuild

import (
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/viz"
)

func sumStates(tl *viz.Timeline, p int) (perBucket []int) {
	perBucket = make([]int, tl.Buckets)
	for _, s := range tl.Procs[p].States {
		for i, v := range s {
			perBucket[i] += int(v)
		}
	}
	return perBucket
}

func TestTimelineSpansAddUp(t *testing.T) {
	b := NewTimeline([]string{"running", "idle"}, 10, 8, 100)
	// 1000 spans of 1ns alternating: each far narrower than a bucket.
	for i := int64(0); i < 1000; i++ {
		b.Span(3, int(i%2), i, i+1)
	}
	b.End(1000)
	tl := b.Build()
	if tl.BucketNs != 100 || tl.Buckets != 10 {
		t.Fatalf("buckets %d of %dns, want 10 of 100ns", tl.Buckets, tl.BucketNs)
	}
	for i, v := range sumStates(tl, 0) {
		if v != 1000 {
			t.Errorf("bucket %d: states sum to %d‰, want 1000‰", i, v)
		}
	}
	if got := tl.Procs[0].States[0][0]; got != 500 {
		t.Errorf("running share of bucket 0 = %d‰, want 500‰", got)
	}
}

func TestTimelineCoarsens(t *testing.T) {
	b := NewTimeline([]string{"running"}, 8, 8, 10)
	b.Span(0, 0, 0, 1000) // 100 initial buckets' worth: must double to fit 8
	tl := b.Build()
	if tl.Buckets > 8 {
		t.Fatalf("%d buckets, want at most 8", tl.Buckets)
	}
	if tl.BucketNs != 160 {
		t.Errorf("bucket width %d, want 160 (10 doubled until 1000ns fits in 8)", tl.BucketNs)
	}
	// Full buckets are 100% running; the last covers 1000-7*160 = 40ns of 160.
	for i, v := range tl.Procs[0].States[0] {
		want := int16(1000)
		if i == tl.Buckets-1 {
			want = int16(math.Round(1000 * 40.0 / 160))
		}
		if v != want {
			t.Errorf("bucket %d = %d‰, want %d‰", i, v, want)
		}
	}
}

func TestTimelineBounds(t *testing.T) {
	b := NewTimeline([]string{"running", "idle"}, 16, 2, 1)
	for p := int64(0); p < 5; p++ {
		b.Span(p, 0, 0, 10)
	}
	b.Span(0, 7, 0, 10) // no such state
	b.Span(0, 0, 10, 5) // reversed
	b.Span(1, 1, 1<<60, 1<<60+5)
	tl := b.Build()
	if len(tl.Procs) != 2 || tl.OmittedProcs != 3 {
		t.Errorf("%d Ps drawn, %d omitted; want 2 and 3", len(tl.Procs), tl.OmittedProcs)
	}
	if tl.Buckets > 16 {
		t.Errorf("%d buckets for a span far away, want at most 16", tl.Buckets)
	}
	if NewTimeline([]string{"x"}, 4, 4, 1).Build() != nil {
		t.Error("an empty timeline built")
	}
}

func TestTimelineRunnable(t *testing.T) {
	b := NewTimeline([]string{"running"}, 4, 1, 100)
	b.Span(0, 0, 0, 400)
	b.Runnable(3, 0, 100)
	b.Runnable(1, 100, 150)
	tl := b.Build()
	if tl.Runnable[0] != 3 || tl.Runnable[1] != 0.5 || tl.Runnable[2] != 0 {
		t.Errorf("runnable %v, want [3 0.5 0 0]", tl.Runnable)
	}
}

func TestFlamePrunesAndColours(t *testing.T) {
	b := NewFlame([]string{"user", "gc"})
	b.Add([]string{"main", "work"}, 900, "user")
	b.Add([]string{"main", "work"}, 50, "gc")
	b.Add([]string{"main", "tiny"}, 1, "gc")
	b.Add([]string{"main"}, 49, "gc")
	b.Add([]string{"main"}, 0, "user")  // ignored
	b.Add([]string{"main"}, -5, "user") // ignored
	f := b.Build(0.01, 100, 2)
	if f.Total != 1000 || f.Root.Value != 1000 {
		t.Fatalf("total %d, root %d, want 1000", f.Total, f.Root.Value)
	}
	main := f.Root.Children[0]
	if f.Names[main.Name] != "main" || len(main.Children) != 1 || f.Names[main.Children[0].Name] != "work" {
		t.Fatalf("main's children: %+v, want only work (tiny is under 1%%)", main.Children)
	}
	if f.Pruned != 1 || f.Nodes != 3 {
		t.Errorf("nodes %d pruned %d, want 3 and 1", f.Nodes, f.Pruned)
	}
	work := main.Children[0]
	if f.Causes[work.Cause] != "user" || len(work.CauseValues) != 2 {
		t.Errorf("work: cause %s, by cause %v; want user, two causes", f.Causes[work.Cause], work.CauseValues)
	}
	if f.Causes[main.Cause] != "user" {
		t.Errorf("main's cause %s, want user (900 of 1000)", f.Causes[main.Cause])
	}
}

func TestFlameNodeBound(t *testing.T) {
	b := NewFlame(nil)
	for i := 0; i < 500; i++ {
		b.Add([]string{"root", string(rune('a' + i%26)), string(rune(0x100 + i))}, int64(1+i%7), "user")
	}
	f := b.Build(0, 50, 1)
	if f.Nodes > 51 { // the root and at most 50 below it
		t.Errorf("%d nodes kept, want at most 51", f.Nodes)
	}
	if f.Nodes+f.Pruned != 1+1+26+500 {
		t.Errorf("kept %d + pruned %d != %d nodes built", f.Nodes, f.Pruned, 1+1+26+500)
	}
	deep := make([]string, 10*MaxDepth)
	for i := range deep {
		deep[i] = "f"
	}
	b2 := NewFlame(nil)
	b2.Add(deep, 1, "user")
	if f := b2.Build(0, 1<<20, 1); f.Nodes != MaxDepth+1 {
		t.Errorf("a %d-frame stack made %d nodes, want %d", len(deep), f.Nodes, MaxDepth+1)
	}
	if NewFlame(nil).Build(0, 10, 1) != nil {
		t.Error("an empty flame graph built")
	}
}

// TestTimelineSizeBound: the worst timeline (the most Ps, every state in
// every bucket) stays a few MB of JSON.
func TestTimelineSizeBound(t *testing.T) {
	const procs, buckets = 256, 800
	b := NewTimeline([]string{"a", "b", "c", "d", "e"}, buckets, procs, 1000)
	for p := int64(0); p < procs; p++ {
		for i := int64(0); i < buckets*1000; i += 1000 {
			for s := int64(0); s < 5; s++ {
				b.Span(p, int(s), i+s*199, i+s*199+199)
			}
		}
	}
	tl := b.Build()
	if len(tl.Procs) != procs {
		t.Fatalf("%d Ps drawn, want %d", len(tl.Procs), procs)
	}
	if cells := len(tl.Procs) * tl.Buckets; cells > 64*buckets {
		t.Errorf("%d Ps × %d buckets = %d cells, over %d", len(tl.Procs), tl.Buckets, cells, 64*buckets)
	}
	data, err := json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 2<<20 {
		t.Errorf("the worst timeline is %d bytes of JSON, over 2 MB", len(data))
	}
	t.Logf("%d Ps × %d buckets: %d bytes", len(tl.Procs), tl.Buckets, len(data))
}

func TestFlameLongName(t *testing.T) {
	b := NewFlame(nil)
	long := strings.Repeat("é", 1<<20)
	b.Add([]string{long}, 1, "user")
	f := b.Build(0, 10, 1)
	n := f.Names[f.Root.Children[0].Name]
	if len(n) > MaxName+len("…") || !utf8.ValidString(n) {
		t.Errorf("a %d-byte name kept as %d bytes (valid UTF-8: %v)", len(long), len(n), utf8.ValidString(n))
	}
}

// TestFlameOrderFree: Add reuses the nodes of the frames a stack shares
// with the previous one; the graph must not depend on the order of the
// stacks (profile adds them sorted, a trace in its own order).
func TestFlameOrderFree(t *testing.T) {
	stacks := [][]string{
		{"main", "a", "b", "c"}, {"main", "a", "b", "d"}, {"main", "a", "b"}, {"main", "e", "c"},
		{"main", "a", "b", "c", "f"}, {"main"}, {"main", "a", "x", "c"}, {"g", "a", "b"}, {"main", "a", "b", "c"},
	}
	build := func(order []int) *viz.Flame {
		b := NewFlame([]string{"user", "gc"})
		for _, i := range order {
			b.Add(stacks[i], int64(10+i), []string{"user", "gc"}[i%2])
		}
		return b.Build(0, 1000, 1)
	}
	fwd := []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
	want := build(fwd)
	for _, order := range [][]int{{8, 7, 6, 5, 4, 3, 2, 1, 0}, {4, 0, 2, 8, 1, 6, 3, 5, 7}, {2, 2, 0}} {
		got, base := build(order), want
		if len(order) == 3 {
			base = build([]int{0, 2, 2})
		}
		if !reflect.DeepEqual(got, base) {
			t.Errorf("order %v: flame differs from order %v", order, fwd)
		}
	}
}

// TestFlameSums: a node's CPU and its CPU by cause are those of the
// stacks through it, though AddIDs counts each stack at its deepest node
// only and Build sums them up; stacks added after a Build are counted
// along their whole path; with the node bound, the stacks cut are
// counted in the nodes they reach.
func TestFlameSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	causes := []string{"user", "gc", "mutex"}
	b := NewFlame(causes)
	ref := map[string]map[string]int64{} // path ("" the root) → cause → CPU
	add := func(n int) {
		for range n {
			stack := make([]string, 1+rng.IntN(6))
			for d := range stack {
				stack[d] = string(rune('a' + rng.IntN(3)))
			}
			v, cause := int64(rng.IntN(5)), causes[rng.IntN(len(causes))]
			b.Add(stack, v, cause)
			if v <= 0 {
				continue
			}
			for d := 0; d <= len(stack); d++ {
				k := strings.Join(stack[:d], "/")
				if ref[k] == nil {
					ref[k] = map[string]int64{}
				}
				ref[k][cause] += v
			}
		}
	}
	check := func(f *viz.Flame) {
		t.Helper()
		nodes := 0
		var walk func(n *viz.FlameNode, path string)
		walk = func(n *viz.FlameNode, path string) {
			nodes++
			want := ref[path]
			var total, best int64
			for _, c := range causes {
				total += want[c]
				best = max(best, want[c])
			}
			if n.Value != total || want[f.Causes[n.Cause]] != best {
				t.Errorf("%q: %d ns, cause %s; want %d ns of %v", path, n.Value, f.Causes[n.Cause], total, want)
			}
			if len(want) > 1 {
				got := map[string]int64{}
				for _, cv := range n.CauseValues {
					got[f.Causes[cv[0]]] = cv[1]
				}
				if !maps.Equal(got, want) {
					t.Errorf("%q: by cause %v, want %v", path, got, want)
				}
			}
			for _, c := range n.Children {
				p := f.Names[c.Name]
				if path != "" {
					p = path + "/" + p
				}
				walk(c, p)
			}
		}
		walk(f.Root, "")
		if nodes != len(ref) {
			t.Errorf("%d nodes, want %d", nodes, len(ref))
		}
	}
	add(3000)
	check(b.Build(0, 1<<20, 1))
	add(500)
	check(b.Build(0, 1<<20, 1))

	// The bound: whatever is cut, each node holds at least its children.
	b = NewFlame(causes)
	b.maxNodes = 40
	ref = map[string]map[string]int64{}
	add(2000)
	f := b.Build(0, 1<<20, 1)
	var all int64
	for _, m := range ref[""] {
		all += m
	}
	if f.Root.Value != all {
		t.Errorf("root %d, want %d", f.Root.Value, all)
	}
	var conserve func(n *viz.FlameNode)
	conserve = func(n *viz.FlameNode) {
		var kids int64
		for _, c := range n.Children {
			kids += c.Value
			conserve(c)
		}
		if kids > n.Value {
			t.Errorf("%s: %d ns under a node of %d", f.Names[n.Name], kids, n.Value)
		}
	}
	conserve(f.Root)
}
