package inspect

import (
	"errors"
	"fmt"
	"go/build"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/loops"
)

// ErrNoSource is returned (wrapped) when no readable Go file answers to the
// path a profile or trace recorded, neither as recorded nor under any of
// the Resolver's SrcDirs.
var ErrNoSource = errors.New("source not found")

// Kind is what the loop around a hot line does between iterations:
// lint/loops' verdict, which this package passes on.
type Kind = loops.Kind

// The kinds, as lint/loops defines them.
const (
	NotInLoop     = loops.NotInLoop     // the line is in no for statement of its function
	SelectDefault = loops.SelectDefault // a select with a default that neither blocks nor leaves the loop (SD101)
	YieldSpin     = loops.YieldSpin     // runtime.Gosched, time.Sleep(0) or a zero timer as the only wait (SD106, SD104)
	AtomicSpin    = loops.AtomicSpin    // re-reads an atomic or a flag another goroutine moves, with no blocking (SD106)
	SleepPoll     = loops.SleepPoll     // polls with a time.Sleep below the SD102 threshold
	SleepUnknown  = loops.SleepUnknown  // sleeps for a length the source does not fix; a runtime source decides
	TimerPerIter  = loops.TimerPerIter  // makes a timer every iteration (SD104)
	Blocking      = loops.Blocking      // the loop parks on its idle path (a channel op, a select without default, a lock, a long sleep)
	Compute       = loops.Compute       // no wait and no spin: the loop's own work
	Unknown       = loops.Unknown       // calls code lint cannot see into (an interface's method, another module's function)
	RetryCAS      = loops.RetryCAS      // retries a compare-and-swap (bounded by contention, not a wait)
)

// Loop is what the source shows around one line.
type Loop struct {
	// Path is the file that was read (after remapping); Line the line asked.
	Path string
	Line int
	// Function is the enclosing function as pprof names it ("main.bad.func1"
	// is not reconstructed: the declared name, "bad" or "(*ring).put").
	Function string
	// Start and End are the lines of the innermost for or range statement
	// that encloses Line (0 when Kind is NotInLoop). Outer holds the
	// enclosing loops' ranges, innermost first, when loops nest.
	Start, End int
	Outer      [][2]int
	// OuterKinds classifies the loops of Outer, in the same order: a hot
	// line in a compute loop nested inside a yield spin is still part of
	// the spin (see SpinLoop).
	OuterKinds []Kind
	Kind       Kind
	// Rule is the lint rule whose finding decided Kind ("SD101"), ""
	// when no rule reported the loop (Blocking, Compute, ...); Rules
	// every loop rule (SD101, SD102, SD104, SD106) reported on it, Rule
	// first.
	Rule  string
	Rules []string
	// Detail says in a few words what made the verdict ("select at line 37
	// has a default and cases on done, ctx.Done()"; "time.Sleep(5µs) at
	// line 12").
	Detail string
	// SpinLine is the line of the operation that spins or polls (the select,
	// the Gosched call, the atomic load, the sleep), 0 when none.
	SpinLine int
	// Findings are the SD1xx diagnostics the analyzers report between Start
	// and End (from the whole package when it loads, from the file alone
	// otherwise; Typed says which).
	Findings []finding.Finding
	Typed    bool
}

// Resolver finds and reads source files; it caches what it has read and
// parsed, so asking about many lines of one file parses it once. The zero
// value reads a local input's paths as recorded, within the rules and the
// budget of resolve.go.
type Resolver struct {
	// SrcDirs are roots to try when the recorded path does not exist (a
	// binary built elsewhere or with -trimpath): the recorded path's
	// suffixes are looked up under each, longest first.
	SrcDirs []string
	// MaxFileSize is the largest file read, in bytes; 0 means
	// DefaultMaxFileSize. Generated files beyond it are refused rather
	// than read into memory.
	MaxFileSize int64
	// LoadTimeout bounds one package load and analysis with go/packages;
	// 0 means DefaultLoadTimeout. A load that runs out of time falls back
	// to the file alone (Typed false).
	LoadTimeout time.Duration
	// NoLoad skips go/packages: the analyzers run on the leniently typed
	// files only and no go command is started for the package.
	NoLoad bool
	// NoFindings leaves Loop.Findings empty and runs no analyzer: the loop's
	// kind comes from reading the source, not from the analyzers, so a
	// caller that needs only the kind (diagnose.Profile walking every frame
	// of a profile's stacks) saves a package load per directory, which takes
	// 5–20 s on a busy machine when the package imports net/http. A loop
	// whose lenient kind is Unknown (it calls another package, whose facts
	// the lenient read lacks) still gets one typed load of its package,
	// unless NoLoad: the retry around a library's non-blocking call is a
	// spin only to the typed read.
	NoFindings bool
	// VetTool, when set, is a schedoctor binary that answers as go vet's
	// tool (driver.IsVetTool; os.Executable() in cmd/schedoctor): the package
	// is analysed by `go vet -vettool`, which keeps the results and the
	// dependencies' facts in the go build cache, so a package analysed once
	// costs about a second after (measured on the lab's busyhandler: 17 s
	// cold, 1.5 s warm, against 17–23 s for every go/packages load).
	VetTool string
	// Access says which files may be read: the roots besides SrcDirs, and
	// whether the recorded paths are this machine's (resolve.go).
	Access Access
	// Budget bounds the run's source reading (resolve.go).
	Budget Budget

	spent    spent
	mu       sync.Mutex
	files    map[string]*fileEntry // by the path read
	pkgs     map[pkgKey]*pkgEntry  // package loads, by directory
	analyses map[*fileEntry]*analysed
}

