package htmlreport

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/viz"
)

// This file gives the report's pictures their colours. A colour follows a
// name (a cause, a wait reason, a P state), never its position in a
// picture's data: the names the module's sources draw have the slots of
// viz.Slot, the same in every report; the script draws with the classes
// Render hands it (dataJSON's Colours), and the legends and the cause
// table use the same.

// paletteSize is the number of colour slots, classes c0 … c{n-1}, styled
// by paletteCSS.
var paletteSize = len(viz.Palette())

// idleClass is the P timeline's idle state: the background grey, no slot.
const idleClass = "idle"

// fixedClass is the class of the names with a class but no slot.
var fixedClass = map[string]string{"idle": idleClass}

// paletteCSS styles a class per slot, its colour a variable (--c0 …).
func paletteCSS() string {
	var b strings.Builder
	b.WriteString("/* The palette (viz.Palette), one class per slot. */\n:root {")
	for i, c := range viz.Palette() {
		fmt.Fprintf(&b, " --c%d: %s;", i, c)
	}
	b.WriteString(" }\n")
	for i := range paletteSize {
		fmt.Fprintf(&b, ".c%d { fill: var(--c%d); background: var(--c%d); }\n", i, i, i)
	}
	return b.String()
}

// palette assigns every name drawn in a report its class.
type palette map[string]string

// newPalette gives the fixed names their slots and every other name (a
// program's own Provider names its causes as it likes) a slot from a hash
// of the name, moving to the next slot while the slot is taken by another
// name of the same report, so that two names of one report differ while
// there are slots left. The unknown names are placed in sorted order:
// the assignment depends only on the set of names, not on their order in
// the data.
func newPalette(sets []*viz.Set) palette {
	p := palette{}
	var other []string
	taken := map[int]bool{}
	add := func(name string) {
		if _, ok := p[name]; ok {
			return
		}
		if c, ok := fixedClass[name]; ok {
			p[name] = c
			return
		}
		if i, ok := viz.Slot(name); ok {
			p[name] = slotClass(i)
			taken[i] = true
			return
		}
		p[name] = "" // placed below
		other = append(other, name)
	}
	for _, s := range sets {
		for _, c := range s.Causes {
			add(c.Cause)
		}
		if s.Flame != nil {
			for _, c := range s.Flame.Causes {
				add(c)
			}
		}
		if s.Latency != nil {
			for _, sr := range s.Latency.Series {
				add(sr.Name)
			}
		}
		if s.Timeline != nil {
			for _, st := range s.Timeline.States {
				add(st)
			}
		}
	}
	slices.Sort(other)
	for _, name := range other {
		h := fnv.New32a()
		h.Write([]byte(name))
		i := int(h.Sum32() % uint32(paletteSize))
		for k := 0; k < paletteSize && taken[i]; k++ {
			i = (i + 1) % paletteSize
		}
		taken[i] = true // all taken: shared, the hash's slot
		p[name] = slotClass(i)
	}
	return p
}

func slotClass(i int) string { return fmt.Sprintf("c%d", i) }

// of returns the class of a name the palette was built with.
func (p palette) of(name string) string {
	if c, ok := p[name]; ok && c != "" {
		return c
	}
	return slotClass(0)
}

// all returns the classes of names, in order.
func (p palette) all(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p.of(n)
	}
	return out
}

// setColours is what the script needs to colour one set's pictures: the
// class of each flame cause, latency series and timeline state, index for
// index with the set's data, so that the script never looks a name up
// (a name is input: "__proto__" must not reach a JS object's keys).
type setColours struct {
	Flame  []string `json:"flame,omitempty"`
	Series []string `json:"series,omitempty"`
	States []string `json:"states,omitempty"`
}

func (p palette) forSet(s *viz.Set) setColours {
	var c setColours
	if s.Flame != nil {
		c.Flame = p.all(s.Flame.Causes)
	}
	if s.Latency != nil {
		for _, sr := range s.Latency.Series {
			c.Series = append(c.Series, p.of(sr.Name))
		}
	}
	if s.Timeline != nil {
		c.States = p.all(s.Timeline.States)
	}
	return c
}
