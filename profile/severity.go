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
	// SelectAloneShare is the share of the CPU in select frames (selectgo,
	// sellock and the runtime lock under them) from which a profile with
	// no source warns. Below it a select with a default that spins cannot
	// be told from a blocking select whose channel is always ready, and the
	// finding is info; above it nothing else runs enough to keep a channel
	// ready, so whatever the select's shape the CPU goes to selecting: a
	// producer and a consumer whose select always finds a message (the lab
	// timerloop's fixed twin) put 69% there, the busy handler of issue 20
	// 95%.
	SelectAloneShare = 85.0
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
