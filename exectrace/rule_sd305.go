package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// syscallHandoff is SD305: syscalls lose their P. When the host withheld
// the CPU, that is why: the threads stalled, not the syscalls.
func syscallHandoff(r *ruleCtx) {
	s, secs, host := r.s, r.secs, r.host
	withheld := host != ""
	for _, sc := range s.Syscalls.Sites {
		perS := float64(sc.Handoffs) / secs
		if sc.Handoffs < handoffMin || perS < handoffPerS {
			continue
		}
		sev := finding.MustLookup("SD305").Severity
		why := fmt.Sprintf("they blocked long enough for sysmon to hand it away (p50 %v, p99 %v); the goroutine then queued for a P", dur(sc.Duration.P50), dur(sc.Duration.P99))
		fix := finding.MustLookup("SD305").Fix
		handPct := 100 * float64(sc.Handoffs) / float64(max(sc.Count, 1))
		callsPerS := float64(sc.Count) / secs
		// Calls that already come through a buffer (bufio's Flush,
		// writev) are batched: at a high rate they move that much data,
		// and "batch them" is no advice (the lab's syscallheavy fixed
		// twin: 146,000 64 KiB writes/s to /dev/null, 27 handoffs).
		batched := 2*sc.Batched >= sc.Count
		if sc.HandoffDuration.P50 >= syscallWaits && callsPerS < syscallsBatch {
			// The calls wait (an event loop's epoll_wait, a blocking
			// read): their P runs other goroutines meanwhile, and only
			// the return costs a P.
			sev = finding.Info
			why = fmt.Sprintf("they wait for events (those that lost it took %v at the median, all calls here %v): the runtime hands the P of a goroutine that waits in a syscall to others, as it should, and the goroutine queues for a P when it returns",
				dur(sc.HandoffDuration.P50), dur(sc.Duration.P50))
			fix = "Nothing to batch: these syscalls are waits. If the wake-up latency matters, wait through the runtime's netpoller (net.Conn, os.File with deadlines) rather than a raw epoll_wait or read, so that a ready goroutine does not queue for a P behind a thread's return."
		} else if callsPerS >= syscallsBatch && !batched {
			why = fmt.Sprintf("the site makes %.0f syscalls/s: even calls this quick (p50 %v, p99 %v) lose their P now and then at that rate", callsPerS, dur(sc.Duration.P50), dur(sc.Duration.P99))
			if cores := callsPerS * sc.Duration.P50.Seconds(); cores < syscallsBatchCores && handPct < handoffTailPct {
				// Warn by cost: the calls take little CPU and few lose
				// their P, so batching would save little.
				sev = finding.Info
				why += fmt.Sprintf(", but they take only about %.2f cores (rate × median) and %.1f%% of them lost it", cores, handPct)
			}
		} else if handPct < handoffTailPct && sc.Duration.P50 < handoffQuick {
			// Most calls here return at once: the few that lost their P
			// are a tail (a descheduled thread, a slow moment), not the
			// kind of syscall; batching is not what they need.
			sev = finding.Info
			why = fmt.Sprintf("a tail of slow calls blocked long enough for sysmon to hand their P away: %.1f%% of the calls here, which take %v at the median and %v at p99",
				handPct, dur(sc.Duration.P50), dur(sc.Duration.P99))
			fix = "Only a tail of these syscalls lost their P: look at what stalls them then (a descheduled thread: schedoctor procs; a slow device or peer) before batching."
			if batched {
				why += fmt.Sprintf(", and %d of them already come through a buffer (bufio, writev)", sc.Batched)
				fix = "Only a tail of these syscalls lost their P, and they are already batched: look at what stalls them then (a descheduled thread: schedoctor procs; a slow device or peer)."
			}
		}
		if withheld {
			why = host + ": threads stalled in and around their syscalls, and sysmon handed their Ps away"
			fix = hostFix + " Batching syscalls would not help: the syscalls are slow because their threads wait for a CPU."
		}
		// A site with no user frame on its stack (net/http's own writes)
		// is named, not given as the line to change.
		locs := []finding.Location{sc.Location}
		where := ""
		if !isUserFunc(sc.Location.Function) {
			locs = nil
			where = fmt.Sprintf(", in %s with no user frame on the stack", sc.Location.Function)
		}
		f := r.add("SD305", sev,
			fmt.Sprintf("%d syscalls (%.0f/s) came back without their P (%d syscalls here%s)",
				sc.Handoffs, perS, sc.Count, where), why,
			locs,
			append([]finding.Evidence{
				evid("syscalls that lost their P", float64(sc.Handoffs), "syscalls"),
				evid("rate", round2(perS), "/s"),
				evid("syscalls at this site", float64(sc.Count), "syscalls"),
				evid("p50 syscall duration", us(sc.Duration.P50), "µs"),
				evid("p99 syscall duration", us(sc.Duration.P99), "µs"),
				evid("p50 duration of the calls that lost their P", us(sc.HandoffDuration.P50), "µs"),
				evid("Ps taken from syscalls (all sites)", float64(s.Procs.Steals), "steals"),
			}, append(batchEvidence(sc), processCPUEvidence(s)...)...),
			fix)
		if !withheld && s.Procs.ProcessCPU <= 0 {
			f.AddHint(finding.HintProcessCPU, "whether the host withheld CPU is unknown: no CPU samples in the trace; give the process's CPU time over the trace")
		}
	}
}

// batchEvidence is the calls of a syscall site that came through a
// batching I/O frame, when any did.
func batchEvidence(sc SyscallSite) []finding.Evidence {
	if sc.Batched == 0 {
		return nil
	}
	return []finding.Evidence{evid("syscalls through a buffer (bufio, writev)", float64(sc.Batched), "syscalls")}
}
