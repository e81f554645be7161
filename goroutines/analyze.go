package goroutines

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// Defaults of Options, from the measurements in docs/goroutines.md.
const (
	// DefaultMinGroup is the fewest goroutines at one place that SD701 reports
	// from one dump or from the growth between two: the healthy services
	// measured keep singletons (signal loops, tickers, a main blocked in
	// select{}) below it, and a leak per timed-out request passes it within
	// seconds at any real request rate.
	DefaultMinGroup = 10
	// DefaultWindow is how long a goroutine may wait on a send, a nil
	// channel or a lock before one dump calls it stuck. The runtime prints
	// whole minutes only.
	DefaultWindow = 10 * time.Minute
)

// How two dumps tell a leak from a queue: every goroutine of a leak stays,
// a queue that drains does not. minPersisted of the first dump's group
// must still be there (one in ten may have moved on: a slow receiver);
// without goroutine IDs to follow, the group must grow noIDGrowth times.
const (
	minPersisted = 0.9
	noIDGrowth   = 2
)

// Options tune Analyze. The zero value gives the defaults.
type Options struct {
	// Window is the age past which goroutines parked on a send, a nil
	// channel or a lock count as stuck in a single dump. With two dumps
	// whose times are known it is at least the time between them.
	Window time.Duration
	// MinGroup is the fewest goroutines (stuck, or added between two
	// dumps) for a finding; 0 means DefaultMinGroup. It does not apply to
	// the leak profile: the GC's proof holds for one goroutine.
	MinGroup int
	// Top bounds the groups in the summary; 0 means 20.
	Top int
}

func (o Options) minGroup() int {
	if o.MinGroup > 0 {
		return o.MinGroup
	}
	return DefaultMinGroup
}

// Key is where a group of goroutines waits and where they were created.
type Key struct {
	State   string `json:"state"`
	Wait    Frame  `json:"wait"`    // the first user frame (else the first non-runtime one)
	Parked  Frame  `json:"parked"`  // the standard-library or runtime frame below it that parks them
	Created Frame  `json:"created"` // the go statement (creator function, file:line); empty when the format lacks it
}

// Group is the goroutines of one dump that share a Key.
type Group struct {
	Key
	Count         int     `json:"count"`
	Leaked        int     `json:"leaked"`          // marked by the leak detector
	OldestMinutes int     `json:"oldest_minutes"`  // longest wait printed; 0 below one minute or unknown
	StateInferred bool    `json:"state_inferred"`  // State read from the stack, not printed by the runtime
	WaitUserFrame bool    `json:"wait_user_frame"` // Wait is the program's code
	IDs           []int64 `json:"-"`               // goroutine IDs (debug=2)
	// Durable counts the goroutines the runtime marked "(durable)"
	// (testing/synctest): known long waits, never a leak.
	Durable int `json:"durable,omitempty"`
	// Labels breaks the group down by pprof label set, most numerous
	// first (at most maxLabelSets; LabelSets counts them all, sets past
	// maxDistinctLabelSets counted as one unlabelled remainder).
	Labels       []LabelCount `json:"labels,omitempty"`
	LabelSets    int          `json:"label_sets,omitempty"`
	waitsAtLeast map[int]int
	byLabels     map[string]*LabelCount
}

// LabelCount is how many goroutines of a group carry one label set.
type LabelCount struct {
	Labels Labels `json:"labels"`
	Count  int    `json:"count"`
}

// Bounds of the label breakdown: the sets shown per group, and the
// distinct sets counted (a label per request ID would otherwise make one
// entry per goroutine).
const (
	maxLabelSets         = 8
	maxDistinctLabelSets = 1024
)

