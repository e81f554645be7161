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
	nameIdx  map[string]int
	root     *buildNode
	nodes    int
	maxNodes int
}

type buildNode struct {
	name     int
	value    int64
	byCause  []int64 // by cause index; a cause's entry is non-zero once it has CPU
	children map[int]*buildNode
}

// add counts value for cause ci. A slice, not a map: a million-sample
// profile adds to some thirty million nodes (issue 23).
func (n *buildNode) add(ci int, value int64) {
	if ci >= len(n.byCause) {
		n.byCause = append(n.byCause, make([]int64, ci+1-len(n.byCause))...)
	}
	n.byCause[ci] += value
}

// causes returns the cause indexes with CPU, in order.
func (n *buildNode) causes() []int {
	var out []int
	for ci, v := range n.byCause {
		if v != 0 {
			out = append(out, ci)
		}
	}
	return out
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
	b := &Flame{causeIdx: map[string]int{}, nameIdx: map[string]int{}, maxNodes: MaxBuildNodes}
	for _, c := range causes {
		b.cause(c)
	}
	b.root = &buildNode{name: b.name("all")}
	return b
}

func (b *Flame) cause(c string) int {
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

func (b *Flame) name(n string) int {
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
	b.nameIdx[n] = len(b.names)
	b.names = append(b.names, n)
	return len(b.names) - 1
}

// Add counts value (CPU) for a stack given root first, spent on cause. A
// non-positive value is ignored.
func (b *Flame) Add(rootFirst []string, value int64, cause string) {
	if value <= 0 {
		return
	}
	ci := b.cause(cause)
	n := b.root
	n.value += value
	n.add(ci, value)
	for d, f := range rootFirst {
		if d >= MaxDepth {
			break
		}
		ni := b.name(f)
		c := n.children[ni]
		if c == nil {
			if b.nodes >= b.maxNodes {
				break
			}
			c = &buildNode{name: ni, byCause: make([]int64, len(b.causes))}
			if n.children == nil {
				n.children = map[int]*buildNode{}
			}
			n.children[ni] = c
			b.nodes++
		}
		c.value += value
		c.add(ci, value)
		n = c
	}
}

// Build prunes the nodes under minShare of the total (0.001: 0.1%) and,
// if more than maxNodes remain, raises the threshold until they fit; cores
// is the profile's CPU in cores (Total / duration). Nil when nothing was
// added.
func (b *Flame) Build(minShare float64, maxNodes int, cores float64) *viz.Flame {
	if b.root.value <= 0 {
		return nil
	}
	total := b.root.value
	cut := int64(minShare * float64(total))
	for countAbove(b.root, cut) > maxNodes {
		cut = max(cut*2, 1)
	}
	f := &viz.Flame{Causes: b.causes, Unit: "ns", Total: total, Cores: cores, MinShare: float64(cut) / float64(total)}
	used := map[int]int{} // builder name index → output index
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
		cis := n.causes()
		for _, ci := range cis {
			v := n.byCause[ci]
			if v > best {
				best, out.Cause = v, ci
			}
		}
		if len(cis) > 1 {
			for _, ci := range cis {
				out.CauseValues = append(out.CauseValues, [2]int64{int64(ci), n.byCause[ci]})
			}
		}
		kids := make([]*buildNode, 0, len(n.children))
		for _, c := range n.children {
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
	for _, c := range n.children {
		if c.value > cut {
			k += 1 + countAbove(c, cut)
		}
	}
	return k
}
