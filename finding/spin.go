package finding

// The severity of a busy wait follows what it costs, whatever its shape:
// the code (the source, when it is at hand) decides the name, the cause and
// the fix; the measured CPU decides how loud the finding is. The profile's
// SD204 (profile and diagnose.Profile) and the trace's SD308 read these
// constants, and the rule docs quote them through those sources'
// RuleThresholds.
const (
	// SpinWarningCores is the CPU rate from which a busy wait is a
	// warning: a twentieth of a core spent doing nothing is measurable on
	// a CPU bill and takes a P from the goroutines that share it. Below
	// it the finding is info ("cheap at this load"): the same loop warns
	// when the load makes it spin more.
	SpinWarningCores = 0.05
	// SpinCriticalCores and SpinCriticalShare make a busy wait critical:
	// a whole core (less the 5% a profile's sampling loses) that is also
	// most of the program's CPU (a trace: of the Ps' busy time), so that
	// the spin, not the work, is what the program does (the lab's
	// busyselect: 0.91–1.0 cores, 95–100%).
	SpinCriticalCores = 0.95
	SpinCriticalShare = 60.0
)

// SpinSeverity is the severity of a busy wait that takes share % of the
// program's CPU (or of the Ps' busy time) at cores cores.
func SpinSeverity(share, cores float64) Severity {
	switch {
	case cores >= SpinCriticalCores && share >= SpinCriticalShare:
		return Critical
	case cores >= SpinWarningCores:
		return Warning
	}
	return Info
}