// Groups groups a dump's goroutines, most numerous first.
func Groups(d *Dump) []*Group {
	idx := map[Key]*Group{}
	var out []*Group
	for _, g := range d.Goroutines {
		k, user := keyOf(g)
		gr := idx[k]
		if gr == nil {
			gr = &Group{Key: k, StateInferred: g.StateInferred, WaitUserFrame: user, waitsAtLeast: map[int]int{}}
			idx[k] = gr
			out = append(out, gr)
		}
		gr.Count += g.Count
		if g.Leaked {
			gr.Leaked += g.Count
		}
		if g.Durable {
			gr.Durable += g.Count
		}
		if len(g.Labels) > 0 {
			gr.addLabels(g.Labels, g.Count)
		}
		gr.OldestMinutes = max(gr.OldestMinutes, g.WaitMinutes)
		gr.waitsAtLeast[g.WaitMinutes] += g.Count
		if g.ID != 0 {
			gr.IDs = append(gr.IDs, g.ID)
		}
	}
	slices.SortStableFunc(out, func(a, b *Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Wait.File, b.Wait.File),
			cmp.Compare(a.Wait.Line, b.Wait.Line), strings.Compare(a.State, b.State))
	})
	for _, gr := range out {
		gr.sortLabels()
	}
	return out
}

func (g *Group) addLabels(ls Labels, n int) {
	if g.byLabels == nil {
		g.byLabels = map[string]*LabelCount{}
	}
	k := ls.String()
	lc := g.byLabels[k]
	if lc == nil {
		if len(g.byLabels) == maxDistinctLabelSets {
			return
		}
		lc = &LabelCount{Labels: ls}
		g.byLabels[k] = lc
	}
	lc.Count += n
}

// sortLabels keeps the largest label sets of the group.
func (g *Group) sortLabels() {
	g.LabelSets = len(g.byLabels)
	for _, lc := range g.byLabels {
		g.Labels = append(g.Labels, *lc)
	}
	slices.SortFunc(g.Labels, func(a, b LabelCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Labels.String(), b.Labels.String()))
	})
	if len(g.Labels) > maxLabelSets {
		g.Labels = g.Labels[:maxLabelSets]
	}
}

// olderThan counts the group's goroutines waiting at least m minutes.
func (g *Group) olderThan(m int) int {
	n := 0
	for w, c := range g.waitsAtLeast {
		if w >= m {
			n += c
		}
	}
	return n
}

// keyOf finds where g waits: the first user frame, leaf first, with the
// frame below it as the parking context. A stack with no user frame (the
// net/http server's and transport's own goroutines) is named by its entry
// function, the last frame, with the first frame outside the runtime as
// the context: "net/http.(*persistConn).readLoop" parked in
// "internal/poll.runtime_pollWait" tells more than either alone.
func keyOf(g Goroutine) (Key, bool) {
	k := Key{State: g.State}
	if g.CreatedBy != nil {
		k.Created = *g.CreatedBy
	}
	for i, f := range g.Stack {
		if finding.UserFunction(f.Func) {
			k.Wait = f
			if i > 0 {
				k.Parked = g.Stack[i-1]
			}
			return k, true
		}
	}
	if len(g.Stack) == 0 {
		return k, false
	}
	k.Wait = g.Stack[len(g.Stack)-1]
	for _, f := range g.Stack[:len(g.Stack)-1] {
		if finding.FuncPackage(f.Func) != "runtime" {
			k.Parked = f
			break
		}
	}
	return k, false
}

// Result is what Analyze found.
type Result struct {
	Findings []finding.Finding
	Summary  *Summary
}

