package procs

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// Thresholds of the rules; RuleThresholds quotes them in the rule docs.
const (
	// throttledWarn and throttledCrit are shares of CFS periods throttled.
	throttledWarn = 0.01
	throttledCrit = 0.20
	// minPeriods keeps a cgroup that has barely run from being judged.
	minPeriods = 100
	// pressureWarn is the "some avg60" CPU pressure of the process's own
	// cgroup, in percent, above which its tasks wait for a CPU often enough
	// to matter.
	pressureWarn = 10.0
	// waitShareWarn is the share of its runnable time (wait + run, from its
	// threads' schedstat) the process spent waiting for a CPU, from which
	// SD406 looks at its own figures: the same 10% as the pressure.
	waitShareWarn = 0.10
	// A share alone does not say the CPUs were short: a thread that blocks
	// and wakes thousands of times a second waits for each wake-up to reach
	// a CPU even on an idle machine, and its runs are as short as that
	// wait. Measured on a quiet 2-CPU VM (kernel 6.18): nats-server under
	// light load waited 20–25 µs per timeslice, 47–62% of its runnable
	// time, with 0.13–0.17 threads waiting on average and the CPUs 79–93%
	// idle; a test program waking 10,000 times a second, 18 µs and 0.19
	// threads. With 4 CPU-bound processes beside it the same program waited
	// 177 µs per timeslice with 0.48 threads waiting; a CPU-bound program
	// 1.4–4.8 ms with 0.86–1.39; nats-server at load 12, 0.87 threads.
	// So the wait counts as CPU pressure only when a timeslice waited about
	// as long as another thread's run (waitPerSliceWarn), or when enough
	// threads were waiting at once that the CPUs cannot have been idle
	// (waitingThreadsWarn); otherwise it is wake-up latency, at info.
	waitPerSliceWarn   = 100e-6 // seconds of run-queue wait per timeslice
	waitingThreadsWarn = 0.25   // threads waiting on average over the window
	// memLimitShare is the share of the memory limit to give GOMEMLIMIT.
	memLimitShare = 0.9
	// overCritical is how many times the CPUs available GOMAXPROCS must
	// be for SD401 to be critical.
	overCritical = 2
	// minRunnableShare of a sampling window, or minRunnableLifetime
	// seconds of lifetime counters, is the wait + run time below which
	// the process's own figures are too thin to judge (minRunnable).
	minRunnableShare    = 0.05
	minRunnableLifetime = 1.0
)

// k8sSnippet is the Kubernetes way to give a container GOMAXPROCS equal to
// its CPU limit rounded up (resourceFieldRef rounds up with divisor 1).
const k8sSnippet = `env: [{name: GOMAXPROCS, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: "1"}}}]`

// Findings applies SD401–SD408 to a summary.
func Findings(s *Summary) []finding.Finding {
	var out []finding.Finding
	for _, rule := range []func(*Summary) *finding.Finding{
		aboveCPUs, belowCPUs, defaultOff, throttled, parentTighter, pressure, noMemLimit, oldRuntime,
	} {
		if f := rule(s); f != nil {
			out = append(out, *f)
		}
	}
	out = keepDecided(s, out)
	finding.Sort(out)
	return out
}

func newFinding(rule string) *finding.Finding {
	return &finding.Finding{Rule: rule, Severity: finding.MustLookup(rule).Severity}
}

func loc(files ...string) []finding.Location {
	var out []finding.Location
	seen := map[string]bool{}
	for _, f := range files {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, finding.Location{File: f})
		}
	}
	return out
}

// isGo reports whether the GOMAXPROCS rules apply: a Go binary, or no
// binary at all (the context a Go program would be started in).
func isGo(s *Summary) bool { return s.Binary == nil || !s.Binary.NotGo }

// limitWords describes what sets the CPUs available: "the parent cgroup
// quota of 1.5 CPUs (/sys/fs/cgroup/kubepods/cpu.max)".
func limitWords(c CPUs) string {
	return fmt.Sprintf("the %s of %s", c.AvailableFrom, cpuCount(c.Available))
}

