package finding

// Profile rules (SD2xx), detected by `schedoctor profile` (package profile).
// Thresholds are those of the profile package, justified there by the lab.
var profileRules = []Rule{
	{
		ID: "SD201", Name: "thread-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "threads parked and woken over and over (runtime.futex via wakep/startm or stopm/notesleep)",
		Explanation: "When a goroutine becomes runnable and no thread is spinning, the runtime wakes one (wakep → startm → " +
			"notewakeup → futex); when a thread finds no work it parks (findRunnable → stopm → notesleep → futex). Short " +
			"sleeps, ping-ponging goroutines and bursts of tiny tasks make every unit of work pay two futex calls and two " +
			"context switches.",
		Detection: "Samples whose caller chain reaches runtime.futex (or the code around it) through startm/wakep/notewakeup " +
			"(wake) or stopm/mPark/notesleep (park), unless a more specific chain claims them (mutex, syscall handoff, " +
			"Gosched, runtime-lock). Reported at ≥ 20% of the profile's CPU with ≥ 10 samples whatever the channel share " +
			"(standing down for channel work hid 27% of park/wake CPU in a prime sieve); warning from 0.05 cores, info below " +
			"(the \"futex at 50% of a small CPU\" case). The message names what wakes the threads, read from the frames " +
			"above wakep: channel operations (goready from chansend/chanrecv/select), go statements (newproc), timers, the " +
			"network poller, semaphores; resetspinning (a spinning M handing on) is ranked last, as it follows any wake-up. " +
			"When channel operations drive at least half of the wake-ups, the whole park/wake cost (scheduler, idle " +
			"spinning, futex) is reported at info as the price of a one-item-per-operation hand-off: lab pingpong 28–30%, " +
			"100% of its wake-ups from channel operations. The stacks are cut by mcall, so the lines are the user callers " +
			"of time.Sleep, go statements and channel operations elsewhere in the profile.",
		Fix: "Batch work so fewer wake-ups are needed, replace sleep-polling by blocking on the event, and keep " +
			"producer/consumer pairs from handing off one item at a time (buffered channels, batching).",
	},
	{
		ID: "SD202", Name: "idle-spinning", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "idle Ps spin looking for work (findRunnable/stealWork)",
		Explanation: "A P that runs out of work spins for a while in findRunnable, checking other Ps' queues, timers and " +
			"netpoll, before its thread parks. When work arrives in tiny pieces this searching costs more CPU than the work.",
		Detection: "Samples under findRunnable, stealWork, runqsteal, runqgrab, checkRunqsNoP, pidleget(Spinning), resetspinning " +
			"and globrunqget that no more specific chain (churn, timers, netpoll) claims. Reported at ≥ 25% of CPU with " +
			"≥ 10 samples; warning from 0.05 cores.",
		Fix: "Give goroutines larger pieces of work, lower GOMAXPROCS to the parallelism the workload has, or batch handoffs.",
	},
	{
		ID: "SD203", Name: "timer-churn", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "timer heap work dominates (timers made, reset and run at a high rate)",
		Explanation: "Every time.Sleep, time.After and Timer.Reset adds to or moves in a per-P timer heap, and every expiry " +
			"runs through (*timers).run. Timers made per request or per loop iteration show as heap maintenance.",
		Detection: "Samples under (*timers).check/run/adjust/deleteMin/siftUp/siftDown, (*timer).modify/reset/stop/maybeAdd, " +
			"time.Sleep/newTimer/After/NewTimer (pre-1.23: checkTimers, runtimer, modtimer, siftdownTimer...), attributed to " +
			"the user callers of time.Sleep, time.After, time.NewTimer and Reset. Reported at ≥ 20% of CPU with ≥ 10 samples; " +
			"warning from 0.05 cores. Lab: timerloop 57–60%, its fixed twin 3%; sleeppoll 47–70%.",
		Fix: "Make timers once and Reset them, use a deadline for a whole operation instead of one per step, and replace " +
			"sleep-polling by blocking.",
	},
	{
		ID: "SD204", Name: "runtime-busy-wait", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLoop,
		Title: "a goroutine busy-waits: select with default or Gosched dominates with no parking",
		Explanation: "selectgo/selectnbrecv/selectnbsend with sellock and runtime locks, or gosched_m/goschedImpl, at a large " +
			"share of samples and with no park or futex sleep, means a loop polls a channel or yields instead of blocking.",
		Detection: "Three frame families, each at ≥ 40% of CPU with ≥ 10 samples while parking (scheduler, idle spinning, " +
			"thread churn) is under half of that share: selectnbrecv/selectnbsend (a select with one case and a default); " +
			"Gosched → gosched_m → goschedImpl with everything under it, the run queue's lock2 included (runtime.GC's own " +
			"sweep loop yields too, and the share of Gosched calls made by runtime.GC is taken off; a goroutine locked to " +
			"its thread by runtime.LockOSThread hands its P away on every yield, stoplockedm → handoffp and the other M's " +
			"startlockedm, and that futex churn is the yield's cost, not SD201's); selectgo with " +
			"sellock/selunlock and the locks under them. Severity follows the cost, whatever the code (finding.SpinSeverity): " +
			"warning from 0.05 cores (a twentieth of a core doing nothing is measurable and takes a P from others), critical " +
			"from 0.95 cores that are also 60% of the CPU or more (the spin, not the work, is what the program does), info " +
			"below 0.05 cores. One exception: when channel communications complete at 10% of the CPU or more (chansend, " +
			"chanrecv, a select's element copy or waiter hand-off), selectgo is info when the source is not read, because " +
			"a profile cannot tell a select with a default from a blocking select whose channel a producer keeps ready (the " +
			"lab timerloop's fixed twin: 69–84% in select, 24–26% in communications); below that the select neither blocks " +
			"nor receives (issue 20's busy handler: 90% in selectgo, 2% in communications), so it warns by its cost and the " +
			"source, when read, only names the cause. When the source is found (the recorded path or " +
			"-src DIR), each hot select, Gosched or flat-time line is read with the analyzers' logic (lint/inspect): a loop " +
			"the source shows as a select with a default, a Gosched or atomic spin, or a sleep poll becomes SD204 at the " +
			"spinning line with the CPU of the whole loop (its own lines, the select/Gosched frames under them and, for a " +
			"Gosched spin, the yield CPU whose stacks mcall cut), sources profile and lint, at the same severities. A loop " +
			"whose CPU is its work is not a busy wait, whatever its shape: when 50% or more of the loop's CPU is in the calls " +
			"its lines make (a default that hashes a buffer: 98% in SHA-256, 2% in select) there is no finding. " +
			"Lab: busyselect 88–100% with 0–1% parking; busyhandler 89–96% in selectgo, 0% parking; gosched 96–98% yield; " +
			"ringbuffer (3 producers, 1 consumer) 37–43% in put's loop; pingpong (healthy) parks 28–45%.",
		Fix: "Remove the select's default, or replace the Gosched loop by blocking on the event (see SD101, SD106).",
	},
	{
		ID: "SD205", Name: "runtime-lock-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLock,
		Title: "contention on runtime-internal locks (lock2/unlock2, procyield, osyield)",
		Explanation: "Channels, timers and the global run queue are protected by runtime mutexes. Many Ps hammering the same " +
			"channel or timer heap spin in lock2 (procyield, osyield) and then sleep on a futex.",
		Detection: "Samples with procyield/osyield/futex/semasleep under lock2/unlock2/unlock2Wake (contended, not the fast " +
			"path), attributed through their runtime callers (sellock, chansend, (*timers).lock, globrunqget) to the user " +
			"line. Reported at ≥ 15% of CPU with ≥ 10 samples; warning from 0.05 cores. The message names the runtime function " +
			"that took the lock. Locks under a select that SD204 reports as a busy-wait are the spin's cost and are left " +
			"out; so is the run queue's lock under goschedImpl (a Gosched spin: 17% of a ring buffer's CPU).",
		Fix: "Shard the channel or the work per worker, batch items, or reduce the number of goroutines sharing one channel.",
	},
	{
		ID: "SD206", Name: "mutex-contention", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyLock,
		Title: "sync.Mutex or RWMutex contention (lockSlow, semacquire)",
		Explanation: "A contended sync.Mutex spins (runtime_doSpin → procyield) and then parks the goroutine on a semaphore; " +
			"unlocking wakes it. The CPU shows as lockSlow/unlockSlow and semacquire1/semrelease1.",
		Detection: "Samples under (internal/)sync.(*Mutex).lockSlow/unlockSlow, runtime_SemacquireMutex, runtime_doSpin, " +
			"semacquire1/semrelease1, attributed to the user line that called Lock. Reported at ≥ 10% of CPU with ≥ 10 " +
			"samples; warning from 0.05 cores. Lab: mutex 17–27%, its fixed twin 0%.",
		Fix: "Shorten the critical section, shard the state, use atomics or per-goroutine copies merged at the end; profile " +
			"blocking with the mutex profile (runtime.SetMutexProfileFraction) to see the waiters.",
	},
	{
		ID: "SD207", Name: "gc-pressure", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyGC,
		Title: "GC work and mark assists take a large share of CPU",
		Explanation: "The GC's background workers take 25% of GOMAXPROCS during a cycle; when a goroutine allocates faster than " +
			"marking proceeds it is made to assist (gcAssistAlloc), which adds latency to the allocating request.",
		Detection: "Samples under gcAssistAlloc/gcDrainN and write-barrier flushes (assist), gcBgMarkWorker/gcDrain/scanObject/" +
			"scanSpan (mark) and bgsweep/sweepone/bgscavenge/gcStart (sweep), together ≥ 25% of CPU with ≥ 10 samples; " +
			"warning from 0.05 cores. Attributed to the allocating user lines; the message names the largest part (assists, " +
			"background mark or allocation). Collections forced by runtime.GC() (the testing harness calls it before each " +
			"benchmark) are left out of that share; when they alone reach 25% they are reported at info as forced, naming " +
			"the caller of runtime.GC. Lab: gcpressure 34–41%, its fixed twin 0%, timerloop 9–17%.",
		Fix: "Allocate less on the hot path (reuse buffers, sync.Pool, avoid per-item closures); set GOMEMLIMIT and raise " +
			"GOGC when memory allows.",
	},
	{
		ID: "SD208", Name: "preemption-storm", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilyPreemption,
		Title: "async preemption dominates: more busy Ps than CPUs",
		Explanation: "sysmon preempts a goroutine that has run 10ms; when GOMAXPROCS exceeds the CPUs really available, Ps " +
			"whose threads the kernel has descheduled keep being preempted, and asyncPreempt shows as a large leaf.",
		Detection: "Samples with asyncPreempt/asyncPreempt2 (or gopreempt_m) at ≥ 8% of CPU with ≥ 10 samples. A warning needs " +
			"≥ 12% in a single profile, or ≥ 8% in each of several profiles given together; otherwise info asking for " +
			"corroboration. Lab (2 CPUs, quiet machine): overprocs at GOMAXPROCS=8 15–20%, at GOMAXPROCS=2 under 1%. " +
			"A machine crowded by other processes shows the same signature (8–39% at GOMAXPROCS=2 under a load average of " +
			"7–20): then the CPUs the process really gets are fewer than its Ps, and the finding says so. A profile does " +
			"not record GOMAXPROCS: a loop that never yields (a consumer retrying a non-blocking Dequeue at once) is " +
			"preempted every 10ms at GOMAXPROCS = CPUs too, so the fix rules such a loop out first, and when the source " +
			"shows the preempted lines in a spinning loop (diagnose), or check finds a spin at warning, SD208 is the " +
			"spin's cost and not oversubscription.",
		Fix: "First rule out a loop that never yields where the preemptions land; then set GOMAXPROCS to the CPUs available " +
			"(check with schedoctor procs); in containers use Go 1.25+ with go ≥ 1.25 in go.mod.",
	},
	{
		ID: "SD209", Name: "syscall-heavy", Severity: Warning, Sources: []Source{SourceProfile}, Status: Implemented, Family: FamilySyscall,
		Title: "syscalls dominate, with P handoffs on the way in and out",
		Explanation: "Every syscall goes through entersyscall/exitsyscall; a slow one makes sysmon hand the P to another " +
			"thread (handoffp), and the return must find a P again (exitsyscallNoP). Small reads and writes multiply both.",
		Detection: "Samples under syscall.Syscall/RawSyscall6, entersyscall/exitsyscall(TryGetP/NoP), entersyscallblock and " +
			"handoffp (epoll in netpoll is not counted), at ≥ 40% of CPU with ≥ 10 samples; warning from 0.25 cores (a " +
			"healthy broker spent 0.10 cores in syscalls), info below. When half or more of the syscall CPU comes through " +
			"bufio.(*Writer).Flush, net.(*Buffers).WriteTo/writev or io.Copy, the program batches already: info, and no " +
			"advice to buffer. Attributed to the user line making the call. Lab: syscallheavy 76–91% at 0.41–0.51 cores, " +
			"its fixed twin 0–3%.",
		Fix: "Buffer I/O (bufio), batch writes (writev, net.Buffers), and avoid syscalls per item.",
	},
}
