package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/sweep/stats"
)

// TestWarningsGolden: the warnings of the checks around the runs and the
// processes runs left behind are in the text report, which -q and a saved
// report show without the progress stream. A leftover that a warning
// already names is printed once; one no warning names is listed by run.
func TestWarningsGolden(t *testing.T) {
	s := synth("wall", "s", stats.Lower, map[int][]float64{
		1: {1.21, 1.19, 1.25},
		2: {0.62, 0.61, 0.64},
	}, 1, 2)
	s.Runs[1].Leftovers = []string{"pid 4242 (sleep)"}
	s.Runs[4].Leftovers = []string{"pid 4343 (\x1b]0;pwned\a)", "pid 4344 (worker)"}
	s.Warnings = []string{
		"before run 1: another sweep is running (schedoctor pid 777): pid 778 (spin); with them 1.02 CPUs were in use over 100ms, which these runs compete with",
		"run 2 (GOMAXPROCS=2): the command left 1 process(es) running when it ended, killed: pid 4242 (sleep)",
	}
	render(t, "warnings", s)
	var text bytes.Buffer
	if err := s.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if strings.Count(out, "pid 4242 (sleep)") != 1 {
		t.Errorf("the warned leftover is not printed exactly once:\n%s", out)
	}
	if !strings.Contains(out, `run 5 (GOMAXPROCS=1): pid 4343 (\x1b]0;pwned\a), pid 4344 (worker)`) {
		t.Errorf("the unwarned leftovers of run 5 are missing or unescaped:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}