// Defaults of the Resolver's zero fields.
const (
	DefaultMaxFileSize = 8 << 20
	DefaultLoadTimeout = 60 * time.Second
)

// At reports the loop that encloses file:line. file is as the profile or
// trace recorded it. The error wraps ErrNoSource when the file cannot be
// found; other errors name the file and what is wrong with it.
func (r *Resolver) At(file string, line int) (*Loop, error) {
	if line <= 0 {
		return nil, fmt.Errorf("%s:%d: no such line", file, line)
	}
	if !strings.HasSuffix(file, ".go") {
		// A frame in assembly (a .s file) or in C: there is no Go loop
		// to read, and parsing it as Go would only make noise.
		return nil, fmt.Errorf("%s: not a Go source file: %w", file, ErrNoSource)
	}
	path, loc, err := r.resolve(file)
	if err != nil {
		return nil, err
	}
	fe, err := r.file(path, loc)
	if err != nil {
		return nil, err
	}
	if line > fe.lines {
		return nil, fmt.Errorf("%s:%d: the file has %d lines (is the source the one the binary was built from?)", path, line, fe.lines)
	}
	loop, err := r.safeLoopAt(fe, line)
	if err != nil {
		return nil, err
	}
	loop.Path = path
	switch {
	case loop.Kind == NotInLoop:
	case !r.NoFindings:
		loop.Findings, loop.Typed = r.findings(fe, loop.Start, loop.End)
		if loop.Typed {
			fe.retype(loop, loop.Findings)
		}
	case loop.Kind == Unknown && !r.NoLoad && fe.untypedCall(loop.SpinLine):
		// The lenient read has no facts of other packages: a consumer's
		// retry around a library's non-blocking Dequeue is unknown there.
		// A typed load of this one package (once per directory) decides
		// it with the library's facts; its findings are not kept. A loop
		// unknown for a call no load resolves (an interface's method, a
		// func value) costs no load.
		if fs, typed := r.findings(fe, loop.Start, loop.End); typed {
			loop.Typed = true
			fe.retype(loop, fs)
		}
	}
	return loop, nil
}

// SpinLoop returns the innermost loop around the line that spins (the
// loop itself or one of Outer), with its kind and lines; ok is false when
// none does. A profile's hot line in the work done between yields belongs
// to the spin that encloses it.
func (l *Loop) SpinLoop() (kind Kind, start, end int, ok bool) {
	if l.Kind.Spin() {
		return l.Kind, l.Start, l.End, true
	}
	for i, k := range l.OuterKinds {
		if k.Spin() && i < len(l.Outer) {
			return k, l.Outer[i][0], l.Outer[i][1], true
		}
	}
	return "", 0, 0, false
}

// safeLoopAt is loopAt turned into an error if it panics: source from
// anywhere is input, and a library does not crash on its input.
func (r *Resolver) safeLoopAt(fe *fileEntry, line int) (l *Loop, err error) {
	defer func() {
		if p := recover(); p != nil {
			l, err = nil, fmt.Errorf("%s:%d: reading the loop failed (a bug in inspect; please report it): %v", fe.path, line, p)
		}
	}()
	return r.loopAt(fe, line)
}

// Frame is one frame of a stack as a profile or trace recorded it.
type Frame struct {
	File string
	Line int
}

// SpinIn reads a stack's frames, leaf first, and returns the loop of the
// first frame that lies in a spinning loop (its own, or one of Outer) with
// that frame's index: a hot line in a helper such as a ring buffer's
// minGate, inlined into put's wait loop, is compute where it is and a spin
// one frame up. When no frame spins it returns the first frame it could
// read, with index -1. Frames whose source is missing are skipped; the
// error is the first frame's when none could be read.
func (r *Resolver) SpinIn(stack []Frame) (*Loop, int, error) {
	var first *Loop
	var firstErr error
	for i, f := range stack {
		if stdFrame(f.File) {
			// The runtime's and the standard library's loops are not the
			// user's to fix (mcall and gosched_m around a Gosched, a
			// futex under LockOSThread): the spin is in a caller's loop.
			continue
		}
		l, err := r.At(f.File, f.Line)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if _, _, _, ok := l.SpinLoop(); ok {
			return l, i, nil
		}
		if first == nil {
			first = l
		}
	}
	if first != nil {
		return first, -1, nil
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("an empty stack: %w", ErrNoSource)
	}
	return nil, -1, firstErr
}

// stdFrame reports a file of the standard library: under this machine's
// GOROOT, or recorded as GOROOT/src/PKG/file.go with PKG a standard
// package ("/usr/local/go/src/runtime/proc.go" from a binary built
// elsewhere; "runtime/proc.go" under -trimpath).
func stdFrame(file string) bool {
	slashed := filepath.ToSlash(file)
	if root := build.Default.GOROOT; root != "" && strings.HasPrefix(slashed, filepath.ToSlash(filepath.Join(root, "src"))+"/") {
		return true
	}
	rel := slashed
	if i := strings.LastIndex(slashed, "/src/"); i >= 0 {
		rel = slashed[i+len("/src/"):]
	} else if filepath.IsAbs(file) {
		return false
	}
	dir := path.Dir(rel)
	return dir != "." && finding.StdPackage(dir) && !strings.Contains(dir, "testdata")
}