func originFile(s *Summary) string {
	switch s.GOMAXPROCS.Rule {
	case "env":
		return s.Env.File
	case "automaxprocs", "default-cpus", "call":
		if s.Binary != nil {
			return s.Binary.Path
		}
	}
	return ""
}

// setFix is the fix line that sets GOMAXPROCS to n.
func setFix(n int) string {
	return fmt.Sprintf("set GOMAXPROCS=%d in the environment (Kubernetes: %s)", n, k8sSnippet)
}

// SD401: more Ps than CPUs.
func aboveCPUs(s *Summary) *finding.Finding {
	g, c := s.GOMAXPROCS, s.CPUs
	limit := ceilCPUs(c.Available)
	if !isGo(s) || g.Value == 0 || c.Available <= 0 || g.Value <= limit {
		return nil
	}
	// The 1.25+ default deliberately keeps at least 2 Ps under a small
	// quota; that is the runtime's choice, not a misconfiguration.
	if g.Rule == "default-container" && g.Value <= 2 {
		return nil
	}
	f := newFinding("SD401")
	if g.Value < overCritical*limit {
		f.Severity = finding.Warning
	}
	var because, fix string
	switch g.Rule {
	case "env":
		because = fmt.Sprintf("GOMAXPROCS=%s is set in the environment", *s.Env.GOMAXPROCS)
		fix = fmt.Sprintf("remove GOMAXPROCS from the environment (Go 1.25+ with go ≥ 1.25 then follows the limit) or %s", setFix(g.Recommended))
	case "automaxprocs":
		because = "go.uber.org/automaxprocs sets it from the leaf quota alone, rounded down, ignoring cpusets and parent limits"
		fix = fmt.Sprintf("%s; or drop go.uber.org/automaxprocs and build with Go 1.25+ (go ≥ 1.25 in go.mod)", setFix(g.Recommended))
	case "default-cpus":
		because = "the runtime takes " + g.Reason
		fix = fmt.Sprintf("build with Go 1.25+ and go ≥ 1.25 in go.mod (go mod edit -go=1.25), or %s", setFix(g.Recommended))
	case "default-container":
		because = "the runtime reads only the leaf cgroup's limit, and " + limitWords(c) + " is not the leaf's"
		if c.AvailableFrom == "cpuset" || c.AvailableFrom == "affinity" {
			because = "the CPU set changed after the program computed it (" + limitWords(c) + ")"
		}
		fix = setFix(g.Recommended)
	case "call":
		because = "the program sets it itself: " + g.Reason
		fix = fmt.Sprintf("remove the runtime.GOMAXPROCS call (or call runtime.SetDefaultGOMAXPROCS), or %s", setFix(g.Recommended))
	}
	f.What = fmt.Sprintf("GOMAXPROCS %d is above the %s available", g.Value, cpuCount(c.Available))
	f.Because = because
	f.Locations = loc(c.AvailableFile, originFile(s))
	f.Evidence = []finding.Evidence{
		{Label: "GOMAXPROCS (" + g.Origin + ")", Value: float64(g.Value), Unit: "Ps"},
		{Label: "CPUs available (" + c.AvailableFrom + ")", Value: c.Available, Unit: "CPUs"},
		{Label: "Ps per CPU", Value: math.Round(float64(g.Value)/c.Available*100) / 100, Unit: "x"},
		{Label: "recommended GOMAXPROCS", Value: float64(g.Recommended), Unit: "Ps"},
	}
	f.Fix = fix
	return f
}

