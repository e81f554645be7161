package classify

// Alias maps a runtime frame's name in an older Go release to the Go 1.26
// name the rules use, so profiles of programs built with Go 1.21–1.25
// classify the same way.
//
// The Go 1.26 names were checked against the Go 1.26.8 source. The older
// names are not in this toolchain's source; they come from the team's notes
// on each release's runtime and from the release history of the files named
// in Where: the 1.23 timer rewrite
// (runtime/time.go), the 1.24 move of sync.Mutex into internal/sync, the
// 1.26 rename of scanobject and of the exitsyscall helpers.
type Alias struct {
	Old, New string
	Until    string // the last Go release that used Old
	Where    string // the file where the function lives
}

// Aliases is the frame-alias table for Go 1.21–1.26.
var Aliases = []Alias{
	// Scheduler.
	{"runtime.findrunnable", "runtime.findRunnable", "1.18", "runtime/proc.go"}, // kept for profiles of old binaries
	{"runtime.exitsyscallfast", "runtime.exitsyscallTryGetP", "1.25", "runtime/proc.go"},
	{"runtime.exitsyscallfast_pidle", "runtime.exitsyscallTryGetP", "1.25", "runtime/proc.go"},
	{"runtime.exitsyscallfast_reacquired", "runtime.exitsyscallTryGetP", "1.25", "runtime/proc.go"},
	{"runtime.exitsyscall0", "runtime.exitsyscallNoP", "1.25", "runtime/proc.go"},

	// GC: scanobject was renamed in 1.26; Green Tea (1.25 experiment, 1.26
	// default) adds scanSpan, tryDeferToSpanScan and scanObjectSmall, which
	// need no alias.
	{"runtime.scanobject", "runtime.scanObject", "1.25", "runtime/mgcmark.go"},

	// sync.Mutex moved to internal/sync in 1.24.
	{"sync.(*Mutex).lockSlow", "internal/sync.(*Mutex).lockSlow", "1.23", "sync/mutex.go"},
	{"sync.(*Mutex).unlockSlow", "internal/sync.(*Mutex).unlockSlow", "1.23", "sync/mutex.go"},
	{"sync.runtime_SemacquireMutex", "internal/sync.runtime_SemacquireMutex", "1.23", "runtime/sema.go"},
	{"sync.runtime_doSpin", "internal/sync.runtime_doSpin", "1.23", "runtime/proc.go"},
	{"sync.runtime_canSpin", "internal/sync.runtime_canSpin", "1.23", "runtime/proc.go"},

	// Timers before the 1.23 rewrite (per-P heap functions on p).
	{"runtime.checkTimers", "runtime.(*timers).check", "1.22", "runtime/proc.go"},
	{"runtime.runtimer", "runtime.(*timers).run", "1.22", "runtime/time.go"},
	{"runtime.runOneTimer", "runtime.(*timer).unlockAndRun", "1.22", "runtime/time.go"},
	{"runtime.siftupTimer", "runtime.(*timers).siftUp", "1.22", "runtime/time.go"},
	{"runtime.siftdownTimer", "runtime.(*timers).siftDown", "1.22", "runtime/time.go"},
	{"runtime.modtimer", "runtime.(*timer).modify", "1.22", "runtime/time.go"},
	{"runtime.resettimer", "runtime.(*timer).reset", "1.22", "runtime/time.go"},
	{"runtime.addtimer", "runtime.(*timer).maybeAdd", "1.22", "runtime/time.go"},
	{"runtime.deltimer", "runtime.(*timer).stop", "1.22", "runtime/time.go"},
	{"runtime.adjusttimers", "runtime.(*timers).adjust", "1.22", "runtime/time.go"},
	{"runtime.cleantimers", "runtime.(*timers).cleanHead", "1.22", "runtime/time.go"},
	{"runtime.dodeltimer0", "runtime.(*timers).deleteMin", "1.22", "runtime/time.go"},
	{"runtime.doaddtimer", "runtime.(*timers).addHeap", "1.22", "runtime/time.go"},
	{"runtime.clearDeletedTimers", "runtime.(*timers).cleanHead", "1.22", "runtime/time.go"},
	{"runtime.moveTimers", "runtime.(*timers).take", "1.22", "runtime/time.go"},
	{"runtime.startTimer", "time.newTimer", "1.22", "runtime/time.go"},
	{"time.startTimer", "time.newTimer", "1.22", "time/sleep.go"},
}

// canonical maps every name that differs from its Go 1.26 spelling.
var canonical = func() map[string]string {
	m := make(map[string]string, len(Aliases))
	for _, a := range Aliases {
		if a.Old != a.New {
			m[a.Old] = a.New
		}
	}
	return m
}()

// Canonical returns the Go 1.26 name of a frame.
func Canonical(name string) string {
	if n, ok := canonical[name]; ok {
		return n
	}
	return name
}
