package profile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/viz"
)

// Options tune Analyze. The zero value uses DefaultThresholds.
type Options struct {
	// Thresholds replaces DefaultThresholds when non-nil.
	Thresholds *Thresholds
	// Top is how many user lines to keep per cause; 0 means 5.
	Top int
	// NoFlame leaves out the flame graph (Summary.Flame stays nil): a
	// caller that renders no HTML report saves its cost, a fifth of the
	// analysis of a merged fleet profile.
	NoFlame bool
}

// Result is what Analyze found: the findings and the cause table.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary

	merged  *profile.Profile
	classes []classify.Class // by stack group
	group   []int32          // the stack group of each sample of merged
}

// Summary is the cause table of the analysed profiles. It is the JSON
// "summary" of `schedoctor profile -json` and prints itself as text.
type Summary struct {
	Profiles        int     `json:"profiles"`
	DurationSeconds float64 `json:"duration_seconds"` // summed over the profiles
	CPUSeconds      float64 `json:"cpu_seconds"`
	Cores           float64 `json:"cores"` // CPUSeconds / DurationSeconds
	Samples         int64   `json:"samples"`
	Causes          []Cause `json:"causes"` // by CPU, largest first; causes with no samples left out

	// Thin, when set, says why the profile is too thin to rule causes out
	// (too few samples, too short), with the figures and what to capture.
	Thin string `json:"thin,omitempty"`
	// ParkShare is the % of CPU spent parking and waking (scheduler, idle
	// spinning, thread churn): a busy-wait keeps it low.
	ParkShare float64 `json:"park_share"`
	// CommShare is the % of CPU in channel communications that complete
	// (chansend, chanrecv, a select's receive that copies an element or
	// dequeues a waiter): a select whose channel a producer keeps ready
	// shows them, a select that spins does not.
	CommShare float64 `json:"comm_share"`
	// Spins are the select and Gosched frame families with their CPU, in
	// the order of the SD204 findings drawn from them.
	Spins []Spin `json:"spins,omitempty"`
	// Candidates are the hot user lines whose cause only the source can
	// decide (a select, a Gosched call, large flat time); diagnose.Profile
	// reads the code there.
	Candidates []Candidate `json:"candidates,omitempty"`
	// UserLines is the CPU under each user line (first user frame of the
	// stack), heaviest first, so that a loop's lines can be summed.
	UserLines []LineCPU `json:"user_lines,omitempty"`
	// UserStacks are the samples' chains of user frames, leaf first, with
	// their CPU, heaviest first (at most MaxUserStacks chains of at most
	// MaxStackUserFrames frames): the join walks them up to give a callee's
	// time (a ring buffer's minGate, inlined into put) to the spinning
	// loop of a caller. Not in the JSON: it is the join's input, and the
	// loops it builds (diagnose's "loops") are what a reader needs.
	UserStacks []UserStack `json:"-"`
	// WakeDrivers says what made the runtime wake threads (SD201), as a %
	// of the wake samples whose driver the stack shows.
	WakeDrivers []Driver `json:"wake_drivers,omitempty"`
	// SyscallBatchedShare is the % of syscall CPU issued through batching
	// (bufio.Writer.Flush, net.Buffers/writev, io.Copy).
	SyscallBatchedShare float64 `json:"syscall_batched_share"`
	// RuntimeLockBy says which runtime function took the contended
	// runtime locks (sellock, chansend, (*timers).lock, ...), as a % of the
	// runtime-lock CPU; RuntimeLockUnderSelectShare is the % of the
	// profile's CPU in runtime locks taken by selects.
	RuntimeLockBy               []Driver `json:"runtime_lock_by,omitempty"`
	RuntimeLockUnderSelectShare float64  `json:"runtime_lock_under_select_share"`
	// TimerDrivers splits timer CPU by what drives it (sleeps, timers
	// made, resets, expiries); MutexSpinShare is the % of sync.Mutex CPU
	// spent spinning for the lock rather than parking on its semaphore.
	TimerDrivers   []Driver `json:"timer_drivers,omitempty"`
	MutexSpinShare float64  `json:"mutex_spin_share"`
	// ForcedGCShare is the % of CPU in collections forced by runtime.GC(),
	// ForcedGCBy who called it, ForcedGCYieldShare the cut Gosched CPU
	// attributed to runtime.GC's sweep loop.
	ForcedGCShare      float64  `json:"forced_gc_share"`
	ForcedGCBy         []Driver `json:"forced_gc_by,omitempty"`
	ForcedGCYieldShare float64  `json:"forced_gc_yield_share"`
	// Flame is the HTML report's flame graph of the classified samples
	// (viz.go); not in the JSON, where -o writes the classified profile.
	Flame *viz.Flame `json:"-"`
}

