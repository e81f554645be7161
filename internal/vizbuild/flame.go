package vizbuild

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/viz"
)

// Flame accumulates stacks into a flame graph. The zero value is not
// ready: use NewFlame.
type Flame struct {
	causes   []string
	causeIdx map[string]int
	names    []string
	nameIdx  map[string]int32
	root     *buildNode
	nodes    int
	maxNodes int
	// last is the previous stack AddIDs counted, as far as it has nodes,
	// and path those nodes.
	last []int32
	path []*buildNode
	// slab is where new nodes are cut from, a chunk at a time: one
	// allocation per node would be most of the cost of a deep profile's.
	slab []buildNode
	ids  []int32 // Add's scratch
	// summed is set once Build has added each node's descendants into
	// it: until then a node holds only the CPU of the stacks that end
	// there (AddIDs counts a stack once, at its deepest node, not at
	// every frame: the nodes it shares with the stack before are not
	// touched).
	summed bool
}

// slabNodes is the nodes of one slab chunk.
const slabNodes = 1024

type buildNode struct {
	name  int32
	value int64
	// cause1 and value1 are the CPU of the node's first cause (cause1+1:
	// 0 before any), byCause by cause index once a second cause comes
	// (non-zero entries have CPU): most nodes have one cause. Not a map:
	// a million-sample profile adds to some thirty million nodes (issue 23).
	cause1  int
	value1  int64
	byCause []int64
	// child1 is the first child, children the others by name: most
	// nodes of a deep profile have one child, and a map each would be
	// most of the graph's memory.
	child1   *buildNode
	children map[int32]*buildNode
}

// child returns the child named ni, nil when there is none.
func (n *buildNode) child(ni int32) *buildNode {
	if n.child1 != nil && n.child1.name == ni {
		return n.child1
	}
	return n.children[ni]
}

// addChild adds c, whose name no child has.
func (n *buildNode) addChild(c *buildNode) {
	if n.child1 == nil {
		n.child1 = c
		return
	}
	if n.children == nil {
		n.children = map[int32]*buildNode{}
	}
	n.children[c.name] = c
}

// kids returns the children, in no order.
func (n *buildNode) kids() []*buildNode {
	if n.child1 == nil {
		return nil
	}
	out := make([]*buildNode, 0, 1+len(n.children))
	out = append(out, n.child1)
	for _, c := range n.children {
		out = append(out, c)
	}
	return out
}

// add counts value for cause ci.
func (n *buildNode) add(ci int, value int64) {
	switch {
	case n.byCause == nil && n.cause1 == 0:
		n.cause1, n.value1 = ci+1, value
	case n.byCause == nil && n.cause1 == ci+1:
		n.value1 += value
	default:
		if n.byCause == nil {
			n.byCause = make([]int64, max(ci, n.cause1-1)+1)
			n.byCause[n.cause1-1] = n.value1
		}
		if ci >= len(n.byCause) {
			n.byCause = append(n.byCause, make([]int64, ci+1-len(n.byCause))...)
		}
		n.byCause[ci] += value
	}
}

// causes returns the cause indexes with CPU, in order, and their CPU.
func (n *buildNode) causes() (cis []int, values []int64) {
	if n.byCause == nil {
		if n.cause1 == 0 {
			return nil, nil
		}
		return []int{n.cause1 - 1}, []int64{n.value1}
	}
	for ci, v := range n.byCause {
		if v != 0 {
			cis, values = append(cis, ci), append(values, v)
		}
	}
	return cis, values
}

// MaxBuildNodes bounds the nodes a Flame holds while it
// accumulates: stacks that would add a node past it are counted in the
// deepest node already there, so a profile of a million distinct stacks
// costs a bounded tree.
const MaxBuildNodes = 200000

// MaxDepth bounds a stack's frames in the flame graph (root first): deeper
// frames of a runaway recursion add nothing a reader can see.
const MaxDepth = 256

// NewFlame starts a flame graph whose colours follow causes' order.
func NewFlame(causes []string) *Flame {
	b := &Flame{causeIdx: map[string]int{}, nameIdx: map[string]int32{}, maxNodes: MaxBuildNodes}
	for _, c := range causes {
		b.CauseID(c)
	}
	b.root = &buildNode{name: b.NameID("all")}
	return b
}

// CauseID is the index of a cause for AddIDs: the causes given to
// NewFlame first, in their order, then the others as they come.
func (b *Flame) CauseID(c string) int {
	if i, ok := b.causeIdx[c]; ok {
		return i
	}
	b.causeIdx[c] = len(b.causes)
	b.causes = append(b.causes, c)
	return len(b.causes) - 1
}

// MaxName bounds a frame's name in bytes: a crafted profile's megabyte
// name must not make a megabyte report.
const MaxName = 512

// NameID interns a frame's name (cut to MaxName bytes) for AddIDs.
func (b *Flame) NameID(n string) int32 {
	if len(n) > MaxName {
		cut := MaxName
		for cut > 0 && !utf8.RuneStart(n[cut]) {
			cut--
		}
		n = n[:cut] + "…"
	}
	if i, ok := b.nameIdx[n]; ok {
		return i
	}
	i := int32(len(b.names))
	b.nameIdx[n] = i
	b.names = append(b.names, n)
	return i
}

