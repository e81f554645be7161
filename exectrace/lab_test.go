package exectrace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/internal/labtest"
)

// TestLab records a one-second trace of every lab program and of its fixed
// twin, and checks that each SD3xx marker of the program is found at its
// line while the fixed twins and the healthy controls draw no warning.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the lab programs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bins := labtest.Build(t)
	dir := t.TempDir()
	// The CPUs this machine gives the programs: what -cpus would say.
	cpus := float64(runtime.NumCPU())
	for _, p := range lab.Programs {
		markers, err := lab.Markers(p.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, fixed := range []bool{false, true} {
			name := p.Name
			env := p.Env
			if fixed {
				name += "-fixed"
				env = nil // overprocs' fix is its environment
			}
			t.Run(name, func(t *testing.T) {
				// What a busy machine can make wrong is collected in
				// problems: it fails on a quiet machine and skips, with
				// the measured load, on a busy one.
				m := labtest.StartMeter()
				var problems []string
				defer func() {
					if len(problems) > 0 {
						m.SkipIfBusy(t, "%s", strings.Join(problems, "; "))
						for _, p := range problems {
							t.Error(p)
						}
					}
				}()
				file := filepath.Join(dir, name+".trace")
				// With a CPU profile running, the trace carries CPU samples:
				// the hot lines and the CPU the process really got.
				args := []string{"-duration", "1s", "-trace", file, "-cpuprofile", file + ".prof"}
				if fixed {
					args = append(args, "-fixed")
				}
				runLab(ctx, t, bins[p.Name], env, args...)
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				res, err := readAnalyze(ctx, f, Options{CPUs: cpus})
				if err != nil {
					t.Fatal(err)
				}
				if res.Summary.Truncated != nil {
					t.Fatalf("truncated: %v", res.Summary.Truncated)
				}
				for _, f := range res.Findings {
					checkFinding(t, f)
					if (fixed || p.Healthy) && f.Severity >= finding.Warning {
						if strings.Contains(f.Text(), "host withheld CPU") {
							// Measured, not guessed: the CPU samples show the
							// machine (shared by other jobs) gave the process
							// less CPU than its Ps ran. True of any program then.
							t.Logf("host-caused %s on a crowded machine (%s): %s", f.Rule, m.Machine(), f.Text())
							continue
						}
						// A thread descheduled in the middle of a quick
						// syscall loses its P to sysmon: on a crowded
						// machine even the buffered twin's 64 KiB writes
						// (100k+/s to /dev/null) cross SD305's threshold.
						problems = append(problems, fmt.Sprintf("unexpected %s: %s at %v", f.Rule, f.Text(), f.Locations))
					}
				}
				if fixed {
					return
				}
				for rule, ms := range markers {
					if !strings.HasPrefix(rule, "SD3") {
						continue
					}
					if rule == "SD303" && cpus >= 8 {
						continue // GOMAXPROCS=8 is not above this machine's CPUs
					}
					want := "internal/lab/" + ms[0].File + ":" + itoa(ms[0].Line)
					if rule == "SD308" && !hasFindingAt(res.Findings, rule, want) {
						// A spin that blocks now and then is "compute or
						// spin" (info) until the source is read (diagnose's
						// TestTraceLab checks the warning at the line); the
						// trace alone must still find the site.
						if !hasRuleIn(res.Findings, rule, "internal/lab/"+ms[0].File) {
							problems = append(problems, fmt.Sprintf("no SD308 in internal/lab/%s; findings: %v", ms[0].File, rules(res.Findings)))
						}
						continue
					}
					if !hasFindingAt(res.Findings, rule, want) {
						problems = append(problems, fmt.Sprintf("no %s warning at %s", rule, want))
						for _, f := range res.Findings {
							t.Logf("  %s %v: %s at %v", f.Rule, f.Severity, f.Text(), f.Locations)
						}
					}
				}
			})
		}
	}
}

// hasRuleIn reports a finding of rule, at any severity, located in file.
func hasRuleIn(fs []finding.Finding, rule, file string) bool {
	for _, f := range fs {
		for _, l := range f.Locations {
			if f.Rule == rule && strings.HasSuffix(filepath.ToSlash(l.File), file) {
				return true
			}
		}
	}
	return false
}

// hasInfoAt reports whether fs holds rule at info at the line at.
func hasInfoAt(fs []finding.Finding, rule, at string) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Severity == finding.Info && len(f.Locations) > 0 &&
			strings.HasSuffix(filepath.ToSlash(f.Locations[0].File)+":"+itoa(f.Locations[0].Line), at) {
			return true
		}
	}
	return false
}

// spikesBelowWarning reports whether every spike cause's median p99 is
// below SD315's warning threshold.
func spikesBelowWarning(s *Summary) bool {
	for _, c := range s.SpikeCauses {
		if c.P99 >= spikeWarnP99 {
			return false
		}
	}
	return true
}

