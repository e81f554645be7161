package report

import (
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// There is no `schedoctor live` subcommand: a rule page must name the live
// package, and say that check reports a live-only rule through the monitor.
func TestRulePageNamesWhatDetects(t *testing.T) {
	for _, id := range []string{"SD701", "SD702"} {
		r, ok := finding.Lookup(id)
		if !ok {
			t.Fatalf("%s not in the catalog", id)
		}
		var b strings.Builder
		if err := RuleMarkdown(&b, r); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if strings.Contains(page, "`schedoctor live`") {
			t.Errorf("%s page names a subcommand that does not exist:\n%s", id, page[:200])
		}
		if !strings.Contains(page, "the `live` package") {
			t.Errorf("%s page does not name the live package", id)
		}
		viaMonitor := strings.Contains(page, "`schedoctor check` (from the service's live monitor)")
		// SD701 is also found by check's own goroutine dumps; SD702 only by the monitor.
		if want := id == "SD702"; viaMonitor != want {
			t.Errorf("%s: check qualified as through the monitor = %v, want %v", id, viaMonitor, want)
		}
	}
}
