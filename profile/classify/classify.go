// Package classify assigns every sample of a Go CPU profile one cause (user
// code, GC, thread churn, idle spinning, timers, channels, locks, syscalls,
// preemption, ...) by matching the caller chain of the runtime part of its
// stack, not the leaf's name: runtime.futex under wakep → startm is a thread
// being woken, under stopm → notesleep a thread parking, under lock2 a
// contended runtime lock.
//
// The knowledge is data: Rules (caller chains per cause, first match wins),
// Aliases (frame names of Go 1.21–1.25 mapped to Go 1.26's) and Hints (the
// user-visible calls that explain scheduler work whose stacks mcall cut).
//
// A Classifier is not safe for concurrent use; make one per goroutine.
package classify

import (
	"strings"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
)

// Frame is one function in a stack, inlined frames expanded.
type Frame struct {
	Function string // canonical (Go 1.26) name
	File     string // as the profile gives it: absolute
	Line     int64
}

// Class is the verdict on one sample.
type Class struct {
	Cause Cause
	Rule  int // index into Rules of the matching rule; -1 when none matched
	// User is the first frame outside the runtime and the standard library,
	// leaf first: the user line that led to the sample. Zero when the stack
	// has none (scheduler work on g0, background GC workers).
	User Frame
	// hints has a bit per cause whose Hints frames the sample's runtime
	// part holds (the user frame called time.Sleep, a go statement...);
	// read it with HintCauses and HintsFor.
	hints uint64
}

// HasUser reports whether the sample had a user frame.
func (c Class) HasUser() bool { return c.User.Function != "" }

// frameInfo is a frame with its precomputed rule and hint bits.
type frameInfo struct {
	Frame
	bits   uint64 // rule-step bits
	hints  uint64 // hint bits
	user   bool   // outside the runtime and the standard library
	rt     bool   // runtime (or an unnamed assembly symbol)
	pseudo Cause  // non-empty for runtime._System and friends
}

type compiledRule struct {
	steps []uint64 // one bit per step, leaf toward root
}

// Classifier classifies the samples of profiles. The zero value is not
// usable; call New.
type Classifier struct {
	rules     []compiledRule
	stepBits  map[string]uint64
	hintBits  map[string]uint64
	hintCause []Cause // cause of hint bit i

	frames [][]frameInfo // per location, by location index
	byID   []int32       // location ID → index+1 (dense IDs)
	byPtr  map[*profile.Location]int
	seg    []uint64 // scratch: the rule bits of the matched segment
}

// New compiles Rules and Hints.
func New() *Classifier {
	c := &Classifier{stepBits: map[string]uint64{}, hintBits: map[string]uint64{}}
	bit := 0
	for _, r := range Rules {
		var cr compiledRule
		for _, step := range r.Steps {
			b := uint64(1) << bit
			bit++
			for _, name := range step {
				c.stepBits[name] |= b
			}
			cr.steps = append(cr.steps, b)
		}
		c.rules = append(c.rules, cr)
	}
	if bit > 64 {
		panic("classify: more than 64 rule steps") // a table edit, caught by every test
	}
	for _, cause := range Causes {
		names := Hints[cause]
		if len(names) == 0 {
			continue
		}
		b := uint64(1) << len(c.hintCause)
		c.hintCause = append(c.hintCause, cause)
		for _, n := range names {
			c.hintBits[n] |= b
		}
	}
	return c
}

// Classify returns one Class per sample of p, in the order of p.Sample.
func (c *Classifier) Classify(p *profile.Profile) []Class {
	c.index(p)
	out := make([]Class, len(p.Sample))
	for i, s := range p.Sample {
		out[i] = c.sample(s)
	}
	return out
}

// ClassifySamples returns the Class of each sample of p named by its
// index, in that order: a caller that groups the samples by stack
// classifies each stack once.
func (c *Classifier) ClassifySamples(p *profile.Profile, samples []int) []Class {
	c.index(p)
	out := make([]Class, len(samples))
	for i, si := range samples {
		out[i] = c.sample(p.Sample[si])
	}
	return out
}

// index precomputes the frames of every location of p.
func (c *Classifier) index(p *profile.Profile) {
	c.frames = c.frames[:0]
	c.byPtr = nil
	maxID := uint64(0)
	for _, l := range p.Location {
		maxID = max(maxID, l.ID)
	}
	dense := maxID <= uint64(4*len(p.Location)+16)
	if dense {
		c.byID = make([]int32, maxID+1)
	} else {
		c.byID = nil
		c.byPtr = make(map[*profile.Location]int, len(p.Location))
	}
	for i, l := range p.Location {
		fs := make([]frameInfo, 0, len(l.Line))
		for _, ln := range l.Line { // leaf first
			if ln.Function == nil {
				continue
			}
			fs = append(fs, c.frame(ln.Function.Name, ln.Function.Filename, ln.Line))
		}
		c.frames = append(c.frames, fs)
		if dense {
			c.byID[l.ID] = int32(i + 1)
		} else {
			c.byPtr[l] = i
		}
	}
}

func (c *Classifier) frame(name, file string, line int64) frameInfo {
	name = Canonical(name)
	pkg := Package(name)
	f := frameInfo{Frame: Frame{Function: name, File: file, Line: line}}
	f.bits = c.stepBits[name]
	f.hints = c.hintBits[name]
	f.pseudo = pseudoCauses[name]
	f.rt = isRuntime(pkg)
	// The program's own code, as finding.UserFunction says: "myapp/x" (a
	// module path without a dot) is the user's, not the standard library's.
	f.user = userFrame(name, pkg, f.rt)
	return f
}