// SD402: pinned below the CPUs available.
func belowCPUs(s *Summary) *finding.Finding {
	g, c := s.GOMAXPROCS, s.CPUs
	if !isGo(s) || g.Value == 0 || c.Available <= 0 || (g.Rule != "env" && g.Rule != "call" && g.Rule != "automaxprocs") {
		return nil
	}
	usable := int(math.Floor(c.Available + 1e-9))
	if g.Value >= usable {
		return nil
	}
	f := newFinding("SD402")
	because := g.Reason
	fix := fmt.Sprintf("remove the setting so the runtime picks %d, or set GOMAXPROCS=%d", g.DefaultWouldBe, g.Recommended)
	switch g.Rule {
	case "env":
		because = fmt.Sprintf("GOMAXPROCS=%s is set in the environment", *s.Env.GOMAXPROCS)
		fix = fmt.Sprintf("remove GOMAXPROCS=%s from the environment, or set GOMAXPROCS=%d", *s.Env.GOMAXPROCS, g.Recommended)
	case "call":
		fix = fmt.Sprintf("find the runtime.GOMAXPROCS call (the program's or a library's) and remove it, or call runtime.SetDefaultGOMAXPROCS() after it, so the runtime picks %d", g.DefaultWouldBe)
	}
	f.What = fmt.Sprintf("GOMAXPROCS %d leaves %s of %s unused", g.Value,
		cpus(c.Available-float64(g.Value)), cpuCount(c.Available))
	f.Because = because
	f.Locations = loc(originFile(s), c.AvailableFile)
	f.Evidence = []finding.Evidence{
		{Label: "GOMAXPROCS (" + g.Origin + ")", Value: float64(g.Value), Unit: "Ps"},
		{Label: "CPUs available (" + c.AvailableFrom + ")", Value: c.Available, Unit: "CPUs"},
	}
	f.Fix = fix
	return f
}

// SD403: the container-aware default is off under a CPU limit that it would
// follow.
func defaultOff(s *Summary) *finding.Finding {
	b, g := s.Binary, s.GOMAXPROCS
	if b == nil || !b.IsGo || math.IsInf(s.available.leafQuota, 1) {
		return nil
	}
	affinity := max(s.CPUs.Affinity, 1)
	if g.DefaultWouldBe >= affinity {
		return nil // the limit would not lower the default: nothing lost
	}
	var reasons, fixes []string
	where := b.Path
	if b.Minor > 0 && b.Minor < 25 {
		reasons = append(reasons, fmt.Sprintf("the binary was built with %s, before Go 1.25", b.GoVersion))
		fixes = append(fixes, "rebuild with Go 1.25 or later and go ≥ 1.25 in go.mod (go mod edit -go=1.25)")
	} else if b.ContainerMaxProcs == "0" {
		src := containerOffWhere(s)
		reasons = append(reasons, "containermaxprocs=0 ("+src+")")
		if strings.HasPrefix(src, "GODEBUG") {
			fixes = append(fixes, "remove containermaxprocs=0 from GODEBUG")
			where = s.Env.File
		} else {
			fixes = append(fixes, "raise the go line to 1.25 or later (go mod edit -go=1.25) and rebuild")
		}
	}
	if b.Automaxprocs != "" {
		reasons = append(reasons, "it links go.uber.org/automaxprocs "+b.Automaxprocs+", whose runtime.GOMAXPROCS call turns the default and its updates off")
		fixes = append(fixes, "drop the go.uber.org/automaxprocs import")
	}
	if v := s.Env.GOMAXPROCS; v != nil && g.Rule == "env" && g.Computed != g.Recommended {
		reasons = append(reasons, fmt.Sprintf("GOMAXPROCS=%s is set in the environment", *v))
		fixes = append(fixes, "unset GOMAXPROCS")
	}
	if len(reasons) == 0 {
		return nil
	}
	f := newFinding("SD403")
	f.What = fmt.Sprintf("the container-aware GOMAXPROCS default (%d under the leaf quota of %s) is off; the process gets %d",
		g.DefaultWouldBe, cpuCount(s.available.leafQuota), g.Value)
	f.Because = strings.Join(reasons, ", and ")
	f.Locations = loc(where, s.Cgroup.Levels[0].QuotaFile)
	f.Evidence = []finding.Evidence{
		{Label: "toolchain Go minor version", Value: float64(b.Minor), Unit: ""},
		{Label: "GOMAXPROCS (" + g.Origin + ")", Value: float64(g.Value), Unit: "Ps"},
		{Label: "container-aware default", Value: float64(g.DefaultWouldBe), Unit: "Ps"},
		{Label: "leaf CPU quota", Value: s.available.leafQuota, Unit: "CPUs"},
	}
	if b.GoLine.Known {
		f.Evidence = append(f.Evidence, finding.Evidence{Label: "go line upper bound from DefaultGODEBUG (minor version)", Value: float64(b.GoLine.Max)})
	}
	f.Fix = strings.Join(fixes, "; ")
	return f
}

