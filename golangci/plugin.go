// Package golangci is schedoctor's golangci-lint module plugin: it registers
// the linter "schedoctor", which runs the code analyzers of package lint
// (rules SD101-SD106) inside golangci-lint.
//
// Build a golangci-lint that includes it with `golangci-lint custom` and a
// .custom-gcl.yml that imports this package; enable it in .golangci.yml as
// a custom linter of type module. docs/lint-integration.md has both files.
//
// Settings (all optional):
//
//	disable: [SD105, timer-per-iteration]  # rule IDs or names to turn off
package golangci

import (
	"fmt"
	"slices"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint"
)

func init() {
	register.Plugin("schedoctor", New)
}

// Settings are the plugin's settings in .golangci.yml.
type Settings struct {
	// Disable lists rules not to report, by ID ("SD105") or name
	// ("ticker-leak"), or analyzers not to run, by name.
	Disable []string `json:"disable"`
}

// Plugin is the golangci-lint plugin.
type Plugin struct {
	analyzers []*analysis.Analyzer
}

// New decodes the settings and builds the plugin. Unknown settings and
// unknown rules are errors, so that a typo does not silently re-enable a rule.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("schedoctor plugin settings: %w", err)
	}
	rules, skip := map[string]bool{}, map[string]bool{}
	for _, d := range s.Disable {
		if slices.ContainsFunc(lint.Analyzers, func(a *analysis.Analyzer) bool { return a.Name == d }) {
			skip[d] = true
			continue
		}
		r, ok := finding.Lookup(d)
		if !ok || !slices.Contains(r.Sources, finding.SourceLint) {
			return nil, fmt.Errorf("schedoctor plugin settings: disable: %q is not a code rule (SD101-SD106, by ID or name) nor an analyzer (%s)", d, analyzerNames())
		}
		rules[r.ID] = true
	}
	var as []*analysis.Analyzer
	for _, a := range lint.Analyzers {
		if skip[a.Name] {
			continue
		}
		as = append(as, labelled(a, rules))
	}
	return &Plugin{analyzers: as}, nil
}

// labelled returns a copy of a that drops diagnostics whose rule (the
// Category's rule ID) is in off and starts every other message with the
// rule ID, and with the finding's severity when the analyzer computed one
// that differs from the catalog's: golangci-lint prints the analyzer's
// name and the message but neither the category nor a severity of the
// analyzer's ("worker.go:18:3: busyselect: SD101 loop spins a core ...
// (schedoctor)", "raft.go:9:3: timerloop: SD104 (info) time.After ...").
// The ID is what `schedoctor rules` and docs/rules look up; the "(info)"
// is what a severity rule of .golangci.yml can match with a text pattern.
func labelled(a *analysis.Analyzer, off map[string]bool) *analysis.Analyzer {
	w := *a
	w.Run = func(pass *analysis.Pass) (any, error) {
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			rule, sev, explicit := lint.SplitCategory(d.Category)
			if off[rule] {
				return
			}
			if rule != "" {
				prefix := rule + " "
				if explicit {
					prefix = rule + " (" + sev.String() + ") "
				}
				if !strings.HasPrefix(d.Message, prefix) {
					d.Message = prefix + d.Message
				}
			}
			pass.Report(d)
		}
		return a.Run(&p)
	}
	return &w
}

func analyzerNames() string {
	names := make([]string, len(lint.Analyzers))
	for i, a := range lint.Analyzers {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// BuildAnalyzers returns the analyzers to run.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return p.analyzers, nil }

// GetLoadMode says the analyzers need type information.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
