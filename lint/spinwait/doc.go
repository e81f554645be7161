// Package spinwait defines an Analyzer that reports loops spinning on an
// atomic, a flag or runtime.Gosched with no blocking and no backoff (rule
// SD106).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD106.md or `schedoctor rules
// SD106`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It reads each for loop's exits and statements: what they wait on
// (atomics, shared variables, never-blocking helpers by lint/blocking's
// facts) and whether every statement only reads; it also follows a
// consumer's retry around a non-blocking take into its caller's loop.
package spinwait