// SD404: CFS throttling at any level.
func throttled(s *Summary) *finding.Finding {
	var worst *Throttling
	var worstRatio float64
	for _, l := range s.Cgroup.Levels {
		t := l.Throttling
		if t == nil || t.Periods < minPeriods {
			continue
		}
		if r := float64(t.Throttled) / float64(t.Periods); r >= throttledWarn && r > worstRatio {
			worst, worstRatio = t, r
		}
	}
	if worst == nil {
		return nil
	}
	f := newFinding("SD404")
	if worstRatio >= throttledCrit {
		f.Severity = finding.Critical
	}
	f.What = fmt.Sprintf("%.1f%% of CFS periods throttled (%d of %d, %.1f s stalled in all)", worstRatio*100, worst.Throttled, worst.Periods,
		worst.ThrottledSeconds)
	f.Because = fmt.Sprintf("the cgroup uses up its quota before the period ends; GOMAXPROCS %d against %s",
		s.GOMAXPROCS.Value, cpuCount(s.CPUs.Available))
	f.Locations = loc(worst.File)
	f.Evidence = []finding.Evidence{
		{Label: "periods throttled", Value: math.Round(worstRatio*1000) / 10, Unit: "%"},
		{Label: "nr_throttled", Value: float64(worst.Throttled), Unit: "periods"},
		{Label: "nr_periods", Value: float64(worst.Periods), Unit: "periods"},
		{Label: "throttled time (since the cgroup was created)", Value: math.Round(worst.ThrottledSeconds*1000) / 1000, Unit: "s"},
	}
	fix := fmt.Sprintf("raise the CPU limit, or remove it and keep the request (Kubernetes: resources: {requests: {cpu: \"%s\"}} with no limits.cpu)",
		cpus(s.CPUs.Available))
	if s.GOMAXPROCS.Value > s.GOMAXPROCS.Recommended {
		fix = fmt.Sprintf("match GOMAXPROCS to the quota (GOMAXPROCS=%d); then %s", s.GOMAXPROCS.Recommended, fix)
	}
	f.Fix = fix
	return f
}

// SD405: an ancestor's limit is tighter than the leaf's and changes the answer.
func parentTighter(s *Summary) *finding.Finding {
	i := s.available.tightestIdx
	if i <= 0 || s.available.tightest >= s.available.leafQuota {
		return nil
	}
	tight := ceilCPUs(s.available.tightest)
	if tight >= s.GOMAXPROCS.DefaultWouldBe {
		return nil // rounding up makes it the same
	}
	l, leaf := s.Cgroup.Levels[i], s.Cgroup.Levels[0]
	leafWords := "has no limit"
	if leaf.LimitCPUs > 0 {
		leafWords = "allows " + cpuCount(leaf.LimitCPUs)
	}
	f := newFinding("SD405")
	f.What = fmt.Sprintf("parent cgroup %s limits CPUs to %s while the leaf %s %s",
		l.Dir, cpuCount(l.LimitCPUs), leaf.Dir, leafWords)
	f.Because = fmt.Sprintf("the Go runtime and automaxprocs read only the leaf, so the default is %d", s.GOMAXPROCS.DefaultWouldBe)
	f.Locations = loc(l.QuotaFile, leaf.QuotaFile)
	f.Evidence = []finding.Evidence{
		{Label: "parent limit", Value: l.LimitCPUs, Unit: "CPUs"},
		{Label: "default GOMAXPROCS from the leaf", Value: float64(s.GOMAXPROCS.DefaultWouldBe), Unit: "Ps"},
		{Label: "levels above the leaf", Value: float64(i), Unit: ""},
	}
	if leaf.LimitCPUs > 0 {
		f.Evidence = append(f.Evidence, finding.Evidence{Label: "leaf limit", Value: leaf.LimitCPUs, Unit: "CPUs"})
	}
	f.Fix = fmt.Sprintf("%s; or put the limit on the container itself (resources: {limits: {cpu: \"%s\"}})", setFix(tight), cpus(l.LimitCPUs))
	return f
}