// Analyze finds leaks in up to two goroutine dumps (the first taken before
// the second) and any number of leak profiles. It reports SD701 by three
// methods: goroutines the leak profile marked (the GC's proof), groups
// that grew between the two dumps with their first-dump goroutines still
// in place, and groups of one dump stuck on a send, a nil channel or a
// lock for longer than the window.
func Analyze(dumps []*Dump, opt Options) (*Result, error) {
	var plain, leak []*Dump
	others := 0 // dumps that are not leak profiles
	for _, d := range dumps {
		if d != nil && d.Profile != ProfileGoroutineLeak {
			others++
		}
	}
	for _, d := range dumps {
		if d == nil {
			continue
		}
		// A goroutineleak?debug=2 dump is a full dump with marks: it
		// serves both methods, unless two plain dumps already give the
		// window (check takes both and the leak profile between them).
		if d.Profile == ProfileGoroutineLeak {
			leak = append(leak, d)
			if d.Format == FormatDebug2 && others < 2 {
				plain = append(plain, d)
				others++
			}
			continue
		}
		plain = append(plain, d)
	}
	if len(plain)+len(leak) == 0 {
		return nil, errors.New("no goroutine dump given")
	}
	if len(plain) > 2 {
		return nil, fmt.Errorf("%d goroutine dumps given; give one, or two taken at the start and the end of a window", len(plain))
	}
	a := &analysis{opt: opt, byKey: map[Key]*leakFinding{}}
	a.window = opt.Window
	if a.window <= 0 {
		a.window = DefaultWindow
	}
	var start, end *Dump
	switch len(plain) {
	case 1:
		end = plain[0]
	case 2:
		start, end = plain[0], plain[1]
		if !start.Time.IsZero() && !end.Time.IsZero() {
			if end.Time.Before(start.Time) {
				return nil, fmt.Errorf("%s was taken before %s: give the earlier dump first", end.Name, start.Name)
			}
			a.between = end.Time.Sub(start.Time)
			if opt.Window <= 0 {
				a.window = max(a.between, time.Minute)
			}
		}
	}
	for _, d := range leak {
		a.fromLeakProfile(d)
	}
	var endGroups []*Group
	if end != nil {
		endGroups = Groups(end)
		if start != nil {
			a.fromGrowth(start, end, endGroups)
		}
		a.fromAge(end, endGroups)
	} else if len(leak) > 0 {
		// Only leak profiles: list what the last one holds.
		endGroups = Groups(leak[len(leak)-1])
	}
	res := &Result{Summary: a.summary(dumps, start, end, endGroups)}
	for _, lf := range a.order {
		res.Findings = append(res.Findings, lf.finding())
	}
	finding.Sort(res.Findings)
	return res, nil
}

type analysis struct {
	opt     Options
	window  time.Duration
	between time.Duration // between the two dumps, when their times are known
	byKey   map[Key]*leakFinding
	order   []*leakFinding
}

// leakFinding collects what the methods saw of one group.
type leakFinding struct {
	key           Key
	userWait      bool
	count         int
	leaked        int     // proved by the leak profile
	growth        int     // added between the two dumps; -1 not measured
	startCount    int     // in the first dump
	persisted     int     // first-dump goroutines still there; -1 unknown
	oldest        int     // minutes
	stuck         int     // goroutines older than the window
	windowMinutes int     // the window, when the age method fired
	betweenSecs   float64 // seconds between the dumps, 0 unknown
	labels        []LabelCount
	methods       []string
}

func (a *analysis) get(g *Group) *leakFinding {
	lf := a.byKey[g.Key]
	if lf == nil {
		lf = &leakFinding{key: g.Key, userWait: g.WaitUserFrame, growth: -1, persisted: -1}
		a.byKey[g.Key] = lf
		a.order = append(a.order, lf)
	}
	if g.Count >= lf.count && len(g.Labels) > 0 {
		lf.labels = g.Labels // the breakdown of the largest view of the group
	}
	lf.count = max(lf.count, g.Count)
	lf.oldest = max(lf.oldest, g.OldestMinutes)
	return lf
}

func (lf *leakFinding) add(method string) {
	if !slices.Contains(lf.methods, method) {
		lf.methods = append(lf.methods, method)
	}
}

// maxFindingLabelSets bounds the label sets an SD701 finding lists.
const maxFindingLabelSets = 3

// Method names, in the evidence and the summary.
const (
	MethodLeakProfile = "leak-profile" // the GC proved them unreachable
	MethodGrowth      = "growth"       // grew between two dumps, first ones still parked
	MethodAge         = "age"          // parked on a send, nil channel or lock longer than the window
)

func (a *analysis) fromLeakProfile(d *Dump) {
	for _, g := range Groups(d) {
		if g.Leaked == 0 {
			continue
		}
		lf := a.get(g)
		lf.leaked = max(lf.leaked, g.Leaked)
		lf.add(MethodLeakProfile)
	}
}

// growthStates are the states a goroutine can wait in forever because
// nothing will ever make it ready. IO wait (an idle keep-alive
// connection), sleep, syscalls and the runtime's own states are not: the
// kernel or a timer ends them. Nor is a "(durable)" wait (Goroutine.Durable).
var growthStates = map[string]bool{
	"chan send": true, "chan receive": true, "select": true, "select (no cases)": true,
	"chan send (nil chan)": true, "chan receive (nil chan)": true,
	"sync.Mutex.Lock": true, "sync.RWMutex.Lock": true, "sync.RWMutex.RLock": true,
	"sync.Cond.Wait": true, "sync.WaitGroup.Wait": true, "semacquire": true,
}

