package profile

// What makes a profile's busy wait: the thresholds of its severity are
// finding.SpinWarningCores, SpinCriticalCores and SpinCriticalShare
// (finding.SpinSeverity), shared with the trace; these are the profile's
// own; RuleThresholds quotes them in the rule docs.
const (
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

// The other rules' severity (add): critical at criticalShareTimes the
// rule's share and criticalCores cores or more, so that a cause that takes
// twice its threshold of a whole core's CPU is what the program does.
const (
	criticalShareTimes = 2.0
	criticalCores      = 1.0
)

// handoffDriverShare is the share of SD201's wake-ups that channel
// operations must drive for the park/wake cost to be the price of a
// one-item-per-operation hand-off (info), not churn to fix.
const handoffDriverShare = 50.0
