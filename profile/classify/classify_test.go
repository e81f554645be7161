package classify_test

import (
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

const user = "main.work@/src/app/main.go:42"

// stacks are leaf first; each case has a near miss next to it.
var cases = []struct {
	name  string
	locs  []string
	cause classify.Cause
}{
	{"futex via wakep is a wake", []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startm",
		"runtime.wakep", "runtime.ready", "runtime.goroutineReady", "runtime.(*timers).run", "runtime.findRunnable",
		"runtime.schedule", "runtime.park_m", "runtime.mcall"}, classify.ThreadChurn},
	{"futex via stopm is a park", []string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep",
		"runtime.mPark > runtime.stopm", "runtime.findRunnable", "runtime.schedule", "runtime.park_m", "runtime.mcall"},
		classify.ThreadChurn},
	{"futex via lock2 is runtime-lock contention", []string{"runtime.futex", "runtime.futexsleep", "runtime.semasleep",
		"runtime.lock2", "runtime.lockWithRank > runtime.lock", "runtime.sellock", "runtime.selectgo", user}, classify.RuntimeLock},
	{"lock2 without spinning is its caller's: select", []string{"runtime.lock2", "runtime.lockWithRank > runtime.lock",
		"runtime.sellock", "runtime.selectgo", user}, classify.Channel},
	{"futex via lockSlow is mutex contention", []string{"runtime.futex", "runtime.futexsleep", "runtime.semasleep",
		"runtime.lock2", "runtime.semacquire1", "internal/sync.runtime_SemacquireMutex", "internal/sync.(*Mutex).lockSlow",
		"internal/sync.(*Mutex).Lock > sync.(*Mutex).Lock", user}, classify.Mutex},
	{"pre-1.24 sync.Mutex is mutex contention", []string{"runtime.procyield", "sync.runtime_doSpin",
		"sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", user}, classify.Mutex},
	{"an uncontended Lock is user code", []string{"internal/sync.(*Mutex).Lock > sync.(*Mutex).Lock", user}, classify.User},
	{"selectnbrecv is a non-blocking select", []string{"runtime.chanrecv", "runtime.selectnbrecv", user}, classify.Channel},
	{"asyncPreempt at the leaf", []string{"runtime.asyncPreempt", "crypto/sha256.block", "crypto/sha256.Sum256", user}, classify.Preempt},
	{"sha256 without asyncPreempt is user code", []string{"crypto/sha256.block", "crypto/sha256.Sum256", user}, classify.User},
	{"Gosched", []string{"runtime.runqget", "runtime.schedule", "runtime.goschedImpl", "runtime.gosched_m", "runtime.mcall"}, classify.Yield},
	{"preemption goes through goschedImpl too", []string{"runtime.schedule", "runtime.goschedImpl", "runtime.gopreempt_m",
		"runtime.mcall"}, classify.Preempt},
	{"findRunnable stealing", []string{"runtime.runqgrab", "runtime.runqsteal", "runtime.stealWork", "runtime.findRunnable",
		"runtime.schedule", "runtime.park_m", "runtime.mcall"}, classify.IdleSpin},
	{"pre-1.19 findrunnable", []string{"runtime.runqgrab", "runtime.runqsteal", "runtime.findrunnable", "runtime.schedule"}, classify.IdleSpin},
	{"timers checked by the scheduler", []string{"runtime.nanotime", "runtime.(*timers).check", "runtime.findRunnable",
		"runtime.schedule"}, classify.Timers},
	{"pre-1.23 checkTimers", []string{"runtime.siftdownTimer", "runtime.runtimer", "runtime.checkTimers", "runtime.schedule"}, classify.Timers},
	{"time.After from user code", []string{"runtime.(*timer).modify", "time.newTimer", "time.NewTimer > time.After", user}, classify.Timers},
	{"mark assist", []string{"runtime.scanObject", "runtime.gcDrainN", "runtime.gcAssistAlloc1", "runtime.gcAssistAlloc.func2",
		"runtime.systemstack", "runtime.gcAssistAlloc", "runtime.deductAssistCredit > runtime.mallocgc", "runtime.newobject", user}, classify.GCAssist},
	{"allocation without assist", []string{"runtime.nextFreeFast > runtime.mallocgcSmallScanNoHeader", "runtime.mallocgc",
		"runtime.newobject", user}, classify.Alloc},
	{"background mark, pre-1.26 scanobject", []string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcDrainMarkWorkerDedicated",
		"runtime.gcBgMarkWorker.func2", "runtime.systemstack", "runtime.gcBgMarkWorker"}, classify.GCMark},
	{"Green Tea span scan", []string{"runtime.scanSpan", "runtime.gcDrain"}, classify.GCMark},
	{"sweep", []string{"runtime.(*sweepLocked).sweep", "runtime.sweepone", "runtime.bgsweep"}, classify.GCSweep},
	{"write syscall", []string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "syscall.write",
		"internal/poll.(*FD).Write", "os.(*File).Write", user}, classify.Syscall},
	{"pre-1.26 exitsyscall0", []string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep", "runtime.stopm",
		"runtime.exitsyscall0", "runtime.mcall"}, classify.Syscall},
	{"epoll is netpoll, not a syscall", []string{"internal/runtime/syscall/linux.Syscall6",
		"internal/runtime/syscall/linux.EpollWait", "runtime.netpoll", "runtime.findRunnable"}, classify.Netpoll},
	{"sysmon sleeping", []string{"runtime.usleep", "runtime.sysmon", "runtime.mstart1", "runtime.mstart0", "runtime.mstart"}, classify.Sysmon},
	{"sysmon handing off a P is syscall cost", []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup",
		"runtime.startm", "runtime.handoffp", "runtime.retake", "runtime.sysmon"}, classify.Syscall},
	{"thread creation", []string{"runtime.clone", "runtime.newosproc", "runtime.newm1", "runtime.newm", "runtime.startm",
		"runtime.wakep"}, classify.ThreadCreate},
	{"pseudo-frame _GC", []string{"0x4567", "runtime._GC"}, classify.GCMark},
	{"pseudo-frame _System", []string{"runtime._System"}, classify.Unknown},
	{"pseudo-frame _ExternalCode", []string{"runtime._ExternalCode"}, classify.Cgo},
	{"plain user code", []string{user, "runtime.main"}, classify.User},
	{"std code with no user frame", []string{"crypto/sha256.block", "net/http.(*conn).serve", "runtime.goexit"}, classify.User},
	{"runtime only, nothing matched", []string{"runtime.memmove", "runtime.goexit"}, classify.Runtime},
	{"empty stack", nil, classify.Unknown},
}