// SD406: the process waits for a CPU. It fires on the process's own
// figures: its threads' run-queue wait (schedstat) and its own cgroup's
// cpu.pressure. The host's /proc/pressure/cpu is context only: on a busy
// machine a process with CPU to spare waits 0 ns, and it is not its finding.
// A large share of waiting that comes from many short waits (wake-up
// latency) is reported at info: more CPU would not remove it.
func pressure(s *Summary) *finding.Finding {
	own, host, w := s.Cgroup.Pressure, s.Cgroup.HostPressure, s.CPUWait
	waitKnown := w != nil && w.WaitSeconds+w.RunSeconds >= minRunnable(w)
	waitShare := waitKnown && w.Share >= waitShareWarn
	waitHigh := waitShare && cpuShort(w)
	// Wake-up latency needs the timeslice count to be named as such.
	wakeLatency := waitShare && !waitHigh && w.Timeslices > 0
	ownHigh := own != nil && own.Avg60 >= pressureWarn
	if !waitHigh && !ownHigh && !wakeLatency {
		return nil
	}
	f := newFinding("SD406")
	switch {
	case waitHigh:
		f.What = fmt.Sprintf("%.0f%% of the time its threads wanted a CPU, process %d waited on a run queue (%s waiting against %s running, %s)",
			100*w.Share, s.Target.PID, secs(w.WaitSeconds), secs(w.RunSeconds), waitScope(w))
		f.Because = fmt.Sprintf("the CPUs it may use were running other threads when it wanted one (%s): delay outside Go's scheduler",
			shortWords(w))
		f.Locations = loc(w.Files)
	case wakeLatency && !ownHigh:
		f.Severity = finding.Info
		f.What = fmt.Sprintf("%.0f%% of the time its threads wanted a CPU, process %d waited %s per timeslice on a run queue",
			100*w.Share, s.Target.PID, micros(w.WaitPerTimeslice))
		f.Because = fmt.Sprintf("its threads block and wake often%s and each wake-up waits that "+
			"long to reach a CPU (%s waiting against %s running in %d timeslices, %s): wake-up latency, not CPU pressure (%s)",
			wakeRate(w), secs(w.WaitSeconds), secs(w.RunSeconds), w.Timeslices, waitScope(w), notShortWords(w))
		f.Locations = loc(w.Files)
	default:
		f.What = fmt.Sprintf("%.1f%% of the last minute a task of its own cgroup %s waited for a CPU (cpu.pressure some avg60)",
			own.Avg60, path.Dir(own.File))
		f.Because = "the cgroup's tasks wanted more CPU than they got: delay outside Go's scheduler"
		f.Locations = loc(own.File)
		switch {
		case wakeLatency:
			// The cgroup's stall may be this process's own wake-ups: PSI
			// counts a woken task as stalled until it runs.
			f.Severity = finding.Info
			f.Note(finding.NoteQualifier, fmt.Sprintf("but this process's own threads waited %s per timeslice (%s), %s: wake-up latency, "+
				"which the cgroup's pressure also counts, not CPU pressure", micros(w.WaitPerTimeslice), waitScope(w), notShortWords(w)))
		case waitKnown && !waitShare:
			// The cgroup is under pressure but this process barely waited:
			// the pressure is its neighbours'. Say so, at info.
			f.Severity = finding.Info
			f.Note(finding.NoteQualifier, fmt.Sprintf("but this process's own threads waited only %.1f%% of the time they wanted a CPU (%s), so the "+
				"pressure falls on other tasks of the cgroup", 100*w.Share, waitScope(w)))
		}
	}
	if own != nil {
		f.Evidence = append(f.Evidence,
			finding.Evidence{Label: "own cgroup cpu.pressure some avg10", Value: own.Avg10, Unit: "%"},
			finding.Evidence{Label: "own cgroup cpu.pressure some avg60", Value: own.Avg60, Unit: "%"},
			finding.Evidence{Label: "own cgroup cpu.pressure some avg300", Value: own.Avg300, Unit: "%"},
			finding.Evidence{Label: "own cgroup stall total", Value: math.Round(float64(own.TotalUS)/1e3) / 1e3, Unit: "s"})
	}
	if w != nil {
		f.Evidence = append(f.Evidence,
			finding.Evidence{Label: "process run-queue wait (schedstat field 2)", Value: round3(w.WaitSeconds), Unit: "s"},
			finding.Evidence{Label: "process time on a CPU (schedstat field 1)", Value: round3(w.RunSeconds), Unit: "s"},
			finding.Evidence{Label: "share of runnable time spent waiting", Value: round3(100 * w.Share), Unit: "%"},
			finding.Evidence{Label: "timeslices run (schedstat field 3)", Value: float64(w.Timeslices), Unit: "timeslices"})
		if w.Timeslices > 0 {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Label: "run-queue wait per timeslice", Value: round3(w.WaitPerTimeslice * 1e6), Unit: "µs"})
		}
		f.Evidence = append(f.Evidence,
			finding.Evidence{Label: "threads read", Value: float64(w.Threads), Unit: "threads"})
		if w.WindowSeconds > 0 {
			f.Evidence = append(f.Evidence,
				finding.Evidence{Label: "sampling window", Value: round3(w.WindowSeconds), Unit: "s"},
				finding.Evidence{Label: "threads waiting for a CPU on average", Value: round3(w.WaitingThreads), Unit: "threads"})
		}
	}
	if host != nil {
		f.Evidence = append(f.Evidence, finding.Evidence{Label: "host cpu.pressure some avg60 (context: the whole machine, not this process)", Value: host.Avg60, Unit: "%"})
	}
	f.Fix = "give the workload more CPU (a higher limit or request), move what shares its CPUs elsewhere, or lower GOMAXPROCS if the process itself oversubscribes them"
	if f.Severity == finding.Info {
		f.Fix = "nothing to change in this process for CPU wait; if its neighbours in the cgroup matter, give the cgroup more CPU or move them"
		if wakeLatency {
			f.Fix = "no CPU to add: the wait is the latency of many short wake-ups, which more CPU does not shorten; fewer, larger " +
				"wake-ups (batching work per wake-up) cut it; re-run under the load that matters to see whether it turns into CPU pressure"
			f.AddHint(finding.HintWindow, "a longer sampling window under that load")
		}
	}
	return f
}

