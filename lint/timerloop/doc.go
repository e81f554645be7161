// Package timerloop defines an Analyzer that reports timers made anew on
// every loop iteration, and zero timers used as a yield (rule SD104).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD104.md or `schedoctor rules
// SD104`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It walks each unbounded loop's selects and branches for timers made per
// iteration and dropped, reads the module's go line for the severity, and
// offers runtime.Gosched as the fix of time.Sleep(0) where the edit
// compiles.
package timerloop