// ageStates are the states where a long wait is itself the evidence: no
// healthy design parks a goroutine for minutes on a send that nobody
// receives, on a nil channel or on a lock. A receive or a select is
// excluded: idle workers wait on one for as long as there is no work.
var ageStates = map[string]bool{
	"chan send": true, "chan send (nil chan)": true, "chan receive (nil chan)": true,
	"sync.Mutex.Lock": true, "sync.RWMutex.Lock": true, "sync.RWMutex.RLock": true,
}

func (a *analysis) fromGrowth(start, end *Dump, endGroups []*Group) {
	if start.Format != end.Format {
		// Keys differ by format (debug=2 has creators, the others not;
		// debug=1 lacks the runtime frames): every group would look new.
		return
	}
	before := map[Key]*Group{}
	for _, g := range Groups(start) {
		before[g.Key] = g
	}
	minG := a.opt.minGroup()
	withIDs := start.HasIDs() && end.HasIDs()
	for _, g := range endGroups {
		// A group with no user frame is the standard library's own
		// (net/http's persistConn loops park in select per idle
		// connection, and their number follows the connections): the
		// heuristics leave it to the leak profile.
		if !growthStates[g.State] || !g.WaitUserFrame || g.Durable > 0 {
			continue
		}
		b := before[g.Key]
		n0 := 0
		if b != nil {
			n0 = b.Count
		}
		growth := g.Count - n0
		if growth < minG {
			continue
		}
		persisted := -1
		if withIDs {
			if b == nil {
				continue // nothing parked here at the start: a burst, not yet a leak
			}
			ids := map[int64]bool{}
			for _, id := range g.IDs {
				ids[id] = true
			}
			persisted = 0
			for _, id := range b.IDs {
				if ids[id] {
					persisted++
				}
			}
			// Every goroutine of a leak stays; a queue that drains does
			// not. Allow one in ten to have moved on (a slow receiver).
			if float64(persisted) < minPersisted*float64(b.Count) {
				continue
			}
		} else if g.Count < noIDGrowth*max(n0, 1) {
			// No IDs to follow: ask for the group to at least double.
			continue
		}
		lf := a.get(g)
		lf.growth, lf.startCount, lf.persisted = growth, n0, persisted
		lf.betweenSecs = a.between.Seconds()
		lf.add(MethodGrowth)
	}
}

func (a *analysis) fromAge(end *Dump, endGroups []*Group) {
	if !end.HasWaits() {
		return
	}
	wm := max(int(a.window/time.Minute), 1)
	for _, g := range endGroups {
		if !ageStates[g.State] || !g.WaitUserFrame || g.Durable > 0 {
			continue
		}
		stuck := g.olderThan(wm)
		if stuck < a.opt.minGroup() {
			continue
		}
		lf := a.get(g)
		lf.stuck, lf.windowMinutes = stuck, wm
		lf.add(MethodAge)
	}
}

