package classify

// This file is the classifier's knowledge, kept as data: which caller chains
// mean which cause. Every name below is the canonical Go 1.26 name, checked
// against the Go 1.26.8 runtime source ($(go env GOROOT)/src/runtime,
// src/internal/sync, src/time); older spellings reach these names through
// the alias table in aliases.go.

// Cause is what a CPU sample was spent on. Its string is the value of the
// "cause" label in classified profiles (go tool pprof -tagfocus cause=...).
type Cause string

// The causes, in the order the summary lists them when shares tie.
const (
	User         Cause = "user"          // the program's own code (and the std code it calls)
	Alloc        Cause = "alloc"         // allocation (mallocgc) without GC assist
	GCMark       Cause = "gc-mark"       // GC background mark workers
	GCAssist     Cause = "gc-assist"     // mark assists and write-barrier flushes paid by goroutines
	GCSweep      Cause = "gc-sweep"      // sweeping, scavenging, GC start/stop and stop-the-world
	ThreadChurn  Cause = "thread-churn"  // threads woken (wakep/startm) and parked (stopm/notesleep)
	IdleSpin     Cause = "idle-spin"     // idle Ps looking for work (findRunnable, stealWork)
	Timers       Cause = "timers"        // timer heap work and time.Sleep/After/NewTimer
	Netpoll      Cause = "netpoll"       // the network poller
	Channel      Cause = "channel"       // channel operations and select
	RuntimeLock  Cause = "runtime-lock"  // contention on runtime-internal locks (lock2/unlock2 spinning or sleeping)
	Mutex        Cause = "mutex"         // sync.Mutex/RWMutex slow paths and semaphores
	Syscall      Cause = "syscall"       // system calls and the P handoffs around them
	Preempt      Cause = "preempt"       // async and stack-check preemption
	Yield        Cause = "yield"         // runtime.Gosched
	Sysmon       Cause = "sysmon"        // the sysmon thread
	ThreadCreate Cause = "thread-create" // creating OS threads
	Cgo          Cause = "cgo"           // cgo calls and external code
	Scheduler    Cause = "scheduler"     // other scheduling work (schedule, execute, gopark, ready)
	Runtime      Cause = "runtime"       // other runtime work with no user frame
	Unknown      Cause = "unknown"       // no usable stack (pseudo-frames, empty stacks)
)

// Causes lists every cause in display order.
var Causes = []Cause{User, Alloc, GCMark, GCAssist, GCSweep, ThreadChurn, IdleSpin, Timers, Netpoll,
	Channel, RuntimeLock, Mutex, Syscall, Preempt, Yield, Sysmon, ThreadCreate, Cgo, Scheduler, Runtime, Unknown}

// Rule assigns a cause to the samples whose runtime part of the stack holds
// Steps in order, leaf toward root (gaps allowed). Each step is a set of
// function names; a frame matches a step when its (canonical) name is in
// the set. Rules are tried in table order and the first match wins, so a
// rule listed earlier is the more specific explanation: futex under
// lockSlow is mutex contention before it is a thread parking.
type Rule struct {
	Cause Cause
	Name  string // short, for evidence: "wake: futex via wakep/startm"
	Steps [][]string
}

// Names of the rules of a thread-locked goroutine's hand-offs: the yield's
// side, and the M that starts the locked goroutine again (profile counts
// the latter as the yield's when the former is in the profile).
const (
	LockedYieldRule = "runtime.Gosched on a locked thread (stoplockedm/handoffp)"
	LockedStartRule = "locked thread started (startlockedm)"
)

// Step sets shared by several rules.
var (
	futexish = []string{"runtime.futex", "runtime.futexsleep", "runtime.futexwakeup",
		"runtime.semasleep", "runtime.semawakeup", "runtime.procyield", "runtime.procyieldAsm", "runtime.osyield"}
	runtimeLocks = []string{"runtime.lock2", "runtime.unlock2", "runtime.unlock2Wake"}
)