// UserFrame reports whether a function, as pprof names it, is the
// program's own code by the classifier's rule: what a sample's first user
// frame is, and what the profile join walks up a stack through.
func UserFrame(name string) bool {
	name = Canonical(name)
	pkg := Package(name)
	return userFrame(name, pkg, isRuntime(pkg))
}

// userFrame is UserFrame with the package and runtime test done: "myapp/x"
// (a module path without a dot) is the user's, not the standard library's,
// as finding.UserFunction says.
func userFrame(name, pkg string, rt bool) bool {
	return !rt && !IsStd(pkg) || !rt && pkg != "" && finding.UserFunction(name)
}

func (c *Classifier) locFrames(l *profile.Location) []frameInfo {
	if c.byID != nil {
		if l.ID < uint64(len(c.byID)) {
			if i := c.byID[l.ID]; i > 0 {
				return c.frames[i-1]
			}
		}
		return nil
	}
	if i, ok := c.byPtr[l]; ok {
		return c.frames[i]
	}
	return nil
}

func (c *Classifier) sample(s *profile.Sample) Class {
	cl := Class{Rule: -1}
	seg := c.seg[:0]
	var segBits uint64
	var pseudo Cause
	sawStd, sawRuntime := false, false
walk:
	for _, l := range s.Location {
		for i := range c.locFrames(l) {
			f := &c.locFrames(l)[i]
			if f.user {
				cl.User = f.Frame
				break walk
			}
			if f.pseudo != "" && pseudo == "" {
				pseudo = f.pseudo
			}
			if f.rt {
				sawRuntime = true
			} else {
				sawStd = true
			}
			seg = append(seg, f.bits)
			segBits |= f.bits
			cl.hints |= f.hints
		}
	}
	c.seg = seg
	if pseudo != "" {
		cl.Cause = pseudo
		return cl
	}
	cl.Rule = c.match(seg, segBits)
	switch {
	case cl.Rule >= 0:
		cl.Cause = Rules[cl.Rule].Cause
	case cl.HasUser() || sawStd:
		cl.Cause = User
	case sawRuntime:
		cl.Cause = Runtime
	default:
		cl.Cause = Unknown
	}
	return cl
}

// match returns the index of the first rule whose steps appear in seg in
// order, or -1.
func (c *Classifier) match(seg []uint64, segBits uint64) int {
	if segBits == 0 {
		return -1
	}
rules:
	for ri, r := range c.rules {
		for _, st := range r.steps {
			if segBits&st == 0 {
				continue rules
			}
		}
		k := 0
		for _, b := range seg {
			if b&r.steps[k] != 0 {
				k++
				if k == len(r.steps) {
					return ri
				}
			}
		}
	}
	return -1
}

// HintCauses returns the causes whose hint frames the sample's runtime part
// holds: the sample is a user call (time.Sleep, a go statement) that can
// explain those causes' cut stacks.
func (c *Classifier) HintCauses(cl Class) []Cause { return c.AppendHintCauses(nil, cl) }

// AppendHintCauses appends HintCauses(cl) to out: a caller that asks for
// every stack of a profile reuses one slice.
func (c *Classifier) AppendHintCauses(out []Cause, cl Class) []Cause {
	for i, cause := range c.hintCause {
		if cl.hints&(1<<i) != 0 {
			out = append(out, cause)
		}
	}
	return out
}

// HintsFor reports whether the sample is a user call that explains cause.
func (c *Classifier) HintsFor(cl Class, cause Cause) bool {
	for i, hc := range c.hintCause {
		if hc == cause {
			return cl.hints&(1<<i) != 0
		}
	}
	return false
}

// Chain renders the decisive part of a classified sample's stack, leaf
// first: the leaf, the frames that matched the rule's steps, and the user
// frame ("runtime.futex ← runtime.notewakeup ← runtime.startm ← ... ←
// main.bad"). It is for evidence, so it favours the frames that decided.
func (c *Classifier) Chain(s *profile.Sample, cl Class) string {
	var names []string
	var steps []uint64
	if cl.Rule >= 0 {
		steps = c.rules[cl.Rule].steps
	}
	k := 0
	first := true
	for _, l := range s.Location {
		for _, f := range c.locFrames(l) {
			switch {
			case f.user:
				names = append(names, f.Function)
				return strings.Join(names, " ← ")
			case first:
				names = append(names, f.Function)
				if k < len(steps) && f.bits&steps[k] != 0 {
					k++
				}
			case k < len(steps) && f.bits&steps[k] != 0:
				names = append(names, f.Function)
				k++
			}
			first = false
		}
	}
	return strings.Join(names, " ← ")
}

// Package returns the import path of a function name as pprof prints it:
// "runtime" for "runtime.(*timers).run", "github.com/a/b" for
// "github.com/a/b.(*T).M", "main" for "main.main.func1". Assembly symbols
// without a package ("gogo") give "".
func Package(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return fn[:slash+1+dot]
}

// IsStd reports whether pkg is in the standard library: its first path
// element has no dot (and it is not main). Vendored std code
// ("vendor/golang.org/x/net/...") counts as std.
func IsStd(pkg string) bool {
	if pkg == "" || pkg == "main" || pkg == "command-line-arguments" {
		return pkg == ""
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// isRuntime reports whether pkg is the runtime or one of its internal
// packages; "" (an assembly symbol such as gogo) counts as runtime.
func isRuntime(pkg string) bool {
	return pkg == "" || pkg == "runtime" || strings.HasPrefix(pkg, "runtime/internal/") ||
		strings.HasPrefix(pkg, "internal/runtime/")
}
