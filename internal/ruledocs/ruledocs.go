// Package ruledocs joins the rule catalog with the thresholds of the
// sources that detect each rule, and renders docs/rules from the result:
// one page per rule and an index. gendocs writes them; the test compares
// them with the tree. `schedoctor rules` reads the joined rules too, so
// the pages, the command and its JSON quote the same numbers.
//
// Why the join is here: a rule's prose lives in the catalog (package
// finding, the bottom layer, which imports nothing of the module), but its
// numbers are constants and option defaults of the source that compares
// with them (profile.DefaultThresholds, live.Options, exectrace's
// constants...), written beside the measurements that justify them.
// Moving every number into finding would take each source's tuning away
// from the code and the comments that explain it; copying them into the
// catalog is what made the old docs drift. So each source exports
// RuleThresholds, built from its own constants, and this package, placed
// above the sources in the layers (internal/deps), puts the two together.
package ruledocs

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/contention"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/goroutines"
	"github.com/schedoctor/schedoctor/host"
	"github.com/schedoctor/schedoctor/lint/busyselect"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
	"github.com/schedoctor/schedoctor/lint/tickerleak"
	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/procs"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/schedtrace"
	"github.com/schedoctor/schedoctor/sweep"
)

//go:generate go run ../gendocs -dir ../../docs/rules

// sources are the RuleThresholds of every package that compares with a
// number, in the order their thresholds are listed when several sources
// detect one rule (SD302: trace, then schedtrace).
var sources = []struct {
	source finding.Source
	fn     func() map[string][]finding.Threshold
}{
	{finding.SourceLint, busyselect.RuleThresholds},
	{finding.SourceLint, sleeppoll.RuleThresholds},
	{finding.SourceLint, tickerleak.RuleThresholds},
	{finding.SourceProfile, profile.RuleThresholds},
	{finding.SourceTrace, exectrace.RuleThresholds},
	{finding.SourceSchedtrace, schedtrace.RuleThresholds},
	{finding.SourceProcs, procs.RuleThresholds},
	{finding.SourceSweep, sweep.RuleThresholds},
	{finding.SourceHost, host.RuleThresholds},
	{finding.SourceGoroutines, goroutines.RuleThresholds},
	{finding.SourceGoroutines, contention.RuleThresholds},
	{finding.SourceLive, live.RuleThresholds},
}

// thresholds gathers the sources' thresholds by rule ID. It fails when a
// source names a rule that is not in the catalog or that the catalog does
// not list it as detecting.
func thresholds() (map[string][]finding.Threshold, error) {
	out := map[string][]finding.Threshold{}
	var errs []string
	for _, s := range sources {
		for id, ts := range s.fn() {
			r, ok := finding.Lookup(id)
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%s: thresholds from %s for a rule not in the catalog", id, s.source))
				continue
			case !slices.Contains(r.Sources, s.source):
				errs = append(errs, fmt.Sprintf("%s: thresholds from %s, which the catalog does not list as a source", id, s.source))
			}
			for _, t := range ts {
				t.Source = s.source
				out[id] = append(out[id], t)
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("rule thresholds: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// Rules is the catalog (finding.Rules) with each rule's Thresholds filled
// from the sources that detect it.
func Rules() ([]finding.Rule, error) {
	th, err := thresholds()
	if err != nil {
		return nil, err
	}
	rules := finding.Rules()
	for i := range rules {
		rules[i].Thresholds = th[rules[i].ID]
	}
	return rules, nil
}

// Lookup is finding.Lookup with the rule's Thresholds filled.
func Lookup(idOrName string) (finding.Rule, bool, error) {
	r, ok := finding.Lookup(idOrName)
	if !ok {
		return r, false, nil
	}
	th, err := thresholds()
	if err != nil {
		return r, true, err
	}
	r.Thresholds = th[r.ID]
	return r, true, nil
}

// Render returns the pages by file name.
func Render() (map[string][]byte, error) {
	rules, err := Rules()
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(rules)+1)
	for _, r := range rules {
		var b bytes.Buffer
		if err := report.RuleMarkdown(&b, r); err != nil {
			return nil, err
		}
		out[r.ID+".md"] = b.Bytes()
	}
	var b bytes.Buffer
	if err := report.RuleIndexMarkdown(&b, rules); err != nil {
		return nil, err
	}
	out["README.md"] = b.Bytes()
	return out, nil
}
