package golden

import (
	"bytes"
	"encoding/json"
)

// CatalogText stands in a normalized SARIF log for the rule texts that come
// from the catalog.
const CatalogText = "(catalog text)"

// NormalizeSARIF replaces the rule texts of a SARIF log (fullDescription and
// help, which repeat the catalog's explanation, detection and fix) with
// CatalogText, so that a golden log does not go stale whenever a rule's
// prose is edited, and the source root (the working directory) with
// $SRCROOT. The rule IDs, names, titles and levels stay.
func NormalizeSARIF(b []byte) ([]byte, error) {
	var log map[string]any
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, err
	}
	runs, _ := log["runs"].([]any)
	for _, r := range runs {
		run, _ := r.(map[string]any)
		// The source root is the working directory of the run.
		if bases, ok := run["originalUriBaseIds"].(map[string]any); ok {
			for k := range bases {
				bases[k] = map[string]any{"uri": "file:///$SRCROOT/"}
			}
		}
		tool, _ := run["tool"].(map[string]any)
		driver, _ := tool["driver"].(map[string]any)
		rules, _ := driver["rules"].([]any)
		for _, ru := range rules {
			rule, _ := ru.(map[string]any)
			for _, k := range []string{"fullDescription", "help"} {
				if _, ok := rule[k]; ok {
					rule[k] = map[string]any{"text": CatalogText}
				}
			}
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(log); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