func (lf *leakFinding) finding() finding.Finding {
	k := lf.key
	var locs []finding.Location
	if k.Wait.Func != "" {
		locs = append(locs, finding.Location{File: k.Wait.File, Line: k.Wait.Line, Function: k.Wait.Func})
	}
	if k.Created.Func != "" && finding.UserFunction(k.Created.Func) {
		locs = append(locs, finding.Location{File: k.Created.File, Line: k.Created.Line, Function: k.Created.Func})
	}
	var ev []finding.Evidence
	state := k.State
	if state == "" {
		state = "state unknown"
	}
	ev = append(ev, finding.Evidence{Label: "goroutines parked here (" + state + ")", Value: float64(lf.count), Unit: "goroutines"})
	var why []string
	if slices.Contains(lf.methods, MethodLeakProfile) {
		ev = append(ev, finding.Evidence{Label: "proved leaked by the GC (goroutineleak profile)", Value: float64(lf.leaked), Unit: "goroutines"})
		why = append(why, fmt.Sprintf("the GC proved %d unreachable", lf.leaked))
	}
	if slices.Contains(lf.methods, MethodGrowth) {
		ev = append(ev, finding.Evidence{Label: "growth between the two dumps", Value: float64(lf.growth), Unit: "goroutines"},
			finding.Evidence{Label: "parked here in the first dump", Value: float64(lf.startCount), Unit: "goroutines"})
		w := fmt.Sprintf("it grew by %d between two dumps", lf.growth)
		if lf.betweenSecs > 0 {
			ev = append(ev, finding.Evidence{Label: "time between the dumps", Value: round1(lf.betweenSecs), Unit: "s"})
			w = fmt.Sprintf("it grew by %d in %s", lf.growth, fmtSecs(lf.betweenSecs))
		}
		if lf.persisted >= 0 {
			ev = append(ev, finding.Evidence{Label: "first-dump goroutines still parked here", Value: float64(lf.persisted), Unit: "goroutines"})
			w += fmt.Sprintf(" and %d of the %d of the first dump never left", lf.persisted, lf.startCount)
		}
		why = append(why, w)
	}
	if slices.Contains(lf.methods, MethodAge) {
		ev = append(ev, finding.Evidence{Label: "parked longer than the window", Value: float64(lf.stuck), Unit: "goroutines"},
			finding.Evidence{Label: "window", Value: float64(lf.windowMinutes), Unit: "minutes"})
		why = append(why, fmt.Sprintf("%d waited %s or more", lf.stuck, plural(lf.windowMinutes, "minute")))
	}
	if lf.oldest > 0 {
		ev = append(ev, finding.Evidence{Label: "oldest wait", Value: float64(lf.oldest), Unit: "minutes"})
	}
	// Which requests or jobs leak: the pprof labels of the group's
	// largest label sets (debug=2 headers with labels).
	for i, lc := range lf.labels {
		if i == maxFindingLabelSets {
			break
		}
		ev = append(ev, finding.Evidence{Label: "of them labelled " + lc.Labels.String(), Value: float64(lc.Count), Unit: "goroutines"})
	}
	what := fmt.Sprintf("%d goroutines leak parked at %s", lf.count, shortLoc(k.Wait))
	if k.State != "" {
		what = fmt.Sprintf("%d goroutines leak parked in %s at %s", lf.count, k.State, shortLoc(k.Wait))
	}
	if k.Created.Func != "" {
		what += fmt.Sprintf(", created at %s", shortLoc(k.Created))
	}
	return finding.Finding{
		Rule:      "SD701",
		Severity:  finding.Warning,
		What:      what,
		Because:   strings.Join(why, "; "),
		Locations: locs,
		Evidence:  ev,
		Fix:       fixFor(k),
	}
}

// fixFor names the fix from the shape of the wait.
func fixFor(k Key) string {
	creator := "the function that started it"
	if k.Created.Func != "" {
		creator = shortFunc(k.Created.Func)
	}
	switch k.State {
	case "chan send":
		return "nothing receives any more (the caller in " + creator + " gave up, typically on a timeout): make the channel " +
			"buffered (make(chan T, 1)) so the one send completes, or send in a select with case <-ctx.Done()"
	case "chan receive":
		return "nothing will send or close: close the channel when the producer is done, or receive in a select with case <-ctx.Done()"
	case "select":
		return "no case of this select will ever be ready: add case <-ctx.Done() and cancel the context when " + creator +
			" returns, or buffer the channel the select sends on"
	case "select (no cases)":
		return "select {} blocks forever: return, or wait on ctx.Done()"
	case "chan send (nil chan)", "chan receive (nil chan)":
		return "an operation on a nil channel blocks forever: make the channel before the goroutine uses it"
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock":
		return "the lock is never released (an Unlock missed on an early return or a panic): defer mu.Unlock() right after Lock"
	case "sync.WaitGroup.Wait":
		return "Done is never called as often as Add: call defer wg.Done() first thing in each goroutine, Add before go"
	case "sync.Cond.Wait":
		return "nothing will Signal or Broadcast: Broadcast on shutdown, or use a channel with ctx.Done()"
	}
	return "give every goroutine a way to end (context cancellation, closing its channel)"
}

func shortLoc(f Frame) string {
	if f.File == "" {
		return shortFunc(f.Func)
	}
	return fmt.Sprintf("%s:%d (%s)", filepath.Base(f.File), f.Line, shortFunc(f.Func))
}

// shortFunc drops the import path: "main.leakyHandler.func1".
func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

func fmtSecs(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
