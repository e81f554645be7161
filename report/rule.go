package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// RuleMarkdown writes a rule's documentation page. The same text is the
// docs/rules/SDxxx.md page (go generate ./...) and the answer to
// `schedoctor rules SDxxx`, so the two cannot drift.
func RuleMarkdown(w io.Writer, r finding.Rule) error { return ruleMarkdown(w, r, false) }

// RuleMarkdownNarrow is RuleMarkdown with the thresholds as a list rather
// than a table, so that a terminal can wrap them: what `schedoctor rules
// SDxxx` prints at 80 columns.
func RuleMarkdownNarrow(w io.Writer, r finding.Rule) error { return ruleMarkdown(w, r, true) }

func ruleMarkdown(w io.Writer, r finding.Rule, narrow bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s: %s\n\n", r.ID, r.Name, r.Title)
	srcs := make([]string, len(r.Sources))
	for i, s := range r.Sources {
		srcs[i] = detectedBy(r, s)
	}
	fmt.Fprintf(&b, "- Severity: %s\n- Detected by: %s\n- Status: %s\n", r.Severity, strings.Join(srcs, ", "), r.Status)
	if r.Since != "" {
		fmt.Fprintf(&b, "- Since: %s (the day the rule entered the catalog)\n", r.Since)
	}
	b.WriteString("\n")
	section(&b, "Why it costs", r.Explanation)
	section(&b, "How schedoctor detects it", r.Detection)
	if len(r.Thresholds) > 0 {
		b.WriteString("### Thresholds\n\n")
		b.WriteString("The defaults of the code that detects it, quoted from its constants.\n\n")
		// Name the source of each threshold when they come from several.
		bySource := slices.ContainsFunc(r.Thresholds, func(t finding.Threshold) bool { return t.Source != r.Thresholds[0].Source })
		switch {
		case narrow:
			for _, t := range r.Thresholds {
				src := ""
				if bySource {
					src = string(t.Source) + ", "
				}
				fmt.Fprintf(&b, "- %s: %s (%s%s)\n", t.Name, t.Shown(), src, t.Meaning)
			}
		case bySource:
			b.WriteString("| source | what is measured | value | what reaching it does |\n|---|---|---|---|\n")
			for _, t := range r.Thresholds {
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Source, cell(t.Name), cell(t.Shown()), cell(t.Meaning))
			}
		default:
			b.WriteString("| what is measured | value | what reaching it does |\n|---|---|---|\n")
			for _, t := range r.Thresholds {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(t.Name), cell(t.Shown()), cell(t.Meaning))
			}
		}
		b.WriteString("\n")
	}
	if r.Details != "" {
		fmt.Fprintf(&b, "### Details\n\n%s\n\n", strings.TrimSpace(r.Details))
	}
	section(&b, "Fix", r.Fix)
	if r.Wrong != "" {
		fmt.Fprintf(&b, "## Wrong\n\n```go\n%s\n```\n\n## Right\n\n```go\n%s\n```\n\n", strings.TrimSpace(r.Wrong), strings.TrimSpace(r.Right))
	}
	if r.Effect != "" {
		section(&b, "Measured effect", r.Effect)
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// detectedBy names what reports a rule as a user meets it. Every source
// is a subcommand except the live monitor, a package a service imports
// (there is no `schedoctor live`); `check` reports a rule that only the
// monitor detects by reading the monitor's JSON from the service.
func detectedBy(r finding.Rule, s finding.Source) string {
	switch {
	case s == finding.SourceLive:
		return "the `live` package (in process, docs/live.md)"
	case s == finding.SourceCheck && liveOnly(r):
		return "`schedoctor check` (from the service's live monitor)"
	}
	return "`schedoctor " + string(s) + "`"
}

// liveOnly reports whether the live monitor is the rule's only source
// besides check.
func liveOnly(r finding.Rule) bool {
	live := false
	for _, s := range r.Sources {
		switch s {
		case finding.SourceLive:
			live = true
		case finding.SourceCheck:
		default:
			return false
		}
	}
	return live
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func section(b *strings.Builder, title, text string) {
	fmt.Fprintf(b, "## %s\n\n%s\n\n", title, strings.TrimSpace(text))
}

// RuleIndexMarkdown writes docs/rules/README.md: the catalog as a table.
func RuleIndexMarkdown(w io.Writer, rules []finding.Rule) error {
	var b strings.Builder
	b.WriteString("# schedoctor rules\n\n")
	b.WriteString("Generated from the catalog in `finding/` by `go generate ./...`; do not edit.\n")
	b.WriteString("Rules marked planned are in the catalog so their IDs are stable; no source reports them yet.\n\n")
	b.WriteString("| ID | name | source | status | title |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		srcs := make([]string, len(r.Sources))
		for i, s := range r.Sources {
			srcs[i] = string(s)
		}
		fmt.Fprintf(&b, "| [%s](%s.md) | %s | %s | %s | %s |\n", r.ID, r.ID, r.Name, strings.Join(srcs, ", "), r.Status, cell(r.Title))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
