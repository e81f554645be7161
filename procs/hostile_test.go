package procs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

// v2QuotaMountinfo is the v2-quota fixture's mount table.
func v2QuotaMountinfo(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", "v2-quota", "proc", "4242", "mountinfo"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func hasRule(fs []finding.Finding, rule string) bool {
	return slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.Rule == rule })
}

func containsAny(list []string, sub string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, sub) })
}

// TestMalformedMountinfoLine is the case: one mangled line of
// mountinfo used to drop the cgroup analysis, and GOMAXPROCS 8 under a
// quota of 1.5 CPUs went unreported. The line is now skipped and named,
// and the rest is analysed.
func TestMalformedMountinfoLine(t *testing.T) {
	mi := "garbage line\n" + v2QuotaMountinfo(t) + "1215 1205 0:1 / /x rw - \n"
	root := variant(t, "v2-quota", map[string]string{
		"proc/4242/mountinfo": mi,
		"proc/4242/environ":   env("GOMAXPROCS=8", "GOMEMLIMIT=1GiB"),
	})
	s := inspectFixture(t, root)
	fs := Findings(s)
	if !hasRule(fs, "SD401") || s.CPUs.Available != 1.5 {
		t.Errorf("findings %v, available %v: want SD401 against 1.5 CPUs", ruleIDs(fs), s.CPUs.Available)
	}
	if !containsAny(s.Warnings, "/proc/4242/mountinfo: skipped line 1 (want at least 10 fields") ||
		!containsAny(s.Warnings, "line 11 (want at least 10 fields") {
		t.Errorf("warnings %q do not name the skipped lines 1 and 11", s.Warnings)
	}
	if len(s.Undecided) != 0 {
		t.Errorf("undecided %+v: the cgroup was found despite the skipped lines", s.Undecided)
	}
}

// TestMalformedCgroupMountLine: when the skipped line is the cgroup2 mount
// itself, the CPU quota is unknown; the rules that needed it say they could
// not decide, and none claims a clean bill.
func TestMalformedCgroupMountLine(t *testing.T) {
	var kept []string
	for _, l := range strings.Split(v2QuotaMountinfo(t), "\n") {
		if strings.Contains(l, "cgroup2") {
			l = strings.Replace(l, " - cgroup2", " cgroup2", 1) // lose the separator
		}
		kept = append(kept, l)
	}
	root := variant(t, "v2-quota", map[string]string{"proc/4242/mountinfo": strings.Join(kept, "\n")})
	s := inspectFixture(t, root)
	fs := Findings(s)
	if len(fs) != 0 {
		t.Errorf("findings %v: with the quota unknown nothing here should fire", ruleIDs(fs))
	}
	var rules []string
	for _, u := range s.Undecided {
		rules = append(rules, u.Rule)
	}
	// GOMAXPROCS (default-container) depends on the leaf quota, so SD401
	// and SD402 are undecided; SD403 and SD405 need the quota too, SD404
	// the throttling counters, SD406 the cgroup's pressure, SD407 the limit.
	for _, want := range []string{"SD401", "SD402", "SD403", "SD404", "SD405", "SD406", "SD407"} {
		if !slices.Contains(rules, want) {
			t.Errorf("undecided %v lacks %s", rules, want)
		}
	}
	if !containsAny(s.Notes, "could not decide SD401") || !containsAny(s.Notes, "1 malformed line of /proc/4242/mountinfo skipped") {
		t.Errorf("notes %q do not say what could not be decided and why", s.Notes)
	}
	if !containsAny(s.Warnings, "/proc/4242/mountinfo: skipped line 7 (want at least 10 fields") {
		t.Errorf("warnings %q do not name line 7", s.Warnings)
	}
}

