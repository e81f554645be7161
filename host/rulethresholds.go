package host

import "github.com/schedoctor/schedoctor/finding"

// RuleThresholds are the numbers of the rules this package detects, by
// rule ID, as the rule docs show them (internal/ruledocs joins them with
// the catalog). Each value is one of the constants the code compares with,
// never a copy: change a constant and the docs follow.
func RuleThresholds() map[string][]finding.Threshold {
	return map[string][]finding.Threshold{
		"SD602": {
			{Name: "net.core.somaxconn, tcp_max_syn_backlog or a listener's backlog", Value: backlogFloor, Meaning: "below it (and below the target): reported"},
			finding.Percent("a listener's accept queue, of somaxconn", queueFull, "reported"),
		},
		"SD604": {
			finding.Percent("conntrack table in use", conntrackFullShare, "reported, whatever the target"),
		},
		"SD608": {
			{Name: "sockets in CLOSE_WAIT at once", Value: closeWaitPile, Meaning: "reported"},
			{Name: "sockets in CLOSE_WAIT for the whole -watch", Value: closeWaitStuck, Meaning: "reported"},
			{Name: "descriptors added over the watch", Value: fdGrowthMin, Meaning: "needed for growth"},
			finding.Percent("relative descriptor growth", fdGrowthShare, "needed as well"),
		},
	}
}
