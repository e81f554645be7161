package cli

import (
	"strings"
	"testing"
)

// A misspelt subcommand or flag is answered with the closest name, exit 2;
// a word that is no typo of any gets the plain error.
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr; "" checks that no suggestion is made
	}{
		{[]string{"prfile", "x.pb.gz"}, "did you mean 'schedoctor profile'?"},
		{[]string{"gorutines"}, "did you mean 'schedoctor goroutines'?"},
		{[]string{"trcae"}, "did you mean 'schedoctor trace'?"},
		{[]string{"Lint"}, "did you mean 'schedoctor lint'?"},
		{[]string{"schedtrce"}, "did you mean 'schedoctor schedtrace'?"},
		{[]string{"help", "swep"}, "did you mean 'schedoctor sweep'?"},
		{[]string{"frobnicate"}, ""},
		{[]string{"x"}, ""},
		{[]string{"rules", "-jsn"}, "did you mean -json?"},
		{[]string{"profile", "--secnds", "5", "x"}, "did you mean -seconds?"},
		{[]string{"rules", "-nosuchflagatall"}, ""},
		{[]string{"trace", "-nosuch"}, ""}, // "nosrc" is 2 edits of 6 letters: not a typo
	} {
		code, _, stderr := run(t, "", tc.args...)
		if code != ExitError {
			t.Errorf("%q: exit %d, want 2", tc.args, code)
		}
		if tc.want == "" {
			if strings.Contains(stderr, "did you mean") {
				t.Errorf("%q: suggested something for a word that is no typo:\n%s", tc.args, stderr)
			}
			continue
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: stderr lacks %q:\n%s", tc.args, tc.want, stderr)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"profile", "profile", 0},
		{"prfile", "profile", 1},
		{"porfile", "profile", 1}, // one swap
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
