package exectrace

import (
	"strings"

	"golang.org/x/exp/trace"

	"github.com/schedoctor/schedoctor/finding"
)

// locID indexes the analysis' table of interned locations; noLoc is "no
// stack" or "no frame at all".
type locID int32

const noLoc locID = -1

// locTable interns source locations, and caches for the current generation
// which location each stack resolves to. Stacks are handles into one
// generation's tables, so the cache is dropped at every generation boundary:
// memory stays bounded by the distinct locations plus one generation's stacks.
type locTable struct {
	locs  []finding.Location
	index map[finding.Location]locID
	cache map[trace.Stack]locID // this generation's stacks → user frame
	entry map[trace.Stack]locID // this generation's stacks → outermost frame
	lock  map[trace.Stack]bool  // this generation's stacks → blocked in a Mutex or RWMutex
	gc    map[trace.Stack]bool  // this generation's stacks → inside runtime.GC
	spin  map[trace.Stack]bool  // this generation's stacks → in select or yield code
	work  map[trace.Stack]bool  // this generation's stacks → in a standard-library callee of user code
	batch map[trace.Stack]bool  // this generation's stacks → under a batching I/O frame
	// callers holds, for a user frame, the user frames above it (its
	// callers, innermost first, at most maxCallers) on the first stack
	// seen through it: a library's non-blocking call is no loop, and the
	// retry loop around it is its caller's (issue 20).
	callers map[locID][]locID
}

// maxCallers bounds the user frames kept above a user frame.
const maxCallers = 8

func newLocTable() *locTable {
	return &locTable{
		index:   map[finding.Location]locID{},
		cache:   map[trace.Stack]locID{},
		entry:   map[trace.Stack]locID{},
		lock:    map[trace.Stack]bool{},
		gc:      map[trace.Stack]bool{},
		spin:    map[trace.Stack]bool{},
		work:    map[trace.Stack]bool{},
		batch:   map[trace.Stack]bool{},
		callers: map[locID][]locID{},
	}
}

// newGeneration forgets the stack cache: the stacks of the next generation
// are new handles.
func (t *locTable) newGeneration() {
	clear(t.cache)
	clear(t.entry)
	clear(t.lock)
	clear(t.gc)
	clear(t.work)
	clear(t.spin)
	clear(t.batch)
}

// cached answers f for s once per stack, in m: a generation's events
// share few stacks, each asked about many times. NoStack has no frames:
// none. (f takes t rather than closing over it, so that passing it
// allocates nothing.)
func cached[V any](t *locTable, m map[trace.Stack]V, s trace.Stack, none V, f func(*locTable, trace.Stack) V) V {
	if s == trace.NoStack {
		return none
	}
	if v, ok := m[s]; ok {
		return v
	}
	v := f(t, s)
	m[s] = v
	return v
}

// anyFrame reports whether a frame of s runs a function that match accepts.
func anyFrame(s trace.Stack, match func(fn string) bool) bool {
	for f := range s.Frames() {
		if match(f.Func) {
			return true
		}
	}
	return false
}

// isBatched reports whether s passes through a frame that batches I/O
// (finding.BatchingFrame: bufio's Flush, writev, io.Copy's buffer): a
// syscall made there moves a buffer's worth, not one item.
func (t *locTable) isBatched(s trace.Stack) bool {
	return cached(t, t.batch, s, false, func(_ *locTable, s trace.Stack) bool { return anyFrame(s, finding.BatchingFrame) })
}

// inForcedGC reports whether s is inside a collection forced by a call
// (runtime.GC, debug.FreeOSMemory): its pauses, mark phase and sweep-loop
// yields are the runtime's, at the caller's request, not allocation.
func (t *locTable) inForcedGC(s trace.Stack) bool {
	return cached(t, t.gc, s, false, func(_ *locTable, s trace.Stack) bool { return anyFrame(s, forcesGC) })
}

func forcesGC(fn string) bool { return fn == "runtime.GC" || fn == "runtime/debug.FreeOSMemory" }

// inSpinCode reports whether a CPU sample's stack is in the runtime's
// select or yield code (selectgo, selectnbsend/recv, their locks,
// Gosched): the frames a busy wait on a select or a yield runs.
func (t *locTable) inSpinCode(s trace.Stack) bool {
	return cached(t, t.spin, s, false, spinCode)
}

