// Package ruledocs renders docs/rules from the catalog: one page per rule
// and an index. gendocs writes them; the test compares them with the tree.
package ruledocs

import (
	"bytes"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/report"
)

//go:generate go run ../gendocs -dir ../../docs/rules

// Render returns the pages by file name.
func Render() (map[string][]byte, error) {
	rules := finding.Rules()
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
