// Package sleeppoll defines an Analyzer that reports loops polling with a
// time.Sleep shorter than the poll threshold (rule SD102).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD102.md or `schedoctor rules
// SD102`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It finds constant durations of time.Sleep (through variables and
// fields only ever given constants), then judges the enclosing loop's idle
// path with lint/blocking's facts. Its threshold, astutil.PollThreshold,
// is exported to the docs by RuleThresholds.
package sleeppoll
