package finding

// Family names the kind of cause a rule reports, whatever source measured
// it: a profile's SD204 and lint's SD101 at one line are both a loop that
// spins. Every rule of the catalog has one (Rule.Family; Validate checks
// it). diagnose, the one place that joins sources, reads it: findings of a
// cause family (loop, lock, leak, gc, syscall) at one line are one cause;
// an effect (latency, preemption) is linked to the cause that explains it;
// the other families are reported as their source made them.
type Family string

const (
	// FamilyLoop: a loop that spins or polls, and the runtime's work it
	// causes (selects with a default, sleep polls, spin-waits, runtime
	// busy waits, a goroutine that never blocks, short sleeps at a high
	// rate, thread, timer and idle-P churn). Spin and poll are one family:
	// a short-sleep poll is reported by the profile as a spin-like loop
	// (SD204 on a time.Sleep loop) and by the trace as SD307 at the same
	// line; the code at the line tells a busy select from a poll, not the
	// rule.
	FamilyLoop Family = "loop"
	// FamilyLock: goroutines wait for a lock (sync.Mutex, runtime locks).
	FamilyLock Family = "lock"
	// FamilyLeak: goroutines that never end. The metrics' goroutine growth
	// (SD701 from the live monitor) is the dumps' leak.
	FamilyLeak Family = "leak"
	// FamilyGC: garbage collection's cost, as a profile, a trace or the
	// live monitor's metrics measure it.
	FamilyGC Family = "gc"
	// FamilySyscall: system calls and the P handoffs around them.
	FamilySyscall Family = "syscall"
	// FamilyLatency: runnable goroutines wait for a P (scheduling latency,
	// a runnable backlog): an effect, which a spin or a lock queue that
	// the join found explains.
	FamilyLatency Family = "latency"
	// FamilyPreemption: async preemption dominates. An effect too, of a
	// loop that never yields (it is preempted every 10ms at any
	// GOMAXPROCS), never of a lock queue.
	FamilyPreemption Family = "preemption"
	// FamilyTimer: timers and tickers made or kept by the code.
	FamilyTimer Family = "timer"
	// FamilyThrottle: the goroutine count used to limit or wait for
	// goroutines.
	FamilyThrottle Family = "throttle"
	// FamilyCPUQuota: GOMAXPROCS against the CPUs the process may use (a
	// CFS quota, a cpuset, a parent's limit), throttling, CPU pressure,
	// and the GOMAXPROCS a sweep measured best.
	FamilyCPUQuota Family = "cpu-quota"
	// FamilyMemory: the memory limit the runtime is told.
	FamilyMemory Family = "memory"
	// FamilyRuntime: the Go release the binary was built with.
	FamilyRuntime Family = "runtime"
	// FamilyThreads: the number of OS threads grows.
	FamilyThreads Family = "threads"
	// FamilyScheduler: the scheduler's own work seen from outside: Ps idle
	// beside queued goroutines, park/wake churn, migration.
	FamilyScheduler Family = "scheduler"
	// FamilyHost: the host's limits on connections (descriptors, backlog,
	// ports, conntrack, epoll, kernel settings, memory per connection) and
	// sockets left open.
	FamilyHost Family = "host"
)

// families lists every family, in the order of the constants; Validate
// refuses a rule of another.
var families = []Family{
	FamilyLoop, FamilyLock, FamilyLeak, FamilyGC, FamilySyscall, FamilyLatency, FamilyPreemption,
	FamilyTimer, FamilyThrottle, FamilyCPUQuota, FamilyMemory, FamilyRuntime, FamilyThreads,
	FamilyScheduler, FamilyHost,
}