func TestClassify(t *testing.T) {
	var stacks []synth.Stack
	for _, c := range cases {
		var locs []string
		for _, l := range c.locs {
			if strings.HasPrefix(l, "0x") {
				continue // an unsymbolized address: no frame
			}
			locs = append(locs, l)
		}
		stacks = append(stacks, synth.Stack{Nanos: 1e7, Locs: locs})
	}
	p := synth.Build(1e9, stacks...)
	got := classify.New().Classify(p)
	for i, c := range cases {
		if got[i].Cause != c.cause {
			rule := "no rule"
			if got[i].Rule >= 0 {
				rule = classify.Rules[got[i].Rule].Name
			}
			t.Errorf("%s: cause %s (%s), want %s", c.name, got[i].Cause, rule, c.cause)
		}
	}
}

func TestUserFrame(t *testing.T) {
	p := synth.Build(1e9,
		synth.Stack{Nanos: 1e7, Locs: []string{"runtime.chanrecv", "runtime.selectnbrecv",
			"main.bad.func1@/src/app/main.go:37 > main.bad@/src/app/main.go:30", "runtime.main"}},
		synth.Stack{Nanos: 1e7, Locs: []string{"runtime.futex", "runtime.startm", "runtime.wakep", "runtime.mcall"}},
		synth.Stack{Nanos: 1e7, Locs: []string{"runtime.mallocgc", "github.com/x/y.(*T).M@/src/y/t.go:9", "main.main@/src/app/main.go:5"}},
	)
	got := classify.New().Classify(p)
	// The inlined frame is the leaf side of its location: main.bad.func1.
	if u := got[0].User; u.Function != "main.bad.func1" || u.Line != 37 || u.File != "/src/app/main.go" {
		t.Errorf("inlined: user frame %+v, want main.bad.func1 at /src/app/main.go:37", u)
	}
	if got[1].HasUser() {
		t.Errorf("g0 stack: user frame %+v, want none", got[1].User)
	}
	if u := got[2].User; u.Function != "github.com/x/y.(*T).M" || u.Line != 9 {
		t.Errorf("module code: user frame %+v", u)
	}
}