// Rules is the caller-chain table, most specific first. The matched part of
// a stack is the runtime and standard-library frames below the first user
// frame, so a rule never fires on a user function's name.
var Rules = []Rule{
	{Preempt, "async preemption (asyncPreempt)", [][]string{{"runtime.asyncPreempt", "runtime.asyncPreempt2"}}},
	{Preempt, "preemption at a stack check (gopreempt_m)", [][]string{{"runtime.gopreempt_m", "runtime.preemptPark"}}},

	// A collection forced by runtime.GC() (the testing harness calls it
	// before every benchmark, and some programs call it themselves) is
	// not allocation pressure: its start, sweep loop and the wait for the
	// mark are the call's cost. Frames above runtime.GC say who called it.
	{GCSweep, "forced GC (runtime.GC)", [][]string{{"runtime.GC"}}},
	{GCAssist, "mark assist (gcAssistAlloc)", [][]string{{"runtime.gcAssistAlloc", "runtime.gcAssistAlloc1",
		"runtime.gcDrainN", "runtime.gcParkAssist"}}},
	{GCAssist, "write barrier flush (wbBufFlush)", [][]string{{"runtime.wbBufFlush", "runtime.wbBufFlush1"}}},
	{GCMark, "background mark (gcBgMarkWorker/gcDrain)", [][]string{{"runtime.gcBgMarkWorker", "runtime.gcDrain",
		"runtime.gcDrainMarkWorkerDedicated", "runtime.gcDrainMarkWorkerFractional", "runtime.gcDrainMarkWorkerIdle",
		"runtime.markroot", "runtime.markrootBlock", "runtime.markrootSpans", "runtime.scanstack", "runtime.scanblock",
		"runtime.scanObject", "runtime.greyobject", "runtime.scanSpan", "runtime.tryDeferToSpanScan",
		"runtime.scanObjectSmall", "runtime.(*mspan).moveInlineMarks", "runtime.(*gcWork).tryGetSpan"}}},
	{GCSweep, "sweep, scavenge and GC phase changes", [][]string{{"runtime.bgsweep", "runtime.sweepone",
		"runtime.(*sweepLocked).sweep", "runtime.(*mheap).reclaim", "runtime.deductSweepCredit", "runtime.bgscavenge",
		"runtime.(*pageAlloc).scavenge", "runtime.(*scavengerState).run", "runtime.gcStart", "runtime.gcMarkDone",
		"runtime.gcMarkTermination", "runtime.stopTheWorldWithSema", "runtime.startTheWorldWithSema",
		"runtime.forEachP", "runtime.sysUnused", "runtime.gcBgMarkStartWorkers", "runtime.gcResetMarkState"}}},

	{Mutex, "sync.Mutex slow path (lockSlow/unlockSlow)", [][]string{{"internal/sync.(*Mutex).lockSlow",
		"internal/sync.(*Mutex).unlockSlow", "internal/sync.runtime_SemacquireMutex", "internal/sync.runtime_Semrelease",
		"internal/sync.runtime_doSpin", "internal/sync.runtime_canSpin", "sync.runtime_SemacquireRWMutex",
		"sync.runtime_SemacquireRWMutexR", "sync.(*RWMutex).rUnlockSlow", "sync.runtime_Semrelease"}}},
	{Mutex, "semaphore (semacquire1/semrelease1)", [][]string{{"runtime.semacquire1", "runtime.semrelease1",
		"runtime.(*semaRoot).queue", "runtime.(*semaRoot).dequeue"}}},

	// A goroutine locked to its thread (runtime.LockOSThread) that yields
	// cannot run on another M: its schedule hands the P away (stoplockedm
	// → handoffp → startm) and parks the thread, and the M that picks it
	// up hands the P back (startlockedm). That churn is the yield's cost:
	// a Gosched spin under LockOSThread measured 42% of its CPU in futex
	// wake and park and 27% in handoffp, 14% in the yield proper.
	{Yield, LockedYieldRule, [][]string{{"runtime.stoplockedm", "runtime.handoffp", "runtime.startm", "runtime.mPark",
		"runtime.notesleep", "runtime.notewakeup"}, {"runtime.goschedImpl", "runtime.gosched_m"}}},
	{ThreadChurn, LockedStartRule, [][]string{{"runtime.startlockedm"}}},

	{Syscall, "P handoff around a syscall (handoffp/exitsyscallNoP)", [][]string{{"runtime.handoffp",
		"runtime.entersyscallblock", "runtime.entersyscallblock_handoff", "runtime.exitsyscallNoP"}}},
	{Syscall, "syscall entry and exit (entersyscall/exitsyscall)", [][]string{{"runtime.entersyscall",
		"runtime.reentersyscall", "runtime.exitsyscall", "runtime.exitsyscallTryGetP", "runtime.entersyscall_sysmon"}}},
	{Syscall, "system call (syscall.Syscall)", [][]string{{"syscall.Syscall", "syscall.Syscall6", "syscall.RawSyscall",
		"syscall.RawSyscall6", "syscall.rawSyscallNoError", "syscall.RawSyscallNoError",
		"golang.org/x/sys/unix.Syscall", "golang.org/x/sys/unix.Syscall6", "golang.org/x/sys/unix.RawSyscall"}}},

	{ThreadCreate, "thread creation (newm/newosproc)", [][]string{{"runtime.newm", "runtime.newm1",
		"runtime.newosproc", "runtime.clone", "runtime.startTemplateThread", "runtime.templateThread"}}},
	{Cgo, "cgo call (cgocall/asmcgocall)", [][]string{{"runtime.cgocall", "runtime.asmcgocall",
		"runtime.cgocallbackg", "runtime.cgocallbackg1", "runtime.asmcgocall_no_g"}}},

	// Everything under goschedImpl is the yield's cost, the global run
	// queue's lock2/unlock2 and the timer check of the schedule it runs
	// included: a ring buffer spinning on Gosched showed 17% of its CPU in
	// lock2 ← goschedImpl, which is the spin, not lock contention to shard.
	{Yield, "runtime.Gosched (gosched_m/goschedImpl)", [][]string{{"runtime.Gosched", "runtime.gosched_m",
		"runtime.goschedImpl", "runtime.goyield", "runtime.goyield_m", "runtime.goschedguarded", "runtime.goschedguarded_m"}}},
	{RuntimeLock, "runtime lock spinning or sleeping (lock2 → procyield/osyield/futex)", [][]string{futexish, runtimeLocks}},

	{ThreadChurn, "wake: futex via wakep/startm/notewakeup", [][]string{{"runtime.startm", "runtime.wakep",
		"runtime.notewakeup"}}},
	{ThreadChurn, "park: futex via stopm/mPark/notesleep", [][]string{{"runtime.stopm", "runtime.mPark",
		"runtime.notesleep", "runtime.notetsleep", "runtime.notetsleepg", "runtime.stoplockedm", "runtime.startlockedm"}}},

	{Netpoll, "network poller (netpoll/EpollWait)", [][]string{{"runtime.netpoll", "runtime.netpollBreak",
		"runtime.netpollblock", "runtime.netpollready", "runtime.netpollunblock", "runtime.injectglist",
		"internal/poll.runtime_pollWait", "internal/runtime/syscall/linux.EpollWait"}}},

	{Timers, "timer heap and sleeps ((*timers).run, time.Sleep, newTimer)", [][]string{{"runtime.(*timers).check",
		"runtime.(*timers).run", "runtime.(*timers).adjust", "runtime.(*timers).cleanHead", "runtime.(*timers).deleteMin",
		"runtime.(*timers).siftUp", "runtime.(*timers).siftDown", "runtime.(*timers).addHeap", "runtime.(*timers).take",
		"runtime.(*timers).wakeTime", "runtime.(*timers).lock", "runtime.(*timers).unlock",
		"runtime.(*timer).modify", "runtime.(*timer).maybeAdd", "runtime.(*timer).reset", "runtime.(*timer).stop",
		"runtime.(*timer).updateHeap", "runtime.(*timer).unlockAndRun", "runtime.(*timer).maybeRunChan",
		"runtime.(*timer).maybeRunAsync", "runtime.(*timer).needsAdd", "runtime.(*timer).lock", "runtime.(*timer).unlock",
		"runtime.blockTimerChan", "runtime.unblockTimerChan", "runtime.goroutineReady", "runtime.resetForSleep",
		"runtime.timeSleep", "time.Sleep", "time.newTimer", "time.stopTimer", "time.resetTimer", "time.NewTimer",
		"time.After", "time.AfterFunc", "time.NewTicker", "time.Tick", "time.(*Timer).Reset", "time.(*Timer).Stop",
		"time.(*Ticker).Reset", "time.(*Ticker).Stop", "time.sendTime", "time.goFunc", "runtime.checkTimersNoP"}}},

	{Channel, "non-blocking select (selectnbsend/selectnbrecv)", [][]string{{"runtime.selectnbsend",
		"runtime.selectnbrecv", "reflect.chansend", "reflect.chanrecv"}}},
	{Channel, "select (selectgo, sellock/selunlock)", [][]string{{"runtime.selectgo", "runtime.sellock",
		"runtime.selunlock", "reflect.rselect", "runtime.reflect_rselect", "runtime.block"}}},
	{Channel, "channel send and receive (chansend/chanrecv)", [][]string{{"runtime.chansend", "runtime.chansend1",
		"runtime.chanrecv", "runtime.chanrecv1", "runtime.chanrecv2", "runtime.chanparkcommit", "runtime.closechan",
		"runtime.makechan"}}},

	{Alloc, "allocation (mallocgc)", [][]string{{"runtime.mallocgc", "runtime.mallocgcSmallNoscan",
		"runtime.mallocgcSmallScanNoHeader", "runtime.mallocgcSmallScanHeader", "runtime.mallocgcLarge",
		"runtime.mallocgcTiny", "runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.newarray"}}},

	{IdleSpin, "idle P spinning (findRunnable/stealWork/runqgrab)", [][]string{{"runtime.findRunnable",
		"runtime.stealWork", "runtime.runqsteal", "runtime.runqgrab", "runtime.checkRunqsNoP", "runtime.pidleget",
		"runtime.pidlegetSpinning", "runtime.resetspinning", "runtime.globrunqget", "runtime.globrunqgetbatch",
		"runtime.(*m).becomeSpinning", "runtime.checkIdleGCNoP"}}},

	{Sysmon, "sysmon", [][]string{{"runtime.sysmon"}}},

	{Scheduler, "scheduling (schedule/execute/gopark/ready)", [][]string{{"runtime.schedule", "runtime.execute",
		"runtime.park_m", "runtime.gopark", "runtime.goready", "runtime.ready", "runtime.goexit0", "runtime.goexit1",
		"runtime.newproc", "runtime.newproc1", "runtime.runqput", "runtime.casgstatus", "gogo", "runtime.gogo",
		"runtime.mcall", "runtime.gdestroy", "runtime.mstart", "runtime.mstart0", "runtime.mstart1"}}},
}