// Add counts value (CPU) for a stack given root first, spent on cause. A
// non-positive value is ignored.
func (b *Flame) Add(rootFirst []string, value int64, cause string) {
	if value <= 0 {
		return
	}
	b.ids = b.ids[:0]
	for _, f := range rootFirst[:min(len(rootFirst), MaxDepth)] {
		b.ids = append(b.ids, b.NameID(f))
	}
	b.AddIDs(b.ids, value, b.CauseID(cause))
}

// AddIDs is Add with the frames' names as NameID gave them and the cause
// as CauseID did. The frames a stack shares with the previous one (root
// first) reuse its nodes without a lookup: a caller that adds its stacks
// in order of their frames (profile adds a million samples' stacks
// sorted) pays for the frames where they differ, a lookup by an integer.
func (b *Flame) AddIDs(rootFirst []int32, value int64, ci int) {
	if value <= 0 {
		return
	}
	n := b.root
	count := func(n *buildNode) {
		if b.summed {
			n.value += value
			n.add(ci, value)
		}
	}
	count(n)
	d := 0 // rootFirst[:d] is b.last[:d], whose nodes are b.path[:d]
	for d < len(rootFirst) && d < len(b.path) && d < MaxDepth && rootFirst[d] == b.last[d] {
		n = b.path[d]
		count(n)
		d++
	}
	b.last, b.path = b.last[:d], b.path[:d]
	for ; d < len(rootFirst) && d < MaxDepth; d++ {
		ni := rootFirst[d]
		c := n.child(ni)
		if c == nil {
			if b.nodes >= b.maxNodes {
				break
			}
			c = b.newNode(ni)
			n.addChild(c)
			b.nodes++
		}
		count(c)
		n = c
		b.last, b.path = append(b.last, ni), append(b.path, c)
	}
	if !b.summed {
		n.value += value
		n.add(ci, value)
	}
}

// sum adds each node's descendants' CPU into it, children first.
func sum(n *buildNode) {
	if n.child1 == nil {
		return
	}
	n.sumChild(n.child1)
	for _, c := range n.children {
		n.sumChild(c)
	}
}

func (n *buildNode) sumChild(c *buildNode) {
	sum(c)
	n.value += c.value
	if c.byCause == nil {
		if c.cause1 != 0 {
			n.add(c.cause1-1, c.value1)
		}
		return
	}
	for ci, v := range c.byCause {
		if v != 0 {
			n.add(ci, v)
		}
	}
}

// newNode cuts a node named ni from the slab.
func (b *Flame) newNode(ni int32) *buildNode {
	if len(b.slab) == cap(b.slab) {
		b.slab = make([]buildNode, 0, slabNodes)
	}
	b.slab = append(b.slab, buildNode{name: ni})
	return &b.slab[len(b.slab)-1]
}

// Build prunes the nodes under minShare of the total (0.001: 0.1%) and,
// if more than maxNodes remain, raises the threshold until they fit; cores
// is the profile's CPU in cores (Total / duration). Nil when nothing was
// added.
func (b *Flame) Build(minShare float64, maxNodes int, cores float64) *viz.Flame {
	if !b.summed {
		sum(b.root)
		b.summed = true
	}
	if b.root.value <= 0 {
		return nil
	}
	total := b.root.value
	cut := int64(minShare * float64(total))
	for countAbove(b.root, cut) > maxNodes {
		cut = max(cut*2, 1)
	}
	f := &viz.Flame{Causes: b.causes, Unit: "ns", Total: total, Cores: cores, MinShare: float64(cut) / float64(total)}
	used := map[int32]int{} // builder name index → output index
	var conv func(n *buildNode) *viz.FlameNode
	conv = func(n *buildNode) *viz.FlameNode {
		oi, ok := used[n.name]
		if !ok {
			oi = len(f.Names)
			used[n.name] = oi
			f.Names = append(f.Names, b.names[n.name])
		}
		out := &viz.FlameNode{Name: oi, Value: n.value}
		f.Nodes++
		best := int64(-1)
		cis, vs := n.causes()
		for i, ci := range cis {
			if vs[i] > best {
				best, out.Cause = vs[i], ci
			}
		}
		if len(cis) > 1 {
			for i, ci := range cis {
				out.CauseValues = append(out.CauseValues, [2]int64{int64(ci), vs[i]})
			}
		}
		var kids []*buildNode
		for _, c := range n.kids() {
			if c.value > cut {
				kids = append(kids, c)
			} else {
				f.Pruned += 1 + countAbove(c, -1)
			}
		}
		// Alphabetical, like pprof's flame graph: the same frame sits in
		// the same place in two reports.
		slices.SortFunc(kids, func(x, y *buildNode) int { return cmp.Compare(b.names[x.name], b.names[y.name]) })
		for _, c := range kids {
			out.Children = append(out.Children, conv(c))
		}
		return out
	}
	f.Root = conv(b.root)
	return f
}

// countAbove counts n's descendants whose value is above cut.
func countAbove(n *buildNode, cut int64) int {
	k := 0
	if n.child1 != nil && n.child1.value > cut {
		k += 1 + countAbove(n.child1, cut)
	}
	for _, c := range n.children {
		if c.value > cut {
			k += 1 + countAbove(c, cut)
		}
	}
	return k
}
