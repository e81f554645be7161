package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProgramsAreListed(t *testing.T) {
	entries, err := Sources.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "labrun" {
			continue
		}
		p, ok := Lookup(e.Name())
		if !ok {
			t.Errorf("lab program %s is not in Programs", e.Name())
			continue
		}
		src, _ := Sources.ReadFile(e.Name() + "/main.go")
		hasGo := strings.Contains(string(src), "lab:go ")
		if hasGo != (p.GoVersion != "") {
			t.Errorf("%s: the lab:go line and Program.GoVersion disagree", p.Name)
		}
	}
	for _, p := range append(append([]Program{}, Programs...), Fixtures...) {
		m, err := Markers(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Healthy != (len(m) == 0) {
			t.Errorf("%s: healthy=%v but has %d markers", p.Name, p.Healthy, len(m))
		}
	}
}

func TestMarkers(t *testing.T) {
	m, err := Markers("sleeppoll")
	if err != nil {
		t.Fatal(err)
	}
	if len(m["SD102"]) != 1 || len(m["SD103"]) != 1 {
		t.Fatalf("markers = %v", m)
	}
	if m["SD102"][0].Line != m["SD103"][0].Line+1 {
		t.Errorf("SD102 at %d, SD103 at %d: want consecutive lines", m["SD102"][0].Line, m["SD103"][0].Line)
	}
	if _, err := Markers("nosuch"); err == nil {
		t.Error("Markers(nosuch): want an error")
	}
}

// TestWriteModuleBuildsAndRuns builds every program from the embedded copy,
// as the demo does, and runs each twin briefly.
func TestWriteModuleBuildsAndRuns(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	if err := WriteModule(dir, ""); err != nil {
		t.Fatal(err)
	}
	all := append(append([]Program{}, Programs...), Fixtures...)
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
	}
	// Building every program takes seconds from a warm cache, minutes
	// from a cold one on a machine busy with other builds: the bound is
	// labtest.Build's.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bins, err := Build(ctx, dir, filepath.Join(dir, "bin"), names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		for _, fixed := range []bool{false, true} {
			args := []string{"-duration", "50ms"}
			if fixed {
				args = append(args, "-fixed")
			}
			cmd := exec.CommandContext(ctx, bins[p.Name], args...)
			cmd.Env = append(os.Environ(), p.Env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s %v: %v\n%s", p.Name, args, err, out)
			}
		}
	}
}

func TestExpectedAndAllowed(t *testing.T) {
	exp, err := Expected("gosched")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(exp, " ") != "SD106 SD204 SD308" {
		t.Errorf("Expected(gosched) = %v; want the markers and the unlocated SD204", exp)
	}
	may, err := Allowed("timerloop")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(may, " ") != "SD306" {
		t.Errorf("Allowed(timerloop) = %v", may)
	}
	exp, _ = Expected("timerloop")
	for _, r := range exp {
		if r == "SD306" {
			t.Error("an allowed rule is also expected")
		}
	}
}
