package finding

// Profile rules (SD2xx), detected by `schedoctor profile` (package profile).
// Thresholds are those of the profile package, justified there by the lab.
var profileRules = []Rule{
	{
		ID: "SD201", Name: "thread-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "threads parked and woken over and over (runtime.futex via wakep/startm or stopm/notesleep)",
		Explanation: "When a goroutine becomes runnable and no thread is spinning, the runtime wakes one (wakep → startm → " +
			"notewakeup → futex); when a thread finds no work it parks (findRunnable → stopm → notesleep → futex). Short " +
			"sleeps, ping-ponging goroutines and bursts of tiny tasks make every unit of work pay two futex calls and two " +
			"context switches.",
		Detection: "Samples whose caller chain reaches runtime.futex through wakep/startm/notewakeup (wake) or " +
			"stopm/mPark/notesleep (park), as a share of all samples and in cores, with the user callers that made the " +
			"goroutines runnable (time.Sleep, channel sends, go statements).",
		Fix: "Batch work so fewer wake-ups are needed, replace sleep-polling by blocking on the event, and keep " +
			"producer/consumer pairs from handing off one item at a time (buffered channels, batching).",
	},
	{
		ID: "SD202", Name: "idle-spinning", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "idle Ps spin looking for work (findRunnable/stealWork)",
		Explanation: "A P that runs out of work spins for a while in findRunnable, checking other Ps' queues, timers and " +
			"netpoll, before its thread parks. When work arrives in tiny pieces this searching costs more CPU than the work.",
		Detection: "Samples in findRunnable, stealWork, runqsteal, runqgrab, checkTimersNoP and friends, under schedule.",
		Fix:       "Give goroutines larger pieces of work, lower GOMAXPROCS to the parallelism the workload has, or batch handoffs.",
	},
	{
		ID: "SD203", Name: "timer-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "timer heap work dominates (timers made, reset and run at a high rate)",
		Explanation: "Every time.Sleep, time.After and Timer.Reset adds to or moves in a per-P timer heap, and every expiry " +
			"runs through (*timers).run. Timers made per request or per loop iteration show as heap maintenance.",
		Detection: "Samples under (*timers).check/run/adjust/deleteMin/siftUp/siftDown, (*timer).modify/reset/stop, " +
			"newTimer/stopTimer/resetTimer (and the pre-1.23 checkTimers/runtimer/modtimer), attributed to the user callers " +
			"of time.Sleep, time.After, time.NewTimer and Reset.",
		Fix: "Make timers once and Reset them, use a deadline for a whole operation instead of one per step, and replace " +
			"sleep-polling by blocking.",
	},
	{
		ID: "SD204", Name: "runtime-busy-wait", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "a goroutine busy-waits: select with default or Gosched dominates with no parking",
		Explanation: "selectgo/selectnbrecv/selectnbsend with sellock and runtime locks, or gosched_m/goschedImpl, at a large " +
			"share of samples and with no park or futex sleep, means a loop polls a channel or yields instead of blocking.",
		Detection: "Samples under selectgo, selectnbsend, selectnbrecv (with sellock/selunlock) or under Gosched → " +
			"gosched_m → goschedImpl, attributed to the calling user line, when parking is absent.",
		Fix: "Remove the select's default, or replace the Gosched loop by blocking on the event (see SD101, SD106).",
	},
	{
		ID: "SD205", Name: "runtime-lock-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "contention on runtime-internal locks (lock2/unlock2, procyield, osyield)",
		Explanation: "Channels, timers and the global run queue are protected by runtime mutexes. Many Ps hammering the same " +
			"channel or timer heap spin in lock2 (procyield, osyield) and then sleep on a futex.",
		Detection: "Samples under lock2/unlock2/unlock2Wake with procyield/osyield/futex, attributed through their runtime " +
			"callers (chansend, chanrecv, sellock, (*timers).lock, globrunqget) to the user line.",
		Fix: "Shard the channel or the work per worker, batch items, or reduce the number of goroutines sharing one channel.",
	},
	{
		ID: "SD206", Name: "mutex-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "sync.Mutex or RWMutex contention (lockSlow, semacquire)",
		Explanation: "A contended sync.Mutex spins (runtime_doSpin → procyield) and then parks the goroutine on a semaphore; " +
			"unlocking wakes it. The CPU shows as lockSlow/unlockSlow and semacquire1/semrelease1.",
		Detection: "Samples under (internal/)sync.(*Mutex).lockSlow/unlockSlow, runtime_SemacquireMutex, semacquire1, " +
			"semrelease1, attributed to the user function that called Lock.",
		Fix: "Shorten the critical section, shard the state, use atomics or per-goroutine copies merged at the end; profile " +
			"blocking with the mutex profile (runtime.SetMutexProfileFraction) to see the waiters.",
	},
	{
		ID: "SD207", Name: "gc-pressure", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "GC work and mark assists take a large share of CPU",
		Explanation: "The GC's background workers take 25% of GOMAXPROCS during a cycle; when a goroutine allocates faster than " +
			"marking proceeds it is made to assist (gcAssistAlloc), which adds latency to the allocating request.",
		Detection: "Samples under gcBgMarkWorker/gcDrain/scanObject (background) and mallocgc → gcAssistAlloc (assist), " +
			"attributed to the allocating user functions.",
		Fix: "Allocate less on the hot path (reuse buffers, sync.Pool, avoid per-item closures); set GOMEMLIMIT and raise " +
			"GOGC when memory allows.",
	},
	{
		ID: "SD208", Name: "preemption-storm", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "async preemption dominates: more busy Ps than CPUs",
		Explanation: "sysmon preempts a goroutine that has run 10ms; when GOMAXPROCS exceeds the CPUs really available, Ps " +
			"whose threads the kernel has descheduled keep being preempted, and asyncPreempt shows as a large leaf.",
		Detection: "Samples with asyncPreempt/asyncPreempt2 as the leaf above a sustained share, corroborated by the " +
			"profile's CPU rate against the available CPUs.",
		Fix: "Set GOMAXPROCS to the CPUs available (check with schedoctor procs); in containers use Go 1.25+ with go ≥ 1.25 " +
			"in go.mod.",
	},
	{
		ID: "SD209", Name: "syscall-heavy", Severity: Warning, Sources: []Source{SourceProfile}, Status: Planned,
		Title: "syscalls dominate, with P handoffs on the way in and out",
		Explanation: "Every syscall goes through entersyscall/exitsyscall; a slow one makes sysmon hand the P to another " +
			"thread (handoffp), and the return must find a P again (exitsyscallNoP). Small reads and writes multiply both.",
		Detection: "Samples under syscall.Syscall/RawSyscall6/internal/runtime/syscall/linux.Syscall6, entersyscall, " +
			"exitsyscall and handoffp, attributed to the user line making the call.",
		Fix: "Buffer I/O (bufio), batch writes (writev, net.Buffers), and avoid syscalls per item.",
	},
}