// pseudoCauses maps the runtime's pseudo-frames, which stand for a sample
// whose stack could not be walked, to a cause.
var pseudoCauses = map[string]Cause{
	"runtime._GC":                        GCMark,
	"runtime._System":                    Unknown,
	"runtime._ExternalCode":              Cgo,
	"runtime._LostExternalCode":          Cgo,
	"runtime._VDSO":                      Unknown,
	"runtime._LostSIGPROFDuringAtomic64": Unknown,
	"runtime._LostContendedRuntimeLock":  RuntimeLock,
}

// Hints name, per cause, the runtime or std entry points whose user callers
// explain the cause's samples when those samples carry no user frame: the
// scheduler runs on g0 after mcall, which cuts the goroutine's stack, so
// "findRunnable 30%" has no user line, but the user lines that call
// time.Sleep, go statements and channel operations are what make the
// scheduler work. Hints are weighed by the samples of those user calls.
var Hints = map[Cause][]string{
	ThreadChurn: {"time.Sleep", "runtime.newproc", "runtime.chansend1", "runtime.chanrecv1", "runtime.chanrecv2",
		"runtime.selectgo", "runtime.Gosched", "internal/sync.(*Mutex).unlockSlow", "sync.(*WaitGroup).Wait"},
	IdleSpin: {"time.Sleep", "runtime.newproc", "runtime.chansend1", "runtime.chanrecv1", "runtime.chanrecv2",
		"runtime.selectgo", "runtime.Gosched"},
	Scheduler: {"runtime.newproc", "runtime.chansend1", "runtime.chanrecv1", "runtime.chanrecv2", "runtime.selectgo",
		"time.Sleep", "runtime.Gosched"},
	Timers:      {"time.Sleep", "time.After", "time.NewTimer", "time.(*Timer).Reset", "time.AfterFunc", "time.NewTicker", "time.Tick"},
	Yield:       {"runtime.Gosched"},
	Preempt:     {"runtime.asyncPreempt"},
	GCMark:      {"runtime.mallocgc"},
	GCSweep:     {"runtime.mallocgc"},
	GCAssist:    {"runtime.mallocgc"},
	Netpoll:     {"internal/poll.runtime_pollWait"},
	Syscall:     {"syscall.Syscall", "syscall.Syscall6", "syscall.RawSyscall6", "runtime.entersyscall"},
	RuntimeLock: {"runtime.chansend1", "runtime.chanrecv1", "runtime.chanrecv2", "runtime.selectgo", "time.Sleep", "time.After"},
	Mutex:       {"internal/sync.(*Mutex).lockSlow", "sync.(*RWMutex).Lock", "sync.(*RWMutex).RLock"},
	Channel:     {"runtime.chansend1", "runtime.chanrecv1", "runtime.chanrecv2", "runtime.selectgo"},
}