// cpuShort reports whether the process's wait, already a large share of
// its runnable time, shows CPUs busy with other threads rather than the
// latency of its own frequent wake-ups.
func cpuShort(w *CPUWait) bool {
	return (w.Timeslices > 0 && w.WaitPerTimeslice >= waitPerSliceWarn) ||
		(w.WindowSeconds > 0 && w.WaitingThreads >= waitingThreadsWarn)
}

// shortWords names the figure that showed the CPUs short.
func shortWords(w *CPUWait) string {
	var parts []string
	if w.Timeslices > 0 && w.WaitPerTimeslice >= waitPerSliceWarn {
		parts = append(parts, fmt.Sprintf("%s of wait per timeslice in %d timeslices, more than a wake-up on an idle CPU takes",
			micros(w.WaitPerTimeslice), w.Timeslices))
	}
	if w.WindowSeconds > 0 && w.WaitingThreads >= waitingThreadsWarn {
		parts = append(parts, fmt.Sprintf("%.2f threads waiting at once on average", w.WaitingThreads))
	}
	return strings.Join(parts, "; ")
}

// notShortWords says which thresholds the wait stayed under.
func notShortWords(w *CPUWait) string {
	s := fmt.Sprintf("under %s per timeslice", micros(waitPerSliceWarn))
	if w.WindowSeconds > 0 {
		s += fmt.Sprintf(" and under %.2f threads waiting on average", waitingThreadsWarn)
	}
	return s
}

// wakeRate is ", N times a second" over a window, or "" for lifetimes.
func wakeRate(w *CPUWait) string {
	if w.WindowSeconds <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f times a second)", float64(w.Timeslices)/w.WindowSeconds)
}

func micros(v float64) string {
	if v >= 1e-3 {
		return fmt.Sprintf("%.1fms", v*1e3)
	}
	return fmt.Sprintf("%.0fµs", v*1e6)
}