func spinCode(_ *locTable, s trace.Stack) bool {
	for f := range s.Frames() {
		switch f.Func {
		case "runtime.selectgo", "runtime.selectnbsend", "runtime.selectnbrecv", "runtime.sellock", "runtime.selunlock",
			"runtime.Gosched", "runtime.gosched_m", "runtime.goschedImpl":
			return true
		}
		if isUserFunc(f.Func) {
			return false // only the frames under the first user frame count
		}
	}
	return false
}

// inWorkCode reports whether a CPU sample's leaf is a standard-library
// function outside the runtime called by user code (crypto, encoding,
// I/O): the work a loop does, not its wait (the select, Gosched and
// lock frames are the runtime's, the loop's own test is user code).
func (t *locTable) inWorkCode(s trace.Stack) bool {
	return cached(t, t.work, s, false, workCode)
}

func workCode(_ *locTable, s trace.Stack) bool {
	leaf := ""
	for f := range s.Frames() {
		leaf = f.Func
		break // the leaf decides
	}
	return leaf != "" && !isUserFunc(leaf) && !strings.HasPrefix(leaf, "runtime.") && !strings.HasPrefix(leaf, "internal/runtime/")
}

// isLock reports whether s blocked in sync.Mutex or sync.RWMutex (rather
// than a WaitGroup, a Cond or the runtime's own semaphores).
func (t *locTable) isLock(s trace.Stack) bool {
	return cached(t, t.lock, s, false, func(_ *locTable, s trace.Stack) bool { return anyFrame(s, lockFunc) })
}

func lockFunc(fn string) bool {
	return strings.HasPrefix(fn, "sync.(*Mutex).") || strings.HasPrefix(fn, "sync.(*RWMutex).") ||
		strings.HasPrefix(fn, "internal/sync.(*Mutex).")
}

func (t *locTable) intern(f trace.StackFrame) locID {
	l := finding.Location{File: f.File, Line: int(f.Line), Function: f.Func}
	if id, ok := t.index[l]; ok {
		return id
	}
	id := locID(len(t.locs))
	t.locs = append(t.locs, l)
	t.index[l] = id
	return id
}

// get returns the location of id; the zero Location for noLoc.
func (t *locTable) get(id locID) finding.Location {
	if id < 0 || int(id) >= len(t.locs) {
		return finding.Location{}
	}
	return t.locs[id]
}

// user returns the innermost frame of s that is the user's code (see
// isUserFunc), or the innermost frame when none is; noLoc for no stack.
func (t *locTable) user(s trace.Stack) locID {
	return cached(t, t.cache, s, noLoc, (*locTable).userOf)
}

func (t *locTable) userOf(s trace.Stack) locID {
	id := noLoc
	var first trace.StackFrame
	n := 0
	var up []locID // user frames above id, until the callers of id are known
	for f := range s.Frames() {
		if n == 0 {
			first = f
		}
		n++
		if id != noLoc {
			if isUserFunc(f.Func) {
				up = append(up, t.intern(f))
			}
			if len(up) == maxCallers {
				break
			}
			continue
		}
		if isUserFunc(f.Func) {
			id = t.intern(f)
			if _, known := t.callers[id]; known {
				break
			}
			up = []locID{}
		}
	}
	if id != noLoc && up != nil {
		t.callers[id] = up
	}
	if id == noLoc && n > 0 {
		id = t.intern(first)
	}
	return id
}

// callersOf returns the user frames above l on the first stack seen
// through it, innermost first.
func (t *locTable) callersOf(id locID) []finding.Location {
	var out []finding.Location
	for _, c := range t.callers[id] {
		out = append(out, t.get(c))
	}
	return out
}

// outer returns the outermost frame of s: for a goroutine's starting stack,
// the function it runs.
func (t *locTable) outer(s trace.Stack) locID {
	return cached(t, t.entry, s, noLoc, (*locTable).outerOf)
}

func (t *locTable) outerOf(s trace.Stack) locID {
	var last trace.StackFrame
	seen := false
	for f := range s.Frames() {
		last, seen = f, true
	}
	if !seen {
		return noLoc
	}
	return t.intern(last)
}

// isUserFunc reports whether fn (a qualified function name as the trace
// gives it, "main.bad.func1", "sync.(*Mutex).Lock",
// "github.com/x/y.(*T).M") belongs to the program rather than to the
// standard library, the runtime or testing (finding.UserFunction).
func isUserFunc(fn string) bool {
	return finding.UserFunction(fn)
}

// isRuntimeFunc reports whether fn is in the runtime (system goroutines:
// GC workers, the sweeper, the scavenger, finalizers, timers).
func isRuntimeFunc(fn string) bool {
	return finding.FuncPackage(fn) == "runtime"
}
