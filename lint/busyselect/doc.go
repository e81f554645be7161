// Package busyselect defines an Analyzer that reports loops spinning on a
// select whose default neither blocks nor leaves the loop (rule SD101).
//
// The rule itself (why it costs, what is reported and what is left alone,
// the wrong and right code) is written once, in the rule catalog
// (finding/catalog_lint.go): see docs/rules/SD101.md or `schedoctor rules
// SD101`. Analyzer.Doc is taken from the catalog (analysisutil.RuleDoc),
// so this comment says only how the package does it.
//
// It visits every select with a default, walks the path that takes the
// default and the rest of the enclosing loop, and asks lint/blocking's
// facts whether any call on it may block; each report carries the
// evidence the lint driver shows (lint/internal/evidence).
package busyselect