// minRunnable is the wait + run time below which the process's own figures
// are too thin to judge: an idle process's 1 ms of wait in 5 ms of work is
// no share to act on.
func minRunnable(w *CPUWait) float64 {
	if w.WindowSeconds > 0 {
		return minRunnableShare * w.WindowSeconds
	}
	return minRunnableLifetime
}

func waitScope(w *CPUWait) string {
	if w.WindowSeconds > 0 {
		return fmt.Sprintf("over %s, %.2f threads waiting on average", secs(w.WindowSeconds), w.WaitingThreads)
	}
	return fmt.Sprintf("over the lifetimes of its %d threads", w.Threads)
}

func secs(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.0fms", v*1e3)
	}
	return fmt.Sprintf("%.1fs", v)
}

func round3(v float64) float64 { return math.Round(v*1e3) / 1e3 }

// hostPressureNote says, when no figure of the process's own is at hand,
// that the host's pressure was seen and is context, not a finding.
func hostPressureNote(s *Summary) string {
	h := s.Cgroup.HostPressure
	if h == nil || s.Cgroup.Pressure != nil || s.CPUWait != nil {
		return ""
	}
	return fmt.Sprintf("only host-wide CPU pressure is available (%s: some avg60 %.2f%%): it is the whole machine's, context and not "+
		"this process's, so SD406 does not judge it; the live process's own run-queue wait would", h.File, h.Avg60)
}

// Hints asks for the live process when only the host's pressure was seen
// (hostPressureNote): its own threads' wait is what SD406 judges.
func (s *Summary) Hints() []finding.Note {
	if hostPressureNote(s) == "" {
		return nil
	}
	return []finding.Note{finding.HintNote(finding.HintPID, "measure the live process's own run-queue wait")}
}

// SD407: a memory limit and no GOMEMLIMIT.
func noMemLimit(s *Summary) *finding.Finding {
	m := s.Memory
	if m == nil || !isGo(s) || !s.Env.Read || s.Env.GOMEMLIMIT != nil {
		return nil
	}
	target := uint64(float64(m.LimitBytes) * memLimitShare)
	mib := target >> 20
	f := newFinding("SD407")
	f.What = fmt.Sprintf("memory limit %s with no GOMEMLIMIT", bytesWords(m.LimitBytes))
	f.Because = "the GC paces by GOGC alone, so a heap that grows toward the limit is OOM-killed instead of collected harder"
	f.Locations = loc(m.File, s.Env.File)
	f.Evidence = []finding.Evidence{
		{Label: "memory limit", Value: float64(m.LimitBytes >> 20), Unit: "MiB"},
		{Label: "suggested GOMEMLIMIT (90%)", Value: float64(mib), Unit: "MiB"},
	}
	f.Fix = fmt.Sprintf("set GOMEMLIMIT=%dMiB (about 90%% of the limit)", mib)
	if b := s.Binary; b != nil && b.IsGo && b.Minor > 0 && b.Minor < 19 {
		f.Fix += "; GOMEMLIMIT needs Go 1.19 or later: rebuild with a current Go"
	}
	return f
}

func bytesWords(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// SD408: an old runtime.
func oldRuntime(s *Summary) *finding.Finding {
	b := s.Binary
	if b == nil || !b.IsGo || b.Minor == 0 || b.Minor >= 25 {
		return nil
	}
	var missing []string
	if b.Minor < 14 {
		missing = append(missing, "asynchronous preemption (1.14)", "per-P timers (1.14)")
	}
	if b.Minor < 23 {
		missing = append(missing, "collected unstopped timers and unbuffered timer channels (1.23)")
	}
	missing = append(missing, "container-aware GOMAXPROCS (1.25)")
	f := newFinding("SD408")
	f.What = fmt.Sprintf("the binary was built with %s, which lacks %s", b.GoVersion, strings.Join(missing, ", "))
	f.Locations = loc(b.Path)
	f.Evidence = []finding.Evidence{{Label: "toolchain Go minor version", Value: float64(b.Minor)}}
	f.Fix = "rebuild with a current Go release (1.25 or later), with go ≥ 1.25 in go.mod"
	return f
}
