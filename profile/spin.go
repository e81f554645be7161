package profile

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile/classify"
)

// This file holds what the profile measures but cannot judge alone: the
// hot user lines that may be spins (selectgo under a line with little
// parking, Gosched, a user function with large flat time), the CPU of
// every user line (so that the join can sum the lines of one loop), what
// wakes threads, how syscalls are issued and who forces collections.
// diagnose.Profile reads the source at these lines and decides.

// Candidate kinds.
const (
	CandSelect   = "select"    // selectgo/sellock/lock2 under the line: a select with a default, or an always-ready channel
	CandNBSelect = "nb-select" // selectnbrecv/selectnbsend: a one-case select with a default
	CandYield    = "yield"     // the line calls runtime.Gosched
	CandCompute  = "compute"   // large flat time in the user's own code: work, or a spin on a load
)

// Candidate is a hot user line whose cause the source must decide.
type Candidate struct {
	Kind string `json:"kind"`
	UserLine
	Cores   float64 `json:"cores"`
	Samples int64   `json:"samples"`
}

// LineCPU is the CPU of the samples whose first user frame is one line,
// whatever the cause: the join sums the lines of a loop with it.
type LineCPU struct {
	Function string  `json:"function"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Share    float64 `json:"share"` // % of the profile's CPU
	Cores    float64 `json:"cores"`
	Samples  int64   `json:"samples"`
	// SpinShare is the part of Share in select and Gosched frames
	// (selectgo, selectnb*, sellock, lock2 under them, Gosched).
	SpinShare float64 `json:"spin_share"`
	// WorkShare is the part of Share in the functions the line calls
	// outside the runtime's wait frames (the standard library's or a
	// dependency's code: crypto, encoding, I/O), rather than in the line's
	// own instructions: a loop that spends its CPU there works, it does
	// not wait (SpinWorkShare).
	WorkShare float64 `json:"work_share"`
}

// Spin is the profile's own busy-wait verdict on one family of frames,
// in the order of the SD204 findings it made (at most one per kind):
// diagnose.Profile replaces each with a source-backed finding when the
// source decides.
type Spin struct {
	Kind    string  `json:"kind"` // CandSelect, CandNBSelect or CandYield
	Share   float64 `json:"share"`
	Cores   float64 `json:"cores"`
	Samples int64   `json:"samples"`
	// CutShare is the % of the profile's CPU of this kind with no user
	// frame (Gosched's stack is cut by mcall): the join attributes it to
	// the yield loops the source confirms.
	CutShare float64 `json:"cut_share"`
	// Reported is true when the profile drew an SD204 finding from it:
	// the SD204 findings come in the order of the reported Spins.
	Reported bool `json:"reported"`
}

// Driver is one reason a cause happens, as a share of it.
type Driver struct {
	Driver string  `json:"driver"`
	Share  float64 `json:"share"` // % of the cause's samples whose driver is known
}

// Names of the frame families the scan looks for.
var (
	selectFrames = set("runtime.selectgo", "runtime.sellock", "runtime.selunlock", "reflect.rselect",
		"runtime.reflect_rselect")
	nbSelectFrames = set("runtime.selectnbrecv", "runtime.selectnbsend")
	yieldFrames    = set("runtime.Gosched", "runtime.gosched_m", "runtime.goschedImpl")
	// commFrames complete a channel communication: a sender or receiver
	// outside select, or a select's receive that hands a waiter on.
	commFrames = set("runtime.chansend", "runtime.chansend1", "runtime.chanrecv", "runtime.chanrecv1", "runtime.chanrecv2",
		"runtime.recv", "runtime.send", "runtime.recvDirect", "runtime.sendDirect", "runtime.(*waitq).dequeue")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// wakeDriver names what made the runtime wake a thread, from the frames
// above wakep/startm: the goroutine made ready by a channel operation, a
// go statement, a timer, the network poller, a semaphore, or a spinning
// M handing its work on.
func wakeDriver(names []string) string {
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "runtime.chansend"), strings.HasPrefix(n, "runtime.chanrecv"),
			n == "runtime.selectgo", n == "runtime.closechan", n == "runtime.selectnbsend", n == "runtime.selectnbrecv":
			return "channel operations (goready from chansend/chanrecv/select)"
		case n == "runtime.newproc" || n == "runtime.newproc1":
			return "go statements (newproc)"
		case n == "runtime.goroutineReady" || strings.HasPrefix(n, "runtime.(*timers).") || n == "runtime.(*timer).unlockAndRun":
			return "timers (time.Sleep and timer expiries)"
		case n == "runtime.netpoll" || n == "runtime.injectglist" || n == "runtime.netpollready":
			return "the network poller (netpoll)"
		case n == "runtime.semrelease1" || strings.HasPrefix(n, "internal/sync.") || strings.HasPrefix(n, "sync."):
			return "sync primitives (semrelease: Mutex, WaitGroup, Cond)"
		case n == "runtime.resetspinning":
			return resetSpinning
		case n == "runtime.handoffp" || n == "runtime.entersyscallblock" || n == "runtime.retake":
			return "P handoff around syscalls (handoffp)"
		case n == "runtime.gcStart" || n == "runtime.gcBgMarkStartWorkers" || strings.HasPrefix(n, "runtime.gcMark"):
			return "the garbage collector"
		}
	}
	return ""
}

// scan is the per-sample pass behind the candidates: it runs after tally.
type scan struct {
	lines      map[lineKey]*lineAcc
	selCut     int64 // select frames with no user frame
	yieldCut   int64 // Gosched frames with no user frame (cut by mcall)
	selTotal   int64
	comm       int64 // CPU in completed channel communications (commFrames), outside nb-selects
	nbTotal    int64
	yieldTotal int64
	selN, nbN  int64
	yieldN     int64
	// goschedBy counts the samples in runtime.Gosched on the user's stack
	// by its caller: runtime.GC's sweep loop yields too, and its cut
	// yields are the GC's work, not a user spin.
	goschedBy map[string]int64
	wakes     map[string]int64
	wakeTotal int64
	sysBatch  int64 // syscall CPU under batching frames
	sysTotal  int64
	forcedBy  map[string]int64 // forced-GC CPU by the caller of runtime.GC
	forced    int64
	// lockBy is runtime-lock CPU by the runtime function that took the
	// lock; lockUnderSel the part under a select's sellock/selunlock.
	lockBy       map[string]int64
	lockTotal    int64
	lockUnderSel int64
	// timerBy is timer CPU by what drives it; mutexSpin the mutex CPU
	// spent spinning (runtime_doSpin, procyield) rather than parking.
	timerBy             map[string]int64
	timerTotal          int64
	mutexSpin, mutexAll int64
	// stacks are the samples by their chain of user frames (key: the
	// frame ids, keyOf); ids and key are userStack's scratch.
	stacks map[string]*stackAcc
	ids    []int32
	key    []byte
}

// Bounds of Summary.UserStacks: deep recursion or a generated call chain
// must not make the join read thousands of lines.
const (
	MaxUserStacks      = 400
	MaxStackUserFrames = 32
)

// userStack adds a sample's user frames, leaf first, to the stacks: at
// most MaxStackUserFrames, keyed by their frame ids.
func (sc *scan) userStack(fr []*frame, v, n int64) {
	sc.ids = sc.ids[:0]
	for _, f := range fr {
		if !f.user {
			continue
		}
		if len(sc.ids) == MaxStackUserFrames {
			break
		}
		sc.ids = append(sc.ids, f.id)
	}
	if len(sc.ids) == 0 {
		return
	}
	sc.key = keyOf(sc.key, sc.ids)
	acc := sc.stacks[string(sc.key)] // no copy: the compiler looks up by the bytes
	if acc == nil {
		acc = &stackAcc{}
		sc.stacks[string(sc.key)] = acc
	}
	acc.v += v
	acc.n += n
}

// timerDriver names what makes timer work, from the timer sample's frames.
func timerDriver(rt []string) string {
	for _, nm := range rt {
		switch nm {
		case "time.Sleep", "runtime.timeSleep", "runtime.resetForSleep":
			return "time.Sleep calls"
		case "time.After", "time.NewTimer", "time.newTimer", "time.AfterFunc", "time.NewTicker", "time.Tick":
			return "timers made (time.After, NewTimer, AfterFunc, NewTicker)"
		case "time.(*Timer).Reset", "time.(*Timer).Stop", "time.resetTimer", "time.stopTimer", "time.(*Ticker).Reset":
			return "timers reset and stopped"
		case "runtime.(*timers).run", "runtime.(*timer).unlockAndRun", "runtime.goroutineReady", "time.sendTime":
			return "timer expiries run"
		}
	}
	return "timer heap upkeep ((*timers).check/adjust)"
}

// lockFrames are the lock's own frames, skipped to find who took it.
var lockFrames = set("runtime.lock2", "runtime.unlock2", "runtime.unlock2Wake", "runtime.lockWithRank", "runtime.lock",
	"runtime.unlockWithRank", "runtime.unlock", "runtime.procyield", "runtime.procyieldAsm", "runtime.osyield",
	"runtime.futex", "runtime.futexsleep", "runtime.futexwakeup", "runtime.semasleep", "runtime.semawakeup",
	"runtime.lockVerifyMSize", "runtime.(*spanSet).push")

// stackAcc accumulates the samples of one chain of user frames (the
// key of scan.stacks).
type stackAcc struct {
	v, n int64
}

type lineAcc struct {
	v, n, spin, flat int64
	work             int64 // flat time in the code the line calls (userAt > 0)
	sel, nb, yield   int64
	selN, nbN        int64
}

// scanSamples walks every stack once more for the frame families the
// classifier's single cause does not keep. Everything it sums is linear
// in the samples' CPU and counts, so it walks each stack group once with
// the group's sums.
func (a *analysis) scanSamples() *scan {
	sc := &scan{lines: map[lineKey]*lineAcc{}, goschedBy: map[string]int64{}, wakes: map[string]int64{},
		forcedBy: map[string]int64{}, lockBy: map[string]int64{}, timerBy: map[string]int64{},
		stacks: make(map[string]*stackAcc, len(a.ft.groups))}
	fr := make([]*frame, 0, a.ft.maxFrames)
	for gi, g := range a.ft.groups {
		cl := a.classes[gi]
		v, n := g.v, g.n
		fr = a.ft.walk(g, fr[:0])
		if cl.HasUser() {
			sc.userStack(fr, v, n)
		}
		userAt := -1 // index in fr of the first user frame
		if cl.HasUser() {
			for j, f := range fr {
				if f.name == cl.User.Function && f.file == cl.User.File && f.line == cl.User.Line {
					userAt = j
					break
				}
			}
		}
		rt := fr
		if userAt >= 0 {
			rt = fr[:userAt]
		}
		var sel, nb, yield, batch, comm bool
		for j, f := range rt {
			if f.comm || f.name == "runtime.typedmemmove" && j+1 < len(rt) && rt[j+1].name == "runtime.selectgo" {
				comm = true
			}
			switch f.fam {
			case famNBSelect:
				nb = true
			case famSelect:
				sel = true
			case famYield:
				yield = true
				if f.name == "runtime.Gosched" && j+1 < len(fr) {
					sc.goschedBy[fr[j+1].name] += n
				}
			case famBatch:
				batch = true
			}
		}
		// A Gosched under runtime.GC (its sweep loop) is the GC's.
		forcedGC := cl.Cause == classify.GCSweep && cl.Rule >= 0 && classify.Rules[cl.Rule].Name == forcedGCRule
		if forcedGC {
			yield = false
			sc.forced += v
			by := "the runtime"
			for j, f := range fr {
				if f.name == "runtime.GC" && j+1 < len(fr) {
					by = fr[j+1].name
					break
				}
			}
			sc.forcedBy[by] += v
		}
		if nb {
			sel = false
		} else if comm {
			sc.comm += v
		}
		// The classifier's yield rules reach beyond the Gosched frames: a
		// locked goroutine's hand-offs (stoplockedm, startlockedm).
		if cl.Cause == classify.Yield && !forcedGC && !sel && !nb {
			yield = true
		}
		if cl.Cause == classify.Timers {
			d := "timer heap upkeep ((*timers).check/adjust)"
			for _, f := range rt {
				if f.timer != "" {
					d = f.timer
					break
				}
			}
			sc.timerBy[d] += v
			sc.timerTotal += v
		}
		if cl.Cause == classify.Mutex {
			sc.mutexAll += v
			for _, f := range rt {
				if f.mutexSpin {
					sc.mutexSpin += v
					break
				}
			}
		}
		if cl.Cause == classify.RuntimeLock {
			sc.lockTotal += v
			if sel || nb {
				sc.lockUnderSel += v
			}
			by := "?"
			for _, f := range rt {
				if !f.lockFrame {
					by = f.name
					break
				}
			}
			sc.lockBy[by] += v
		}
		if cl.Cause == classify.Syscall {
			sc.sysTotal += v
			if batch {
				sc.sysBatch += v
			}
		}
		if cl.Cause == classify.ThreadChurn && cl.Rule >= 0 && strings.HasPrefix(classify.Rules[cl.Rule].Name, "wake:") {
			for _, f := range rt {
				if f.wake != "" {
					sc.wakes[f.wake] += n
					sc.wakeTotal += n
					break
				}
			}
		}
		switch {
		case nb:
			sc.nbTotal += v
			sc.nbN += n
		case sel:
			sc.selTotal += v
			sc.selN += n
		case yield:
			sc.yieldTotal += v
			sc.yieldN += n
		}
		if !cl.HasUser() {
			switch {
			case sel:
				sc.selCut += v
			case yield:
				sc.yieldCut += v
			}
			continue
		}
		k := lineKey{cl.User.Function, cl.User.File, cl.User.Line}
		la := sc.lines[k]
		if la == nil {
			la = &lineAcc{}
			sc.lines[k] = la
		}
		la.v += v
		la.n += n
		if cl.Cause == classify.User {
			la.flat += v
			if userAt > 0 {
				la.work += v
			}
		}
		switch {
		case nb:
			la.nb += v
			la.nbN += n
			la.spin += v
		case sel:
			la.sel += v
			la.selN += n
			la.spin += v
		case yield:
			la.yield += v
			la.spin += v
		}
	}
	return sc
}

// userStacks are the MaxUserStacks heaviest chains of user frames, their
// frames made from the ids only for those kept. A fleet profile has
// hundreds of thousands of chains, many of equal weight: a heap of the
// best MaxUserStacks keeps them, in the order a full sort would give.
func (a *analysis) userStacks(sc *scan) []UserStack {
	h := &stackHeap{t: a.ft}
	for k, acc := range sc.stacks {
		e := stackEntry{k, a.share(acc.v), acc}
		if h.Len() < MaxUserStacks {
			heap.Push(h, e)
		} else if h.better(e, h.es[0]) {
			h.es[0] = e
			heap.Fix(h, 0)
		}
	}
	slices.SortFunc(h.es, func(x, y stackEntry) int {
		if h.better(x, y) {
			return -1
		}
		if h.better(y, x) {
			return 1
		}
		return 0
	})
	out := make([]UserStack, 0, len(h.es))
	for _, e := range h.es {
		ids := idsOf(e.key, nil)
		frames := make([]StackFrame, len(ids))
		for i, id := range ids {
			frames[i] = a.ft.stackFrame(id)
		}
		out = append(out, UserStack{Frames: frames, Share: e.share, Cores: float64(e.acc.v) / float64(a.durNanos), Samples: e.acc.n})
	}
	return out
}

type stackEntry struct {
	key   string
	share float64
	acc   *stackAcc
}

// stackHeap holds the best stacks so far, the worst on top.
type stackHeap struct {
	t      *frameTable
	es     []stackEntry
	xi, yi []int32
}

// better orders the stacks: heavier first, then more samples, then by
// their frames (compareIDs).
func (h *stackHeap) better(x, y stackEntry) bool {
	if c := cmp.Or(cmp.Compare(y.share, x.share), cmp.Compare(y.acc.n, x.acc.n)); c != 0 {
		return c < 0
	}
	h.xi, h.yi = idsOf(x.key, h.xi), idsOf(y.key, h.yi)
	return h.t.compareIDs(h.xi, h.yi) < 0
}

func (h *stackHeap) Len() int           { return len(h.es) }
func (h *stackHeap) Less(i, j int) bool { return h.better(h.es[j], h.es[i]) }
func (h *stackHeap) Swap(i, j int)      { h.es[i], h.es[j] = h.es[j], h.es[i] }
func (h *stackHeap) Push(x any)         { h.es = append(h.es, x.(stackEntry)) }
func (h *stackHeap) Pop() any {
	e := h.es[len(h.es)-1]
	h.es = h.es[:len(h.es)-1]
	return e
}

// compareIDs orders chains of frame ids by their frames (file, line,
// function, then length) for a stable sort.
func (t *frameTable) compareIDs(x, y []int32) int {
	for i := range min(len(x), len(y)) {
		fx, fy := &t.ids[x[i]], &t.ids[y[i]]
		if c := cmp.Or(strings.Compare(fx.file, fy.file), cmp.Compare(fx.line, fy.line),
			strings.Compare(fx.name, fy.name)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(x), len(y))
}

// forcedGCRule is the classifier rule's name for runtime.GC's own work.
const forcedGCRule = "forced GC (runtime.GC)"

// Candidate thresholds: a line is worth reading in the source when its
// select or flat time reaches CandidateShare of the profile (with
// MinSamples samples); the MaxCandidates heaviest lines are kept.
const (
	CandidateShare = 5.0
	MaxCandidates  = 12
	maxLineCPU     = 200
)

// candidates fills the summary's Candidates, Lines, Spins and drivers.
func (a *analysis) candidates(sc *scan) {
	s := a.sum
	cores := func(v int64) float64 { return float64(v) / float64(a.durNanos) }
	park, _, _ := a.group(classify.Scheduler, classify.IdleSpin, classify.ThreadChurn)
	s.ParkShare = park
	s.CommShare = a.share(sc.comm)
	for k, la := range sc.lines {
		s.UserLines = append(s.UserLines, LineCPU{Function: k.fn, File: k.file, Line: int(k.line), Share: a.share(la.v),
			Cores: cores(la.v), Samples: la.n, SpinShare: a.share(la.spin), WorkShare: a.share(la.work)})
		u := UserLine{Function: k.fn, File: k.file, Line: int(k.line)}
		add := func(kind string, v, n int64) {
			u.Share = a.share(v)
			s.Candidates = append(s.Candidates, Candidate{Kind: kind, UserLine: u, Cores: cores(v), Samples: n})
		}
		switch {
		case la.nb > 0 && a.share(la.nb) >= CandidateShare && la.nbN >= a.th.MinSamples:
			add(CandNBSelect, la.nb, la.nbN)
		case la.sel > 0 && a.share(la.sel) >= CandidateShare && la.selN >= a.th.MinSamples:
			add(CandSelect, la.sel, la.selN)
		case la.yield > 0:
			// Any sample inside runtime.Gosched names a yielding line: the
			// rest of its cost is cut by mcall and cannot name one.
			add(CandYield, la.yield, la.n)
		}
		if a.share(la.flat) >= CandidateShare && la.n >= a.th.MinSamples ||
			sc.yieldCut > 0 && a.share(sc.yieldCut) >= CandidateShare && la.flat > 0 && la.n >= 3 {
			// With cut yields, the lines that do the loop's work between
			// yields are the only ones that name it (a ring buffer's Poll).
			add(CandCompute, la.flat, la.n)
		}
	}
	slices.SortFunc(s.UserLines, func(x, y LineCPU) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line))
	})
	s.UserLines = s.UserLines[:min(len(s.UserLines), maxLineCPU)]
	s.UserStacks = a.userStacks(sc)
	slices.SortFunc(s.Candidates, func(x, y Candidate) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line),
			strings.Compare(x.Kind, y.Kind))
	})
	s.Candidates = s.Candidates[:min(len(s.Candidates), MaxCandidates)]

	// The Gosched calls runtime.GC makes in its sweep loop: their share of
	// the Gosched calls seen is taken off the cut yields.
	var gs, gcs int64
	for by, n := range sc.goschedBy {
		gs += n
		if by == "runtime.GC" {
			gcs += n
		}
	}
	yieldCut, yieldTotal := sc.yieldCut, sc.yieldTotal
	if gs > 0 && gcs > 0 {
		gcPart := yieldCut * gcs / gs
		yieldCut -= gcPart
		yieldTotal -= gcPart
		s.ForcedGCYieldShare = a.share(gcPart)
	}
	s.Spins = nil
	if sc.nbTotal > 0 {
		s.Spins = append(s.Spins, Spin{Kind: CandNBSelect, Share: a.share(sc.nbTotal), Cores: cores(sc.nbTotal), Samples: sc.nbN})
	}
	if sc.selTotal > 0 {
		s.Spins = append(s.Spins, Spin{Kind: CandSelect, Share: a.share(sc.selTotal), Cores: cores(sc.selTotal),
			Samples: sc.selN, CutShare: a.share(sc.selCut)})
	}
	if yieldTotal > 0 {
		n := sc.yieldN
		if sc.yieldTotal > 0 {
			n = n * yieldTotal / sc.yieldTotal
		}
		s.Spins = append(s.Spins, Spin{Kind: CandYield, Share: a.share(yieldTotal), Cores: cores(yieldTotal), Samples: n,
			CutShare: a.share(yieldCut)})
	}
	for d, n := range sc.wakes {
		s.WakeDrivers = append(s.WakeDrivers, Driver{Driver: d, Share: pct(n, sc.wakeTotal)})
	}
	slices.SortFunc(s.WakeDrivers, func(x, y Driver) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Driver, y.Driver))
	})
	s.SyscallBatchedShare = pct(sc.sysBatch, sc.sysTotal)
	s.RuntimeLockUnderSelectShare = a.share(sc.lockUnderSel)
	s.MutexSpinShare = pct(sc.mutexSpin, sc.mutexAll)
	for by, v := range sc.timerBy {
		s.TimerDrivers = append(s.TimerDrivers, Driver{Driver: by, Share: pct(v, sc.timerTotal)})
	}
	slices.SortFunc(s.TimerDrivers, func(x, y Driver) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Driver, y.Driver))
	})
	for by, v := range sc.lockBy {
		s.RuntimeLockBy = append(s.RuntimeLockBy, Driver{Driver: by, Share: pct(v, sc.lockTotal)})
	}
	slices.SortFunc(s.RuntimeLockBy, func(x, y Driver) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Driver, y.Driver))
	})
	s.ForcedGCShare = a.share(sc.forced)
	for by, v := range sc.forcedBy {
		s.ForcedGCBy = append(s.ForcedGCBy, Driver{Driver: by, Share: pct(v, sc.forced)})
	}
	slices.SortFunc(s.ForcedGCBy, func(x, y Driver) int {
		return cmp.Or(cmp.Compare(y.Share, x.Share), strings.Compare(x.Driver, y.Driver))
	})
}

// spin returns the summary's verdict for kind, zero when it has none.
func (s *Summary) spin(kind string) Spin {
	for _, sp := range s.Spins {
		if sp.Kind == kind {
			return sp
		}
	}
	return Spin{Kind: kind}
}

// Thin-profile limits: below MinProfileSamples samples or
// MinProfileSeconds of profile the shares are too noisy to rest a verdict
// on (at 100 Hz, 100 samples is one CPU-second; a 1% cause is then one
// sample), and the report says so.
const (
	MinProfileSamples = 100
	MinProfileSeconds = 1.0
)

// thin sets the summary's Thin note when the evidence is too thin.
func (a *analysis) thin() {
	s := a.sum
	var why []string
	if s.Samples < MinProfileSamples {
		why = append(why, fmt.Sprintf("only %d samples (%.2fs of CPU; %d or more are needed for shares to mean much)",
			s.Samples, s.CPUSeconds, MinProfileSamples))
	}
	if s.DurationSeconds < MinProfileSeconds {
		why = append(why, fmt.Sprintf("only %.1fs of profile", s.DurationSeconds))
	}
	if len(why) == 0 {
		return
	}
	s.Thin = strings.Join(why, " and ") + ": too thin to rule causes out; profile for at least 30s while the program is under load"
}

// spinWhat explains a profile-only SD204 from what was measured: the
// headline's end (what), the cause (why), the fix, and whether the source
// would tell (then the finding asks for it).
func spinWhat(kind string, comm, park float64, line string) (what, why, fix string, causes []classify.Cause, askSource bool) {
	parking := fmt.Sprintf("parking takes only %.0f%% of CPU", park)
	switch kind {
	case CandNBSelect:
		return "busy-waits in a select with one case and a default (selectnbrecv/selectnbsend) " + line, parking,
			"remove the select's default so the goroutine blocks until a case is ready (see SD101)", []classify.Cause{classify.Channel}, false
	case CandSelect:
		if comm < SelectCommShare {
			return "goes to selectgo " + line, fmt.Sprintf("%s and channel communications complete at "+
					"only %.0f%%: the select neither blocks nor receives, so it spins (a default that neither blocks nor leaves, "+
					"or a case always ready with nothing to receive: a closed channel, a done context)", parking, comm),
				"if the select has a default inside a loop, remove the default so it blocks (see SD101); if a case is always " +
					"ready (a closed channel, a cancelled context), leave the loop when it fires", []classify.Cause{classify.Channel}, false
		}
		return "goes to selectgo " + line, fmt.Sprintf("%s: a select with a default that spins, or a blocking select whose channel is always ready "+
				"(channel communications complete at %.0f%% of the CPU, so the profile cannot tell them apart; the source can)", parking, comm),
			"if the select has a default inside a loop, remove the default so it blocks (see SD101); if it blocks already, the channel is always ready and the CPU is the work", []classify.Cause{classify.Channel}, true
	}
	return "busy-waits yielding with runtime.Gosched " + line, parking,
		"block on the event (a channel close, sync.WaitGroup, sync.Cond) instead of looping on runtime.Gosched (see SD106)", []classify.Cause{classify.Yield}, false
}

// SourceNotFound is the hint a finding carries when the source at its hot
// line would decide it and was not read.
const SourceNotFound = "source not found: give the module's source directory to read it"

// userLines turns candidates into the locations of a finding.
func candLocs(cs []Candidate, kind string) ([]finding.Location, []UserLine) {
	var locs []finding.Location
	var lines []UserLine
	for _, c := range cs {
		if c.Kind != kind || len(locs) == 3 {
			continue
		}
		locs = append(locs, c.location())
		lines = append(lines, c.UserLine)
	}
	return locs, lines
}

// spinKindLabel starts the evidence label that names the frame family of
// a profile-only SD204 finding (see SpinKind).
const spinKindLabel = "busy-wait frames: "

// SpinKind returns the frame family (CandSelect, CandNBSelect, CandYield)
// of an SD204 finding that Analyze made, "" for any other finding: the
// join replaces the profile's own verdict by kind.
func SpinKind(f finding.Finding) string {
	if f.Rule != "SD204" {
		return ""
	}
	for _, e := range f.Evidence {
		if k, ok := strings.CutPrefix(e.Label, spinKindLabel); ok {
			return k
		}
	}
	return ""
}

// timerReason names the largest driver of timer work with its share.
func (s *Summary) timerReason() string {
	if len(s.TimerDrivers) == 0 {
		return "timers made, reset and run"
	}
	r := fmt.Sprintf("%s (%.0f%% of the timer CPU)", s.TimerDrivers[0].Driver, s.TimerDrivers[0].Share)
	if len(s.TimerDrivers) > 1 {
		r += fmt.Sprintf(", then %s (%.0f%%)", s.TimerDrivers[1].Driver, s.TimerDrivers[1].Share)
	}
	return r
}