func TestChainAndHints(t *testing.T) {
	p := synth.Build(1e9,
		synth.Stack{Nanos: 1e7, Locs: []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startm",
			"runtime.wakep", "runtime.ready", "main.f@/a.go:3"}},
		synth.Stack{Nanos: 1e7, Locs: []string{"runtime.mallocgc", "runtime.newobject", "time.Sleep", "main.g@/a.go:9"}},
	)
	c := classify.New()
	got := c.Classify(p)
	chain := c.Chain(p.Sample[0], got[0])
	if want := "runtime.futex ← runtime.notewakeup ← main.f"; chain != want {
		t.Errorf("chain = %q, want %q", chain, want)
	}
	if !c.HintsFor(got[1], classify.ThreadChurn) || !c.HintsFor(got[1], classify.Timers) {
		t.Errorf("time.Sleep caller: hints %v, want thread-churn and timers among them", c.HintCauses(got[1]))
	}
	if c.HintsFor(got[0], classify.Timers) {
		t.Errorf("wakep sample: hints %v, want no timers", c.HintCauses(got[0]))
	}
}

func TestPackage(t *testing.T) {
	for fn, want := range map[string]string{
		"runtime.(*timers).run":            "runtime",
		"internal/sync.(*Mutex).lockSlow":  "internal/sync",
		"github.com/a/b.(*T).M":            "github.com/a/b",
		"github.com/a/b.v2.F":              "github.com/a/b",
		"main.main.func1":                  "main",
		"gogo":                             "",
		"vendor/golang.org/x/net/http2.Fn": "vendor/golang.org/x/net/http2",
	} {
		if got := classify.Package(fn); got != want {
			t.Errorf("Package(%q) = %q, want %q", fn, got, want)
		}
	}
	for pkg, want := range map[string]bool{"runtime": true, "crypto/sha256": true, "main": false,
		"github.com/a/b": false, "vendor/golang.org/x/net/http2": true, "golang.org/x/sync": false} {
		if got := classify.IsStd(pkg); got != want {
			t.Errorf("IsStd(%q) = %v, want %v", pkg, got, want)
		}
	}
}

// TestTables checks the data: every rule has steps, every alias maps to a
// name some rule or hint uses, and no cause is left out of Causes.
func TestTables(t *testing.T) {
	known := map[string]bool{}
	for _, r := range classify.Rules {
		if len(r.Steps) == 0 || r.Name == "" {
			t.Errorf("rule %+v: no steps or no name", r)
		}
		for _, st := range r.Steps {
			for _, n := range st {
				known[n] = true
			}
		}
	}
	for _, names := range classify.Hints {
		for _, n := range names {
			known[n] = true
		}
	}
	for _, a := range classify.Aliases {
		if !known[a.New] {
			t.Errorf("alias %s → %s: no rule uses %s", a.Old, a.New, a.New)
		}
	}
	in := map[classify.Cause]bool{}
	for _, c := range classify.Causes {
		in[c] = true
	}
	for _, r := range classify.Rules {
		if !in[r.Cause] {
			t.Errorf("rule %q: cause %s missing from Causes", r.Name, r.Cause)
		}
	}
}

// TestClassifySamples: classifying some samples by index gives what
// Classify gives them.
func TestClassifySamples(t *testing.T) {
	p := synth.Build(30e9,
		synth.Stack{Nanos: 1e9, Locs: []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startm", "runtime.wakep", "main.f@/x/main.go:3"}},
		synth.Stack{Nanos: 2e9, Locs: []string{"runtime.selectgo", "main.g@/x/main.go:9"}},
		synth.Stack{Nanos: 3e9, Locs: []string{"main.h@/x/main.go:12", "runtime.main"}},
	)
	all := classify.New().Classify(p)
	got := classify.New().ClassifySamples(p, []int{2, 0, 2})
	for i, si := range []int{2, 0, 2} {
		if got[i] != all[si] {
			t.Errorf("sample %d: %+v, Classify gives %+v", si, got[i], all[si])
		}
	}
}
