package proc

import (
	"strings"
	"testing"
)

// TestNamesAreEscaped: a process names itself (prctl PR_SET_NAME), so a
// name that retitles the terminal must reach messages escaped.
func TestNamesAreEscaped(t *testing.T) {
	const evil = "\x1b]0;pwned\a"
	for _, s := range []string{Tagged{PID: 7, Comm: evil}.String(), Holder{PID: 7, Comm: evil}.String()} {
		if strings.ContainsAny(s, "\x1b\a") || !strings.Contains(s, `\x1b]0;pwned`) {
			t.Errorf("%q: want the control characters escaped", s)
		}
	}
}
