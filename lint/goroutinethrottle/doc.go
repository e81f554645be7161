// Package goroutinethrottle defines an Analyzer that reports
// runtime.NumGoroutine used to limit or wait for goroutines (rule SD103).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD103.md or `schedoctor rules
// SD103`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It follows the count from each call of runtime.NumGoroutine through
// local variables and unexported fields to the conditions it decides, and
// reports those whose branches start goroutines or wait.
package goroutinethrottle