// Cause is one row of the cause table.
type Cause struct {
	Cause      classify.Cause `json:"cause"`
	Share      float64        `json:"share"` // % of the profile's CPU time
	Cores      float64        `json:"cores"`
	CPUSeconds float64        `json:"cpu_seconds"`
	Samples    int64          `json:"samples"`
	// CutShare is the % of this cause's CPU whose stacks carry no user frame
	// (scheduler work on g0 after mcall, background GC workers).
	CutShare float64 `json:"cut_share"`
	// Chain is the decisive caller chain of the heaviest stack, leaf first,
	// and ChainShare that stack's % of the cause's CPU.
	Chain      string  `json:"chain"`
	ChainShare float64 `json:"chain_share"`
	// Rules breaks the cause down by the classifier rule that matched.
	Rules []RuleShare `json:"rules,omitempty"`
	// Lines are the user lines whose stacks lead to the cause, with their
	// share of the cause's CPU.
	Lines []UserLine `json:"lines,omitempty"`
	// Labels breaks the cause down by pprof labels (runtime/pprof.Do), as
	// "key=value" with the % of the cause's CPU, largest first.
	Labels []LabelShare `json:"labels,omitempty"`
	// Callers are, when much of the cause is cut from user stacks, the user
	// lines that call what makes that work (time.Sleep, go statements,
	// channel operations), with their share of those calls' CPU.
	Callers []UserLine `json:"callers,omitempty"`
}

// RuleShare is the part of a cause one classifier rule matched.
type RuleShare struct {
	Rule  string  `json:"rule"`
	Share float64 `json:"share"` // % of the profile's CPU time
}

// LabelShare is the part of a cause under one pprof label value.
type LabelShare struct {
	Label string  `json:"label"` // key=value
	Share float64 `json:"share"` // % of the cause's CPU
}

// StackFrame is one user frame of a UserStack.
type StackFrame struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// UserStack is the CPU of the samples whose user frames, leaf first, are
// Frames (the runtime and standard-library frames between them left out).
type UserStack struct {
	Frames  []StackFrame `json:"frames"`
	Share   float64      `json:"share"` // % of the profile's CPU
	Cores   float64      `json:"cores"`
	Samples int64        `json:"samples"`
}