// wakeesBelowWarning reports whether every waker SD316 reports had its
// wakees wait less than its warning's p99 (heavyWarnP99), so that SD316
// is rightly info.
func wakeesBelowWarning(s *Summary) bool {
	for i := range s.Wakers {
		if w := &s.Wakers[i]; reportedWaker(w) && w.Latency.P99 >= heavyWarnP99 {
			return false
		}
	}
	return true
}

func hasFindingAt(fs []finding.Finding, rule, at string) bool {
	for _, f := range fs {
		if f.Rule != rule || f.Severity < finding.Warning {
			continue
		}
		for _, l := range f.Locations {
			if strings.HasSuffix(filepath.ToSlash(l.File)+":"+itoa(l.Line), at) {
				return true
			}
		}
	}
	return false
}

// runLab runs a lab program in its own process group, killed with the
// group if it outlives its -duration by much.
func runLab(ctx context.Context, t *testing.T, bin string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// LAB_ADDR: a server program listens on a free loopback port.
	cmd.Env = append(append(os.Environ(), "LAB_ADDR=127.0.0.1:0"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
}

// TestSpikesLab runs issue 22's spikes program and its steady twin, as
// recorded for the fixtures (bursts of 40µs goroutines, so that a burst is
// shorter than a window on 2 Ps): the bursts are spikes at their times,
// caused at the go statement, and the close is a heavy unblocker, both at
// warning at their markers (or at info where this machine measured them
// below the warning: severity follows the cost); the steady twin has no
// spike and no warning.
// A crowded machine stretches the bursts over the windows between them:
// what it can make wrong skips, with the measured load.
func TestSpikesLab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the spikes lab program")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bins := labtest.Build(t, "spikes")
	markers, err := lab.Markers("spikes")
	if err != nil {
		t.Fatal(err)
	}
	goLine := "internal/lab/" + markers["SD315"][0].File + ":" + itoa(markers["SD315"][0].Line)
	src, _ := lab.Sources.ReadFile("spikes/main.go")
	closeLine := ""
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// lab:SD316") {
			closeLine = "internal/lab/spikes/main.go:" + itoa(i+1)
		}
	}
	for _, fixed := range []bool{false, true} {
		name := map[bool]string{false: "spikes", true: "spikes-fixed"}[fixed]
		t.Run(name, func(t *testing.T) {
			m := labtest.StartMeter()
			var problems []string
			defer func() {
				if len(problems) > 0 {
					m.SkipIfBusy(t, "%s", strings.Join(problems, "; "))
					for _, p := range problems {
						t.Error(p)
					}
				}
			}()
			file := filepath.Join(t.TempDir(), name+".trace")
			args := []string{"-duration", "1100ms", "-work", "40us", "-trace", file}
			if fixed {
				args = append(args, "-fixed")
			}
			runLab(ctx, t, bins["spikes"], nil, args...)
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := readAnalyze(ctx, f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				checkFinding(t, f)
				t.Logf("%s %v: %s at %v", f.Rule, f.Severity, f.Text(), f.Locations)
			}
			if fixed {
				if n := len(res.Summary.Spikes); n > 0 {
					problems = append(problems, fmt.Sprintf("%d spikes in the steady twin: %v", n, res.Summary.Spikes))
				}
				for _, f := range res.Findings {
					if (f.Rule == "SD315" || f.Rule == "SD316") && f.Severity >= finding.Warning {
						problems = append(problems, fmt.Sprintf("unexpected %s: %s", f.Rule, f.Text()))
					}
				}
				return
			}
			for rule, at := range map[string]string{"SD315": goLine, "SD316": closeLine} {
				if hasFindingAt(res.Findings, rule, at) {
					continue
				}
				// Severity follows the measured cost: on a quiet machine
				// the bursts of -work 40us may queue for less than the
				// warning's p99 (a CI run: spikes of p99 15.73ms), and
				// SD315 is then rightly info. That is no failure; a
				// missing finding, or an info above the threshold, is.
				if rule == "SD315" && hasInfoAt(res.Findings, rule, at) && spikesBelowWarning(res.Summary) {
					t.Logf("SD315 at %s is info: every cause's spikes measured p99 below %v on this machine", at, spikeWarnP99)
					continue
				}
				// The same for SD316: a quiet CI machine ran the close's
				// 1000 wakees of 40µs with p99 2.85ms, under SD316's 5ms.
				if rule == "SD316" && hasInfoAt(res.Findings, rule, at) && wakeesBelowWarning(res.Summary) {
					t.Logf("SD316 at %s is info: the wakees of every reported waker measured p99 below %v on this machine", at, heavyWarnP99)
					continue
				}
				problems = append(problems, fmt.Sprintf("no %s warning at %s; spikes %v", rule, at, res.Summary.Spikes))
			}
		})
	}
}
