package exectrace

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the constants the code above compares
// with, never a copy: change a constant and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD301": {
			{Name: "p99 of the starts after a wait", Value: ms(latencyP99), Unit: "ms", Meaning: "warning, with enough starts"},
			{Name: "starts after a wait", Value: latencyMinimum, Meaning: "needed for the warning"},
			{Name: "p99 of a thinner tail", Value: ms(tailP99), Unit: "ms", Meaning: "info, with enough starts"},
			{Name: "starts in that tail", Value: tailMinimum, Meaning: "needed for the info"},
			{Name: "Ps' busy time held by goroutines that run until preempted", Value: spinExplainPct, Unit: "%", Meaning: "they are named as the cause (a spin or compute)"},
			{Name: "share of the starts after a wait woken by one heavy waker (SD316)", Value: wakerTailPct, Unit: "%", Meaning: "the waker is named as the cause, with the next"},
			{Name: "its wakees' p99 against the trace's", Value: wakerTailP99Pct, Unit: "%", Meaning: "at least, with the previous"},
		},
		"SD302": {
			{Name: "time with more runnable goroutines than GOMAXPROCS", Value: backlogPct, Unit: "%", Meaning: "reported"},
			{Name: "starts after a wait, or creations", Value: latencyMinimum, Meaning: "needed for a warning"},
			{Name: "their p99 (after a wait) or median (before the first run)", Value: ms(backlogWokenP99), Unit: "ms", Meaning: "warning; info when only preempted goroutines queue"},
			{Name: "Ps' busy time held by goroutines that run until preempted", Value: spinExplainPct, Unit: "%", Meaning: "the spin is named as the cause"},
			{Name: "runnable time after a wake-up held by sync wake-ups (with an SD309 lock) or by sleeps (with an SD307 site)", Value: convoyPct, Unit: "%", Meaning: "the lock convoy or the sleep poll is named as the cause"},
		},
		"SD303": {
			{Name: "busy Ps over the CPUs given with -cpus", Value: oversubscribed, Unit: "×", Meaning: "reported"},
			{Name: "busy Ps over the CPU the process really got", Value: withheldPct, Unit: "%", Meaning: "reported: the host withheld the CPU"},
			{Name: "busy Ps beyond the CPU the process got", Value: withheldPs, Unit: "P", Meaning: "needed as well"},
			{Name: "syscall that lost its P, or lasted this long", Value: us(syscallWaits), Unit: "µs", Meaning: "its P is not counted busy (it waits, running no Go code)"},
			{Name: "CPU samples in the trace", Value: samplesMinimum, Meaning: "needed to measure the process's CPU from them"},
			{Name: "one sample's CPU", Value: ms(samplePeriod), Unit: "ms", Meaning: "runtime/pprof's rate"},
			finding.Percent("share of the trace the samples spread over", sampleSpanShare, "needed as well; else -process-cpu is used"),
		},
		"SD304": {
			{Name: "starts of one creation site", Value: migrationStarts, Meaning: "needed"},
			{Name: "thread migrations", Value: migrationPerS, Unit: "/s", Meaning: "needed"},
			{Name: "starts on another thread", Value: migrationPct, Unit: "%", Meaning: "reported (info)"},
		},
		"SD305": {
			{Name: "returns without the P at one site", Value: handoffMin, Meaning: "needed"},
			{Name: "rate of such returns", Value: handoffPerS, Unit: "/s", Meaning: "reported"},
			{Name: "median time of the calls that lost their P", Value: us(syscallWaits), Unit: "µs", Meaning: "at or above: a wait, info"},
			{Name: "share of the site's calls that lost the P", Value: handoffTailPct, Unit: "%", Meaning: "below, with quick calls: info"},
			{Name: "median of quick calls", Value: us(handoffQuick), Unit: "µs", Meaning: "below, with a small share: info"},
			{Name: "calls a second from one site", Value: syscallsBatch, Unit: "/s", Meaning: "batching advised whatever the share"},
			{Name: "CPU of the calls themselves (rate × median)", Value: syscallsBatchCores, Unit: "cores", Meaning: "warning"},
		},
		"SD306": {
			{Name: "stop-the-world share of wall time", Value: stwPct, Unit: "%", Meaning: "reported"},
			{Name: "mark assists' share of the Ps' time", Value: assistPct, Unit: "%", Meaning: "reported"},
			{Name: "one stop-the-world pause", Value: ms(stwLong), Unit: "ms", Meaning: "listed (info) with its time"},
		},
		"SD307": {
			{Name: "back-to-back sleeps at one site", Value: sleepRepeats, Meaning: "needed"},
			{Name: "rate of back-to-back sleeps", Value: sleepRepeatsPerS, Unit: "/s", Meaning: "needed"},
			{Name: "median sleep", Value: ms(sleepShort), Unit: "ms", Meaning: "at or below: reported"},
		},
		"SD308": {
			{Name: "yields", Value: yieldsPerS, Unit: "/s", Meaning: "warning, with the next two"},
			{Name: "yields per block", Value: stopsPerBlock, Meaning: "needed for the warning"},
			{Name: "running time ended by yields", Value: spinRunningPct, Unit: "%", Meaning: "needed for the warning"},
			{Name: "syscall that counts as a block (or one losing its P)", Value: us(syscallWaits), Unit: "µs", Meaning: "a wait, not a spin"},
			{Name: "site's CPU samples in select or yield code", Value: spinCodePct, Unit: "%", Meaning: "a spin however its stretches end (severity by cost)"},
			{Name: "CPU samples needed", Value: samplesMinimum, Meaning: "for the sample-based judgements"},
			{Name: "loop's CPU samples in the calls it makes", Value: workCodePct, Unit: "%", Meaning: "it works: info, not a busy wait"},
			{Name: "running time in stretches ended by preemption or a yield", Value: spinStopPct, Unit: "%", Meaning: "compute or a spin (info from the trace alone)"},
			{Name: "mean Ps the site runs", Value: spinMinCores, Unit: "P", Meaning: "needed for that"},
			{Name: "times stopped", Value: preemptMinimum, Meaning: "needed for that"},
			{Name: "spin's cost in Ps", Value: finding.SpinWarningCores, Unit: "P", Meaning: "warning from here, info below"},
			{Name: "spin's cost in Ps (with the share below)", Value: finding.SpinCriticalCores, Unit: "P", Meaning: "critical"},
			{Name: "spin's share of the Ps' busy time", Value: finding.SpinCriticalShare, Unit: "%", Meaning: "critical, with the cost above"},
		},
		"SD315": {
			{Name: "window", Value: ms(DefaultSpikeWindow), Unit: "ms", Meaning: "the trace is cut into windows this wide (-window)"},
			{Name: "p99 latency of a window's starts after a wait or a creation", Value: ms(DefaultSpikeP99), Unit: "ms", Meaning: "marks the window (-spike-p99)"},
			{Name: "starts in the window", Value: spikeMinStarts, Meaning: "needed for its p99 to mark it"},
			{Name: "runnable goroutines at the window's peak, per P", Value: DefaultSpikeRunnable, Unit: "×GOMAXPROCS", Meaning: "marks the window (-spike-runnable)"},
			{Name: "runnable goroutines at the peak, whatever GOMAXPROCS", Value: spikeRunnableFloor, Meaning: "needed as well"},
			{Name: "times the baseline window's p99 (or runnable peak)", Value: spikeOverBaseline, Unit: "×", Meaning: "a marked window must stand out by this much"},
			finding.Percent("quantile of the trace's windows that is the baseline", spikeBaseline, "the quieter quarter"),
			{Name: "windows in the trace", Value: spikeMinWindows, Meaning: "needed for a baseline"},
			finding.Percent("cause's share of the time spent runnable in a spike", spikeCauseShare, "needed to name it; else the spike is mixed"),
			{Name: "goroutines a burst cause made runnable, and the runnable peak, per P", Value: spikeBurstPerP, Unit: "×GOMAXPROCS", Meaning: "needed to name a creation site or a waker"},
			{Name: "the same, whatever GOMAXPROCS", Value: spikeBurstFloor, Meaning: "needed as well"},
			{Name: "median p99 of one cause's spikes", Value: ms(spikeWarnP99), Unit: "ms", Meaning: "warning, with the next"},
			{Name: "spikes of one cause", Value: spikeMinRepeats, Meaning: "needed for the warning, unless one lasts the next"},
			{Name: "one spike's length", Value: ms(spikeLongSpike), Unit: "ms", Meaning: "a warning alone"},
		},
		"SD316": {
			{Name: "goroutines woken in one burst", Value: heavyBurstMin, Meaning: "a heavy burst, with the next"},
			{Name: "goroutines woken in one burst, per P", Value: heavyBurstProcs, Unit: "×GOMAXPROCS", Meaning: "a heavy burst, with the previous"},
			{Name: "gap between two wake-ups of one burst", Value: us(burstGap), Unit: "µs", Meaning: "at most"},
			{Name: "heavy bursts at one line", Value: heavyBurstRepeats, Meaning: "reported"},
			{Name: "p99 latency of the goroutines it woke", Value: ms(heavyWarnP99), Unit: "ms", Meaning: "warning; info below"},
		},
		"SD309": {
			{Name: "waits at one lock site", Value: lockMinimum, Meaning: "needed"},
			{Name: "goroutines waiting there on average", Value: lockWaiting, Meaning: "reported"},
		},
	}
}