// TestUndecidedNegative: a complete, well-formed tree leaves nothing
// undecided, and a missing (not malformed) file is an absence, not a gap.
func TestUndecidedNegative(t *testing.T) {
	for _, fixture := range []string{"v2-quota", "v1-quota", "no-limit", "bare-host"} {
		s := inspectFixture(t, filepath.Join("testdata", "fixtures", fixture))
		if len(s.Undecided) != 0 || containsAny(s.Notes, "could not decide") {
			t.Errorf("%s: undecided %+v, notes %q", fixture, s.Undecided, s.Notes)
		}
	}
	root := variant(t, "v2-quota", nil)
	if err := os.Remove(filepath.Join(root, "sys/fs/cgroup/cpu.stat")); err != nil {
		t.Fatal(err)
	}
	if s := inspectFixture(t, root); len(s.Undecided) != 0 {
		t.Errorf("a missing cpu.stat: undecided %+v", s.Undecided)
	}
}

// TestWithdrawnOnUnknownLimit: SD402 says GOMAXPROCS leaves CPUs unused; a
// malformed cpuset could mean fewer CPUs, so it is withdrawn, not reported.
func TestWithdrawnOnUnknownLimit(t *testing.T) {
	s := inspectFixture(t, filepath.Join("testdata", "fixtures", "no-limit"))
	if !hasRule(Findings(s), "SD402") {
		t.Fatal("no-limit: no SD402 to withdraw")
	}
	root := variant(t, "no-limit", map[string]string{"sys/fs/cgroup/cpuset.cpus.effective": "0-x\n"})
	s = inspectFixture(t, root)
	if hasRule(Findings(s), "SD402") {
		t.Errorf("SD402 reported with the cpuset malformed")
	}
	if len(s.Undecided) == 0 || s.Undecided[0].Rule != "SD402" || !slices.Contains(s.Undecided[0].Inputs, "the cpuset") {
		t.Errorf("undecided %+v, want SD402 on the cpuset", s.Undecided)
	}
}

// TestMalformedSchedstatThread: one thread's malformed schedstat is skipped
// and named; the others still measure the process.
func TestMalformedSchedstatThread(t *testing.T) {
	root := variant(t, "own-pressure", map[string]string{"proc/4242/task/4247/schedstat": "12 x\n"})
	s := inspectFixture(t, root)
	if s.CPUWait == nil || s.CPUWait.Threads != 1 {
		t.Fatalf("cpu wait %+v: want the one good thread", s.CPUWait)
	}
	if !containsAny(s.Warnings, "/proc/4242/task/4247/schedstat: want 3 fields, got 2") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// TestMalformedSchedstatSlices: a thread whose timeslice count (field 3)
// is not a count is skipped like any malformed line, so the wait per
// timeslice never divides by a bogus number.
func TestMalformedSchedstatSlices(t *testing.T) {
	for _, bad := range []string{"1600000000 600000000 -5\n", "1600000000 600000000 lots\n"} {
		root := variant(t, "own-pressure", map[string]string{"proc/4242/task/4247/schedstat": bad})
		s := inspectFixture(t, root)
		if s.CPUWait == nil || s.CPUWait.Threads != 1 || s.CPUWait.Timeslices != 3021 {
			t.Fatalf("%q: cpu wait %+v: want the one good thread's 3021 timeslices", bad, s.CPUWait)
		}
		if !containsAny(s.Warnings, "/proc/4242/task/4247/schedstat: field 3") {
			t.Errorf("%q: warnings %q", bad, s.Warnings)
		}
	}
}

// TestMaxFileBytes: a file above the cap is refused and named, the rest is
// analysed, and the rules that needed it are undecided.
func TestMaxFileBytes(t *testing.T) {
	root := variant(t, "v2-quota", map[string]string{"sys/fs/cgroup/cpu.stat": strings.Repeat("nr_periods 1\n", 400)})
	s, err := Inspect(Options{Sysroot: root, PID: 4242, MaxFileBytes: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if !containsAny(s.Warnings, "reading /sys/fs/cgroup/cpu.stat: larger than the limit of 4000 bytes") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if len(s.Undecided) != 1 || s.Undecided[0].Rule != "SD404" {
		t.Errorf("undecided %+v, want SD404", s.Undecided)
	}
	if s.CPUs.Available != 1.5 {
		t.Errorf("available %v: the quota should still be read", s.CPUs.Available)
	}
}
