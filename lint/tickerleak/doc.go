// Package tickerleak defines an Analyzer that reports tickers never
// stopped in a module whose go line is before 1.23 (rule SD105).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD105.md or `schedoctor rules
// SD105`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It reads the module's go line first and leaves at 1.23 and later; then
// it follows each ticker and timeout timer to its uses and to the
// function's return paths. Its threshold is exported to the docs by
// RuleThresholds.
package tickerleak