// UserLine is a user frame with its weight.
type UserLine struct {
	Function string  `json:"function"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Share    float64 `json:"share"` // %
}

func (u UserLine) location() finding.Location {
	return finding.Location{File: u.File, Line: u.Line, Function: u.Function}
}

// ErrNoRuntime is wrapped when a profile holds no Go runtime frame at all:
// it is not a Go program's profile, or it was not symbolized.
var ErrNoRuntime = errors.New("no Go runtime frames")

// Analyze merges the profiles (their durations add up: cores are CPU time
// over the summed duration, the average over the profiles), classifies
// every sample and derives the findings.
func Analyze(profiles []*profile.Profile, opt Options) (*Result, error) {
	if len(profiles) == 0 {
		return nil, errors.New("no profiles to analyse")
	}
	for i, p := range profiles {
		if p == nil {
			return nil, fmt.Errorf("profile %d is nil", i+1)
		}
		if err := checkValid(p); err != nil {
			return nil, fmt.Errorf("profile %d: %w", i+1, err)
		}
		if err := checkCPU(p); err != nil {
			return nil, fmt.Errorf("profile %d: %w", i+1, err)
		}
		if err := checkNumbers(p); err != nil {
			return nil, fmt.Errorf("profile %d: %w", i+1, err)
		}
	}
	merged := profiles[0]
	if len(profiles) > 1 {
		var err error
		if merged, err = profile.Merge(profiles); err != nil {
			return nil, fmt.Errorf("merging the profiles: %w", err)
		}
		// Each profile's sums fit; their sum may not.
		if err := checkNumbers(merged); err != nil {
			return nil, fmt.Errorf("merging the profiles: %w", err)
		}
	}
	th := DefaultThresholds
	if opt.Thresholds != nil {
		th = *opt.Thresholds
	}
	if opt.Top <= 0 {
		opt.Top = 5
	}
	c := classify.New()
	a := newAnalysis(merged)
	a.c, a.th, a.top = c, th, opt.Top
	a.ft = newFrameTable(a, a.countIndex())
	// One class per stack: the samples of a stack differ in their labels only.
	firsts := make([]int, len(a.ft.groups))
	for gi, g := range a.ft.groups {
		firsts[gi] = g.first
	}
	a.classes = c.ClassifySamples(merged, firsts)
	lockedYields(a.classes)
	// The flame graph only reads the profile, the classes and the stack
	// groups: it is built beside the tallies, on another CPU when there
	// is one (a fifth of the analysis of a fleet profile).
	flame := make(chan *vizbuild.Flame, 1)
	if opt.NoFlame {
		flame <- nil
	} else {
		go func() { flame <- a.flameBuilder() }()
	}
	if err := a.tally(len(profiles)); err != nil {
		<-flame
		return nil, err
	}
	a.candidates(a.scanSamples())
	a.thin()
	// Preemption must be sustained: with several profiles, each must show it.
	a.perProfilePreempt = perProfileShare(profiles, classify.Preempt)
	a.findings()
	if b := <-flame; b != nil {
		a.sum.Flame = b.Build(flameMinShare, flameMaxNodes, a.sum.Cores)
	}
	return &Result{Findings: a.out, Summary: a.sum, merged: merged, classes: a.classes, group: a.ft.group}, nil
}

// perProfileShare is the smallest share of cause over the profiles, when
// there are several; -1 for one profile.
func perProfileShare(profiles []*profile.Profile, cause classify.Cause) float64 {
	if len(profiles) < 2 {
		return -1
	}
	least := 100.0
	c := classify.New()
	for _, p := range profiles {
		vi := cpuIndex(p)
		var tot, in int64
		for i, cl := range c.Classify(p) {
			v := max(p.Sample[i].Value[vi], 0)
			tot += v
			if cl.Cause == cause {
				in += v
			}
		}
		if tot > 0 {
			least = min(least, 100*float64(in)/float64(tot))
		}
	}
	return least
}

// minCallerSamples is the fewest samples of driving calls (time.Sleep, go
// statements, ...) from which a cut cause's user lines are named: from one
// or two samples the line would be luck, and the finding says to take a
// trace instead.
const minCallerSamples = 5

type lineKey struct {
	fn, file string
	line     int64
}

// labelKV is one pprof label value of a sample; joined as "key=value"
// only for the causes' rows, not per sample.
type labelKV struct{ key, value string }

// causeAcc accumulates one cause.
type causeAcc struct {
	value, count, cut int64
	rules             map[int]int64
	labels            causeLabels
	lines             map[lineKey]int64
	callers           map[lineKey]int64
	callersTotal      int64
	callersCount      int64 // samples behind callers
	heaviest          int   // sample index of the heaviest sample
	heaviestV         int64 // its CPU
}

type analysis struct {
	p       *profile.Profile
	c       *classify.Classifier
	classes []classify.Class // by stack group (ft.groups)
	th      Thresholds
	top     int
	vi      int   // index of the CPU value
	per     int64 // nanoseconds per unit of it: the period for a count of samples, else 1
	ft      *frameTable

	total, count      int64
	durNanos          int64
	acc               map[classify.Cause]*causeAcc
	sum               *Summary
	out               []finding.Finding
	perProfilePreempt float64
}

// newAnalysis starts the analysis of a CPU profile (checkCPU passed).
func newAnalysis(p *profile.Profile) *analysis {
	a := &analysis{p: p, vi: cpuIndex(p), per: 1}
	if p.SampleType[a.vi].Type == "samples" {
		a.per = max(p.Period, 1)
	}
	return a
}

// value is the sample's CPU time in nanoseconds.
func (a *analysis) value(s *profile.Sample) int64 {
	return max(s.Value[a.vi], 0) * a.per // a negative CPU time is nonsense: count it as none
}

// count is the sample's number of samples (the samples/count value when
// the profile has one, else 1).
func (a *analysis) countOf(s *profile.Sample, ci int) int64 {
	if ci >= 0 {
		return max(s.Value[ci], 0)
	}
	return 1
}

// countIndex is the index of the samples/count value, -1 when none.
func (a *analysis) countIndex() int {
	ci := -1
	for i, st := range a.p.SampleType {
		if st.Type == "samples" && st.Unit == "count" {
			ci = i
		}
	}
	return ci
}

func (a *analysis) tally(nprof int) error {
	a.acc = map[classify.Cause]*causeAcc{}
	// Per sample: the label breakdown and the heaviest sample of each cause.
	var lt labelTally
	byGroup := make([]*causeAcc, len(a.ft.groups)) // the cause's of each stack group, once looked up
	for i, s := range a.p.Sample {
		g := a.ft.group[i]
		v := a.value(s)
		ac := byGroup[g]
		if ac == nil {
			cause := a.classes[g].Cause
			if ac = a.acc[cause]; ac == nil {
				ac = &causeAcc{rules: map[int]int64{}, lines: map[lineKey]int64{}, callers: map[lineKey]int64{},
					heaviest: i, heaviestV: v}
				a.acc[cause] = ac
			}
			byGroup[g] = ac
		}
		lt.add(s, v, &ac.labels)
		if v > ac.heaviestV {
			ac.heaviest, ac.heaviestV = i, v
		}
	}
	// Per stack: the sums, which do not depend on the labels.
	for gi, g := range a.ft.groups {
		cl := a.classes[gi]
		v, n := g.v, g.n
		a.total += v
		a.count += n
		ac := a.acc[cl.Cause]
		ac.value += v
		ac.count += n
		if cl.Rule >= 0 {
			ac.rules[cl.Rule] += v
		}
		if cl.HasUser() {
			ac.lines[lineKey{cl.User.Function, cl.User.File, cl.User.Line}] += v
		} else {
			ac.cut += v
		}
	}
	if a.total <= 0 {
		return errors.New("the profile's samples are all zero: no CPU time to classify")
	}
	// A Go profile names Go source files, and nearly always runtime
	// functions; one with neither is not a Go program's, or not symbolized.
	// (A short profile of pure computation can hold no runtime frame at
	// all: CPU profiles omit the runtime.goexit root.)
	if !hasRuntimeFrame(a.p) {
		return fmt.Errorf("%w: is this a Go program's CPU profile, and was it symbolized? (every Go profile shows runtime frames)", ErrNoRuntime)
	}
	// Hint attribution, for causes whose stacks are largely cut.
	var hints []classify.Cause
	for gi, g := range a.ft.groups {
		cl := a.classes[gi]
		if !cl.HasUser() {
			continue
		}
		// A call that allocates (mallocgc under time.Sleep: the first sleep
		// of every goroutine makes its timer) is evidence about allocation,
		// not about how often the call drives the scheduler: it counts for
		// the GC causes only.
		allocates := a.c.HintsFor(cl, classify.GCMark)
		hints = a.c.AppendHintCauses(hints[:0], cl)
		for _, cause := range hints {
			if allocates && cause != classify.GCMark && cause != classify.GCAssist && cause != classify.GCSweep {
				continue
			}
			if ac := a.acc[cause]; ac != nil {
				ac.callers[lineKey{cl.User.Function, cl.User.File, cl.User.Line}] += g.v
				ac.callersTotal += g.v
				ac.callersCount += g.n
			}
		}
	}
	a.durNanos = a.p.DurationNanos
	if a.durNanos <= 0 {
		// A profile without a duration: assume the samples span one
		// core-second per second of CPU, so cores read as 1.
		a.durNanos = a.total
	}
	a.sum = &Summary{
		Profiles:        nprof,
		DurationSeconds: float64(a.durNanos) / 1e9,
		CPUSeconds:      float64(a.total) / 1e9,
		Cores:           float64(a.total) / float64(a.durNanos),
		Samples:         a.count,
	}
	for _, cause := range classify.Causes {
		ac := a.acc[cause]
		if ac == nil {
			continue
		}
		row := Cause{
			Cause:      cause,
			Share:      a.share(ac.value),
			Cores:      float64(ac.value) / float64(a.durNanos),
			CPUSeconds: float64(ac.value) / 1e9,
			Samples:    ac.count,
			CutShare:   pct(ac.cut, ac.value),
			Chain:      a.c.Chain(a.p.Sample[ac.heaviest], a.classes[a.ft.group[ac.heaviest]]),
			ChainShare: pct(a.value(a.p.Sample[ac.heaviest]), ac.value),
			Lines:      topLines(ac.lines, ac.value, a.top),
		}
		for ri, v := range ac.rules {
			row.Rules = append(row.Rules, RuleShare{Rule: classify.Rules[ri].Name, Share: a.share(v)})
		}
		slices.SortFunc(row.Rules, func(x, y RuleShare) int {
			return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Rule, y.Rule))
		})
		for id, seen := range ac.labels.seen {
			if seen {
				l := lt.labels[id]
				row.Labels = append(row.Labels, LabelShare{Label: l.key + "=" + l.value, Share: pct(ac.labels.v[id], ac.value)})
			}
		}
		slices.SortFunc(row.Labels, func(x, y LabelShare) int {
			return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Label, y.Label))
		})
		row.Labels = row.Labels[:min(len(row.Labels), a.top)]
		if row.CutShare >= 50 && ac.callersCount >= minCallerSamples {
			row.Callers = topLines(ac.callers, ac.callersTotal, a.top)
		}
		a.sum.Causes = append(a.sum.Causes, row)
	}
	slices.SortStableFunc(a.sum.Causes, func(x, y Cause) int { return cmp.Compare(y.CPUSeconds, x.CPUSeconds) })
	return nil
}

func hasRuntimeFrame(p *profile.Profile) bool {
	for _, f := range p.Function {
		if classify.Package(classify.Canonical(f.Name)) == "runtime" || strings.HasSuffix(f.Filename, ".go") {
			return true
		}
	}
	return false
}

func (a *analysis) share(v int64) float64 { return pct(v, a.total) }

func pct(v, tot int64) float64 {
	if tot <= 0 {
		return 0
	}
	return 100 * float64(v) / float64(tot)
}

func topLines(m map[lineKey]int64, total int64, n int) []UserLine {
	out := make([]UserLine, 0, len(m))
	for k, v := range m {
		out = append(out, UserLine{Function: k.fn, File: k.file, Line: int(k.line), Share: pct(v, total)})
	}
	slices.SortFunc(out, func(x, y UserLine) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
	return out[:min(n, len(out))]
}

// row returns the summary row of cause, zero when it has no samples.
func (s *Summary) row(cause classify.Cause) Cause {
	for _, c := range s.Causes {
		if c.Cause == cause {
			return c
		}
	}
	return Cause{Cause: cause}
}

// Share returns the % of CPU time spent on cause.
func (s *Summary) Share(cause classify.Cause) float64 { return s.row(cause).Share }

// lockedYields gives a locked goroutine's restarts (startlockedm) to the
// yield when the profile shows a locked goroutine yielding: each yield
// hands the P to another M, whose schedule must hand it back to the locked
// thread, so that M's futex and parking are the yield's cost too, not
// thread churn from a poll (issue 20: SD201 "a spinning M" with a
// sleep-poll fix and no line, for a Gosched spin under LockOSThread).
func lockedYields(classes []classify.Class) {
	yield, start := -1, -1
	for i, r := range classify.Rules {
		switch r.Name {
		case classify.LockedYieldRule:
			yield = i
		case classify.LockedStartRule:
			start = i
		}
	}
	if !slices.ContainsFunc(classes, func(c classify.Class) bool { return c.Rule == yield }) {
		return
	}
	for i := range classes {
		if classes[i].Rule == start {
			classes[i].Cause, classes[i].Rule = classify.Yield, yield
		}
	}
}

// ThinEvidence says why the profile is too thin to rule causes out, ""
// when it is not (report.ThinSummary: the renderers put it at the top).
func (s *Summary) ThinEvidence() string {
	if s == nil {
		return ""
	}
	return s.Thin
}

// WriteText prints the cause table: share, cores and the top user line,
// in 80 columns.
func (s *Summary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the cause table within width columns (0: one line
// per cause): a long WHERE wraps under itself. Function and file names are
// the profile's: escaped (textsafe) so that a crafted profile cannot write
// to the terminal.
func (s *Summary) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d profile(s), %.1fs, %.2fs CPU (%.2f cores), %d samples\n\n", s.Profiles, s.DurationSeconds,
		s.CPUSeconds, s.Cores, s.Samples)
	fmt.Fprintf(&b, "  %-13s %6s %6s  %s\n", "CAUSE", "SHARE", "CORES", "WHERE (user line, or caller when cut)")
	for _, c := range s.Causes {
		where := ""
		switch {
		case len(c.Lines) > 0 && c.CutShare < 50:
			where = shortLine(c.Lines[0])
		case len(c.Callers) > 0:
			where = "cut; callers: " + shortLine(c.Callers[0])
		default:
			where = "no user frames"
		}
		b.WriteString(textlayout.Wrap(fmt.Sprintf("  %-13s %5.1f%% %6.3f  ", c.Cause, c.Share, c.Cores), strings.Repeat(" ", 31), where, width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shortLine(u UserLine) string {
	file := u.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return fmt.Sprintf("%s:%d (%s) %.0f%%", textsafe.String(file), u.Line, textsafe.String(u.Function), u.Share)
}
