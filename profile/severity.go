package profile

import "github.com/schedoctor/schedoctor/finding"

// The severity of a busy wait follows what it costs, whatever its shape:
// the code (the source, when it is at hand) decides the name, the cause and
// the fix, the measured CPU decides how loud the finding is. The profile's
// own SD204, the join's source-backed SD204 (diagnose.Profile) and the
// rule docs (finding/catalog_profile.go) all read these constants.
const (
	// SpinWarningCores is the CPU rate from which a busy wait is a
	// warning: a twentieth of a core spent doing nothing is measurable on
	// a CPU bill and takes a P from the goroutines that share it. Below
	// it the finding is info ("cheap at this load"): the same loop warns
	// when the load makes it spin more.
	SpinWarningCores = 0.05
	// SpinCriticalCores and SpinCriticalShare make a busy wait critical:
	// a whole core (less the 5% a profile's sampling loses) that is also
	// most of the program's CPU, so that the spin, not the work, is what
	// the program does (the lab's busyselect: 0.91–1.0 cores, 95–100%).
	SpinCriticalCores = 0.95
	SpinCriticalShare = 60.0
	// SelectCommShare is the share of the CPU in channel communications
	// that complete (Summary.CommShare) under which selectgo with no
	// parking is a spin even when the source is not read: a blocking
	// select whose channel a producer keeps ready completes a
	// communication every time (the lab timerloop's fixed twin: 24–26% of
	// its CPU in chansend, a select's element copy and waiter hand-off,
	// beside 69–84% in select frames), a select that spins completes none
	// (issue 20's busy handler: 2%, beside 90% in selectgo). At or above
	// it, and without the source, selectgo is info: the profile cannot
	// tell the two apart.
	SelectCommShare = 10.0
	// SpinWorkShare is the part of a spinning loop's CPU spent in the
	// calls the loop makes (its work: crypto, encoding, I/O), rather than
	// in the select or Gosched frames and the loop's own instructions,
	// from which the loop is doing its work and not waiting: no busy-wait
	// finding, whatever the loop's shape (a select whose default hashes a
	// buffer: 100% of its CPU in SHA-256, 0% in select).
	SpinWorkShare = 50.0
)

// SpinSeverity is the severity of a busy wait that takes share % of the
// profile's CPU at cores cores.
func SpinSeverity(share, cores float64) finding.Severity {
	switch {
	case cores >= SpinCriticalCores && share >= SpinCriticalShare:
		return finding.Critical
	case cores >= SpinWarningCores:
		return finding.Warning
	}
	return finding.Info
}
