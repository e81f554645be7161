package finding

// Profile rules (SD2xx), detected by `schedoctor profile` (package profile).
// Thresholds are those of the profile package, justified there by the lab.
var profileRules = []Rule{
	{
		ID: "SD201", Name: "thread-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "threads parked and woken over and over (runtime.futex via wakep/startm or stopm/notesleep)",
		Since: "2026-11-22",
		Explanation: "When a goroutine becomes runnable and no thread is spinning, the runtime wakes one (wakep → startm → " +
			"notewakeup → futex); when a thread finds no work it parks (findRunnable → stopm → notesleep → futex). Short " +
			"sleeps, ping-ponging goroutines and bursts of tiny tasks make every unit of work pay two futex calls and two " +
			"context switches.",
		Detection: "CPU samples in the runtime's thread park and wake paths (futex through startm/wakep or stopm/notesleep) " +
			"that no more specific cause claims, as a share of the profile's CPU; the message names what wakes the " +
			"threads, read from the frames above wakep.",
		Details: "Wake: runtime.futex (or the code around it) reached through startm, wakep or notewakeup; park: through " +
			"stopm, mPark or notesleep. Mutex, syscall handoff, Gosched and runtime-lock chains claim their samples " +
			"first. Reported whatever the channel share (standing down for channel work hid 27% of park/wake CPU in a " +
			"prime sieve); below the CPU threshold it is info (the \"futex at half of a small CPU\" case). The wakers " +
			"read above wakep: channel operations (goready from chansend/chanrecv/select), go statements (newproc), " +
			"timers, the network poller, semaphores; resetspinning (a spinning M handing on) is ranked last, as it " +
			"follows any wake-up. When channel operations drive the wake-ups (see the thresholds), the whole " +
			"park/wake cost (scheduler, idle spinning, futex) is reported at info as the price of a " +
			"one-item-per-operation hand-off: lab pingpong 28–30%, all of its wake-ups from channel operations. The " +
			"stacks are cut by mcall, so the lines are the user callers of time.Sleep, go statements and channel " +
			"operations elsewhere in the profile.",
		Fix: "Batch work so fewer wake-ups are needed, replace sleep-polling by blocking on the event, and keep " +
			"producer/consumer pairs from handing off one item at a time (buffered channels, batching).",
	},
	{
		ID: "SD202", Name: "idle-spinning", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "idle Ps spin looking for work (findRunnable/stealWork)",
		Since: "2026-11-22",
		Explanation: "A P that runs out of work spins for a while in findRunnable, checking other Ps' queues, timers and " +
			"netpoll, before its thread parks. When work arrives in tiny pieces this searching costs more CPU than the work.",
		Detection: "CPU samples of idle Ps searching for work (findRunnable, stealWork, runqsteal, runqgrab, checkRunqsNoP, " +
			"pidleget(Spinning), resetspinning, globrunqget) that no more specific cause (churn, timers, netpoll) claims, as a " +
			"share of the profile's CPU.",
		Fix: "Give goroutines larger pieces of work, lower GOMAXPROCS to the parallelism the workload has, or batch handoffs.",
	},
	{
		ID: "SD203", Name: "timer-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "timer heap work dominates (timers made, reset and run at a high rate)",
		Since: "2026-11-22",
		Explanation: "Every time.Sleep, time.After and Timer.Reset adds to or moves in a per-P timer heap, and every expiry " +
			"runs through (*timers).run. Timers made per request or per loop iteration show as heap maintenance.",
		Detection: "CPU samples in timer heap work (adding, moving, running and deleting timers, and the " +
			"time.Sleep/After/NewTimer entry points), as a share of the profile's CPU, attributed to the user callers " +
			"of time.Sleep, time.After, time.NewTimer and Reset.",
		Details: "Frames: (*timers).check/run/adjust/deleteMin/siftUp/siftDown, (*timer).modify/reset/stop/maybeAdd, " +
			"time.Sleep/newTimer/After/NewTimer (before Go 1.23: checkTimers, runtimer, modtimer, siftdownTimer...). " +
			"Lab: timerloop 57–60%, its fixed twin 3%; sleeppoll 47–70%.",
		Fix: "Make timers once and Reset them, use a deadline for a whole operation instead of one per step, and replace " +
			"sleep-polling by blocking.",
	},
	{
		ID: "SD204", Name: "runtime-busy-wait", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "a goroutine busy-waits: select with default or Gosched dominates with no parking",
		Since: "2026-11-22",
		Explanation: "selectgo/selectnbrecv/selectnbsend with sellock and runtime locks, or gosched_m/goschedImpl, at a large " +
			"share of samples and with no park or futex sleep, means a loop polls a channel or yields instead of blocking.",
		Detection: "A busy wait in the runtime's frames with no parking: non-blocking select, Gosched yields, or selectgo " +
			"with its locks, each as a share of the profile's CPU while parking stays small. When the source is read, " +
			"the loop at the hot line decides; the severity follows the CPU the spin costs.",
		Details: "Three frame families: selectnbrecv/selectnbsend (a select with one case and a default); Gosched → " +
			"gosched_m → goschedImpl with everything under it, the run queue's lock2 included (runtime.GC's own sweep " +
			"loop yields too, and the share of Gosched calls made by runtime.GC is taken off; a goroutine locked to " +
			"its thread by runtime.LockOSThread hands its P away on every yield, stoplockedm → handoffp and the other " +
			"M's startlockedm, and that futex churn is the yield's cost, not SD201's); selectgo with " +
			"sellock/selunlock and the locks under them. Parking is the scheduler, idle spinning and thread churn " +
			"together.\n\nSeverity follows the cost, whatever the code (finding.SpinSeverity): a twentieth of a core " +
			"doing nothing is measurable and takes a P from others (warning); a whole core that is most of the CPU is " +
			"what the program does (critical). One exception: when channel communications complete at a share of the " +
			"CPU (chansend, chanrecv, a select's element copy or waiter hand-off), selectgo is info when the source " +
			"is not read, because a profile cannot tell a select with a default from a blocking select whose channel " +
			"a producer keeps ready (the lab timerloop's fixed twin: 69–84% in select, 24–26% in communications); " +
			"below that the select neither blocks nor receives (issue 20's busy handler: 90% in selectgo, 2% in " +
			"communications), so it warns by its cost and the source, when read, only names the cause.\n\nWhen the " +
			"source is found (the recorded path or -src DIR), each hot select, Gosched or flat-time line is read with " +
			"the analyzers' logic (lint/inspect): a loop the source shows as a select with a default, a Gosched or " +
			"atomic spin, or a sleep poll becomes SD204 at the spinning line with the CPU of the whole loop (its own " +
			"lines, the select/Gosched frames under them and, for a Gosched spin, the yield CPU whose stacks mcall " +
			"cut), sources profile and lint, at the same severities. A loop whose CPU is its work is not a busy wait, " +
			"whatever its shape: when the loop's CPU is mostly in the calls its lines make (a default that hashes a " +
			"buffer: 98% in SHA-256, 2% in select) there is no finding.\n\nLab: busyselect 88–100% with 0–1% parking; " +
			"busyhandler 89–96% in selectgo, 0% parking; gosched 96–98% yield; ringbuffer (3 producers, 1 consumer) " +
			"37–43% in put's loop; pingpong (healthy) parks 28–45%.",
		Fix: "Remove the select's default, or replace the Gosched loop by blocking on the event (see SD101, SD106).",
	},
	{
		ID: "SD205", Name: "runtime-lock-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLock,
		Title: "contention on runtime-internal locks (lock2/unlock2, procyield, osyield)",
		Since: "2026-11-22",
		Explanation: "Channels, timers and the global run queue are protected by runtime mutexes. Many Ps hammering the same " +
			"channel or timer heap spin in lock2 (procyield, osyield) and then sleep on a futex.",
		Detection: "CPU samples spinning or sleeping in contended runtime locks (procyield, osyield, futex, semasleep under " +
			"lock2/unlock2), attributed through the runtime caller that took the lock (sellock, chansend, the timers' " +
			"lock, globrunqget) to the user line, as a share of the profile's CPU.",
		Details: "The slow path only: procyield, osyield, futex or semasleep under lock2, unlock2 or unlock2Wake when the lock " +
			"was contended, not its fast path. The message names the runtime function that took the lock. Locks under a select that SD204 reports as a " +
			"busy wait are the spin's cost and are left out; so is the run queue's lock under goschedImpl (a Gosched " +
			"spin: 17% of a ring buffer's CPU).",
		Fix: "Shard the channel or the work per worker, batch items, or reduce the number of goroutines sharing one channel.",
	},
	{
		ID: "SD206", Name: "mutex-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLock,
		Title: "sync.Mutex or RWMutex contention (lockSlow, semacquire)",
		Since: "2026-11-22",
		Explanation: "A contended sync.Mutex spins (runtime_doSpin → procyield) and then parks the goroutine on a semaphore; " +
			"unlocking wakes it. The CPU shows as lockSlow/unlockSlow and semacquire1/semrelease1.",
		Detection: "CPU samples in sync.Mutex and RWMutex slow paths (lockSlow/unlockSlow, runtime_SemacquireMutex, " +
			"runtime_doSpin, semacquire1/semrelease1), attributed to the user line that called Lock, as a share of " +
			"the profile's CPU.",
		Details: "Lab: mutex 17–27%, its fixed twin 0%.",
		Fix: "Shorten the critical section, shard the state, use atomics or per-goroutine copies merged at the end; profile " +
			"blocking with the mutex profile (runtime.SetMutexProfileFraction) to see the waiters.",
	},
	{
		ID: "SD207", Name: "gc-pressure", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyGC,
		Title: "GC work and mark assists take a large share of CPU",
		Since: "2026-11-22",
		Explanation: "The GC's background workers take 25% of GOMAXPROCS during a cycle; when a goroutine allocates faster than " +
			"marking proceeds it is made to assist (gcAssistAlloc), which adds latency to the allocating request.",
		Detection: "CPU samples of GC work, mark assists, background marking and sweeping together, as a share of the " +
			"profile's CPU, attributed to the allocating user lines; collections forced by runtime.GC are counted " +
			"apart.",
		Details: "Frames: gcAssistAlloc/gcDrainN and write-barrier flushes (assist), " +
			"gcBgMarkWorker/gcDrain/scanObject/scanSpan (mark), bgsweep/sweepone/bgscavenge/gcStart (sweep). The " +
			"message names the largest part (assists, background mark or allocation). Collections forced by " +
			"runtime.GC() (the testing harness calls it before each benchmark) are left out of the share; when they " +
			"alone reach the share they are reported at info as forced, naming the caller of runtime.GC. Lab: " +
			"gcpressure 34–41%, its fixed twin 0%, timerloop 9–17%.",
		Fix: "Allocate less on the hot path (reuse buffers, sync.Pool, avoid per-item closures); set GOMEMLIMIT and raise " +
			"GOGC when memory allows.",
	},
	{
		ID: "SD208", Name: "preemption-storm", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyPreemption,
		Title: "async preemption dominates: more busy Ps than CPUs",
		Since: "2026-11-22",
		Explanation: "sysmon preempts a goroutine that has run 10ms; when GOMAXPROCS exceeds the CPUs really available, Ps " +
			"whose threads the kernel has descheduled keep being preempted, and asyncPreempt shows as a large leaf.",
		Detection: "CPU samples in async preemption (asyncPreempt, asyncPreempt2, gopreempt_m) as a share of the profile's " +
			"CPU; a warning needs a higher share in one profile, or the share in each of several; a loop that never " +
			"yields must be ruled out first.",
		Details: "Below the single-profile share with one profile, or when one of several profiles falls under the share, " +
			"the finding is info asking for corroboration. Lab (2 CPUs, quiet machine): overprocs at GOMAXPROCS=8 " +
			"15–20%, at GOMAXPROCS=2 under 1%. A machine crowded by other processes shows the same signature (8–39% " +
			"at GOMAXPROCS=2 under a load average of 7–20): then the CPUs the process really gets are fewer than its " +
			"Ps, and the finding says so. A profile does not record GOMAXPROCS: a loop that never yields (a consumer " +
			"retrying a non-blocking Dequeue at once) is preempted every 10ms at GOMAXPROCS = CPUs too, so the fix " +
			"rules such a loop out first, and when the source shows the preempted lines in a spinning loop " +
			"(diagnose), or check finds a spin at warning, SD208 is the spin's cost and not oversubscription.",
		Fix: "First rule out a loop that never yields where the preemptions land; then set GOMAXPROCS to the CPUs available " +
			"(check with schedoctor procs); in containers use Go 1.25+ with go ≥ 1.25 in go.mod.",
	},
	{
		ID: "SD209", Name: "syscall-heavy", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilySyscall,
		Title: "syscalls dominate, with P handoffs on the way in and out",
		Since: "2026-11-22",
		Explanation: "Every syscall goes through entersyscall/exitsyscall; a slow one makes sysmon hand the P to another " +
			"thread (handoffp), and the return must find a P again (exitsyscallNoP). Small reads and writes multiply both.",
		Detection: "CPU samples in system calls and their P handoffs (syscall.Syscall/RawSyscall6, entersyscall/exitsyscall, " +
			"entersyscallblock, handoffp; epoll in netpoll not counted) as a share of the profile's CPU, attributed " +
			"to the user line making the call.",
		Details: "The exit frames counted include exitsyscall's exitsyscallTryGetP and exitsyscallNoP. " +
			"The CPU threshold is higher than the other rules' (a healthy broker spent 0.10 cores in syscalls); below " +
			"it, info. When the syscall CPU comes mostly through bufio.(*Writer).Flush, net.(*Buffers).WriteTo/writev " +
			"or io.Copy, the program batches already: info, and no advice to buffer. Lab: syscallheavy 76–91% at " +
			"0.41–0.51 cores, its fixed twin 0–3%.",
		Fix: "Buffer I/O (bufio), batch writes (writev, net.Buffers), and avoid syscalls per item.",
	},
}
