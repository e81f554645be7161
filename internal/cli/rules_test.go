package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile"
)

// `schedoctor rules SDxxx` shows the rule's thresholds, quoted from the
// detecting source's code, as a list at 80 columns and a table with
// -wide; -json carries them and the date the rule appeared.
func TestRulesThresholds(t *testing.T) {
	code, stdout, _ := run(t, "", "rules", "SD204")
	if code != ExitClean {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{"### Thresholds", "- CPU: 0.05 cores (warning from here, info below)", "### Details", "- Since: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("rules SD204 lacks %q:\n%s", want, stdout)
		}
	}
	_, wide, _ := run(t, "", "rules", "-wide", "SD204")
	if !strings.Contains(wide, "| CPU | 0.05 cores | warning from here, info below |") {
		t.Errorf("rules -wide SD204 has no thresholds table:\n%s", wide)
	}

	_, js, _ := run(t, "", "rules", "-json", "SD201")
	var rules []struct {
		Since      string              `json:"since"`
		Details    string              `json:"details"`
		Thresholds []finding.Threshold `json:"thresholds"`
	}
	if err := json.Unmarshal([]byte(js), &rules); err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].Since == "" || rules[0].Details == "" || len(rules[0].Thresholds) == 0 {
		t.Fatalf("rules -json SD201 = %s", js)
	}
	if got, want := rules[0].Thresholds[0].Value, profile.DefaultThresholds.ThreadChurn.Share; got != want {
		t.Errorf("SD201's first threshold is %v, want profile.DefaultThresholds.ThreadChurn.Share %v", got, want)
	}
}
