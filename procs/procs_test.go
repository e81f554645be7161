package procs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/procs/gobin"
)

// fixtureCase is the documented result of one fixture tree (see
// docs/procs.md): the findings, GOMAXPROCS and the CPUs available.
type fixtureCase struct {
	rules      []string
	gomaxprocs int
	rule       string
	available  float64
	from       string
	warnings   []string // substrings, one per expected warning
}

var fixtureCases = map[string]fixtureCase{
	"bare-host":       {nil, 8, "default-container", 8, "affinity", nil},
	"v1-quota":        {[]string{"SD401", "SD403", "SD407"}, 8, "default-cpus", 2, "leaf cgroup quota", nil},
	"v2-quota":        {nil, 2, "default-container", 1.5, "leaf cgroup quota", nil},
	"v2-nested":       {[]string{"SD401", "SD404", "SD405"}, 4, "default-container", 1, "parent cgroup quota", nil},
	"cpuset-only":     {[]string{"SD408"}, 2, "default-cpus", 2, "affinity", nil},
	"no-limit":        {[]string{"SD402"}, 1, "env", 4, "affinity", nil},
	"throttled":       {[]string{"SD403", "SD404", "SD406", "SD408"}, 2, "automaxprocs", 2.5, "leaf cgroup quota", nil},
	"hybrid":          {[]string{"SD407"}, 2, "default-container", 1, "leaf cgroup quota", nil},
	"no-cgroup-mount": {[]string{"SD401"}, 4, "env", 2, "affinity", []string{"no cgroup2 mount in mountinfo reaches cgroup /system.slice/batch.service"}},
	"host-pressure":   {nil, 2, "default-container", 2, "affinity", nil},
	"own-pressure":    {[]string{"SD406"}, 2, "default-container", 2, "leaf cgroup quota", nil},
	// The leaf's cpu.max is malformed: the parent's 4 CPUs may or may not
	// be tighter than the leaf's, so SD405 is undecided, not reported.
	"malformed": {nil, 0, "none", 4, "parent cgroup quota", []string{
		`vm1.scope/cpu.max: want "QUOTA PERIOD" or "max PERIOD", got "150000"`,
		`vm1.scope/cpu.stat: skipped line 2 (value of nr_periods "twelve" is not a number)`,
		`vm1.scope/memory.max: want a number of bytes or "max", got "lots"`,
		"reading /proc/4242/environ: is a directory: not a regular file",
		"/proc/4242/exe is not a Go binary",
	}},
}

func inspectFixture(t *testing.T, root string) *Summary {
	t.Helper()
	s, err := Inspect(Options{Sysroot: root, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ruleIDs(fs []finding.Finding) []string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule)
	}
	slices.Sort(ids)
	return ids
}

func TestFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*"))
	if len(dirs) != len(fixtureCases) {
		t.Errorf("%d fixture trees, %d documented results", len(dirs), len(fixtureCases))
	}
	for name, want := range fixtureCases {
		t.Run(name, func(t *testing.T) {
			s := inspectFixture(t, filepath.Join("testdata", "fixtures", name))
			fs := Findings(s)
			if got := ruleIDs(fs); !slices.Equal(got, want.rules) {
				t.Errorf("rules = %v, want %v", got, want.rules)
			}
			g := s.GOMAXPROCS
			if g.Value != want.gomaxprocs || g.Rule != want.rule || g.Origin != map[bool]string{true: "computed", false: ""}[want.rule != "none"] {
				t.Errorf("GOMAXPROCS = %d by %q (%s), want %d by %q", g.Value, g.Rule, g.Origin, want.gomaxprocs, want.rule)
			}
			if s.CPUs.Available != want.available || s.CPUs.AvailableFrom != want.from {
				t.Errorf("available = %v (%s), want %v (%s)", s.CPUs.Available, s.CPUs.AvailableFrom, want.available, want.from)
			}
			if len(s.Warnings) != len(want.warnings) {
				t.Errorf("warnings = %q, want %d", s.Warnings, len(want.warnings))
			}
			for _, w := range want.warnings {
				if !slices.ContainsFunc(s.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no warning containing %q in %q", w, s.Warnings)
				}
			}
			for _, f := range fs {
				if f.Text() == "" || f.Fix == "" || len(f.Evidence) == 0 || len(f.Locations) == 0 {
					t.Errorf("%s lacks a message, fix, evidence or location: %+v", f.Rule, f)
				}
				for _, l := range f.Locations {
					if !strings.HasPrefix(l.File, "/") {
						t.Errorf("%s: location %q is not a path as the target sees it", f.Rule, l.File)
					}
				}
			}
		})
	}
}

// TestFindingLocations pins where each finding points: the file the value
// came from.
func TestFindingLocations(t *testing.T) {
	for _, tc := range []struct{ fixture, rule, file string }{
		{"v1-quota", "SD401", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"},
		{"v1-quota", "SD403", "/proc/4242/exe"},
		{"v1-quota", "SD407", "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"v2-nested", "SD405", "/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a1e_9b7d_4e0b_8d55_0c9f3b1a7e42.slice/cpu.max"},
		{"v2-nested", "SD404", "/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a1e_9b7d_4e0b_8d55_0c9f3b1a7e42.slice/cpu.stat"},
		{"no-limit", "SD402", "/proc/4242/environ"},
		{"throttled", "SD406", "/sys/fs/cgroup/cpu.pressure"},
		{"cpuset-only", "SD408", "/proc/4242/exe"},
	} {
		s := inspectFixture(t, filepath.Join("testdata", "fixtures", tc.fixture))
		i := slices.IndexFunc(Findings(s), func(f finding.Finding) bool { return f.Rule == tc.rule })
		if i < 0 {
			t.Errorf("%s: no %s", tc.fixture, tc.rule)
			continue
		}
		if got := Findings(s)[i].Locations[0].File; got != tc.file {
			t.Errorf("%s %s at %s, want %s", tc.fixture, tc.rule, got, tc.file)
		}
	}
}

// variant copies a fixture tree into a temporary directory and overwrites
// some of its files (paths relative to the tree), so that each negative case
// differs from a positive one in one figure.
func variant(t *testing.T, fixture string, files map[string]string) string {
	t.Helper()
	src := filepath.Join("testdata", "fixtures", fixture)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func env(vars ...string) string { return strings.Join(vars, "\x00") + "\x00" }

const nestedPod = "sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1c2a1e_9b7d_4e0b_8d55_0c9f3b1a7e42.slice"
const nestedCtr = nestedPod + "/cri-containerd-3f2a9c1d7e5b4a60b8c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0.scope"

// TestRulesPositiveAndNegative pairs each rule's firing variant with a close
// one that must stay silent.
func TestRulesPositiveAndNegative(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fixture string
		files   map[string]string
		rule    string
		fires   bool
		sev     finding.Severity
	}{
		// SD401
		{"env 8 on 2 CPUs", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=8"), "proc/4242/status": "Name:\tapi\nCpus_allowed_list:\t0-1\n"}, "SD401", true, finding.Critical},
		{"env 3 on 2 CPUs is a warning", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=3"), "proc/4242/status": "Name:\tapi\nCpus_allowed_list:\t0-1\n"}, "SD401", true, finding.Warning},
		{"env 2 on 2 CPUs", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=2"), "proc/4242/status": "Name:\tapi\nCpus_allowed_list:\t0-1\n"}, "SD401", false, 0},
		{"env 2 under a 1.5-CPU quota", "v2-quota", map[string]string{"proc/4242/environ": env("GOMAXPROCS=2", "GOMEMLIMIT=1GiB")}, "SD401", false, 0},
		{"env 3 under a 1.5-CPU quota", "v2-quota", map[string]string{"proc/4242/environ": env("GOMAXPROCS=3", "GOMEMLIMIT=1GiB")}, "SD401", true, finding.Warning},
		{"default minimum 2 under 0.5 CPU", "v2-quota", map[string]string{"sys/fs/cgroup/cpu.max": "50000 100000\n"}, "SD401", false, 0},
		{"env 2 under 0.5 CPU is not the default's choice", "v2-quota", map[string]string{"sys/fs/cgroup/cpu.max": "50000 100000\n", "proc/4242/environ": env("GOMAXPROCS=2")}, "SD401", true, finding.Critical},
		{"a non-numeric GOMAXPROCS is ignored, as by the runtime", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=eight")}, "SD401", false, 0},
		{"affinity unknown: the cpuset decides", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=8"), "proc/4242/status": "Name:\tapi\n", "sys/devices/system/cpu/online": ""}, "SD401", true, finding.Critical},
		{"no CPU count at all: nothing to compare", "bare-host", map[string]string{"proc/4242/environ": env("GOMAXPROCS=8"), "proc/4242/status": "Name:\tapi\n", "sys/devices/system/cpu/online": "", "sys/fs/cgroup/cpuset.cpus.effective": ""}, "SD401", false, 0},
		// SD402
		{"env 1 on 4 CPUs", "no-limit", nil, "SD402", true, finding.Warning},
		{"env 4 on 4 CPUs", "no-limit", map[string]string{"proc/4242/environ": env("GOMAXPROCS=4")}, "SD402", false, 0},
		{"automaxprocs rounds 2.5 down to 2", "throttled", nil, "SD402", false, 0},
		// SD403
		{"go line 1.24 under a quota", "v1-quota", nil, "SD403", true, finding.Warning},
		{"go line 1.24, quota above the CPUs", "v1-quota", map[string]string{"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "800000\n"}, "SD403", false, 0},
		{"go 1.26 under a quota", "v2-quota", nil, "SD403", false, 0},
		{"GODEBUG containermaxprocs=0", "v2-quota", map[string]string{"proc/4242/environ": env("GODEBUG=containermaxprocs=0", "GOMEMLIMIT=1GiB")}, "SD403", true, finding.Warning},
		{"GODEBUG containermaxprocs=0 then =1", "v2-quota", map[string]string{"proc/4242/environ": env("GODEBUG=containermaxprocs=0,containermaxprocs=1", "GOMEMLIMIT=1GiB")}, "SD403", false, 0},
		{"GOMAXPROCS set to the quota rounded up", "v2-quota", map[string]string{"proc/4242/environ": env("GOMAXPROCS=2", "GOMEMLIMIT=1GiB")}, "SD403", false, 0},
		// SD404
		{"25.8% throttled is critical", "throttled", nil, "SD404", true, finding.Critical},
		{"0.5% throttled", "v2-quota", nil, "SD404", false, 0},
		{"5% throttled", "v2-quota", map[string]string{"sys/fs/cgroup/cpu.stat": "nr_periods 41210\nnr_throttled 2061\nthrottled_usec 9411876\n"}, "SD404", true, finding.Warning},
		{"half of 50 periods: too few to judge", "v2-quota", map[string]string{"sys/fs/cgroup/cpu.stat": "nr_periods 50\nnr_throttled 25\nthrottled_usec 411876\n"}, "SD404", false, 0},
		// SD405
		{"pod at 1 CPU, container unlimited", "v2-nested", nil, "SD405", true, finding.Warning},
		{"pod at 1.2, container at 1.5: both round up to 2", "v2-nested", map[string]string{nestedPod + "/cpu.max": "120000 100000\n", nestedCtr + "/cpu.max": "150000 100000\n"}, "SD405", false, 0},
		{"pod looser than the container", "v2-nested", map[string]string{nestedPod + "/cpu.max": "300000 100000\n", nestedCtr + "/cpu.max": "100000 100000\n"}, "SD405", false, 0},
		// SD406
		{"35% CPU pressure", "throttled", nil, "SD406", true, finding.Warning},
		{"9.9% CPU pressure", "throttled", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=30.00 avg60=9.90 avg300=5.00 total=1801224567\n"}, "SD406", false, 0},
		// The host's pressure is not the process's: 42% on the host while
		// the process's threads waited 0 ns is no finding.
		{"host pressure 42%, process waited 0", "host-pressure", nil, "SD406", false, 0},
		{"host pressure 42%, nothing of the process's own", "v1-quota", map[string]string{"proc/pressure/cpu": "some avg10=38.10 avg60=42.50 avg300=40.02 total=902211873\n"}, "SD406", false, 0},
		{"own cgroup 28% and own wait 29%", "own-pressure", nil, "SD406", true, finding.Warning},
		{"own wait 29%, cgroup pressure low", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1590331221\n"}, "SD406", true, finding.Warning},
		// A large share of many short waits is wake-up latency (info): a
		// server that wakes thousands of times a second on an idle machine.
		{"own wait 29% at 31µs per timeslice: wake-up latency, info", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "2400000000 1000000000 30211\n", "proc/4242/task/4247/schedstat": "1600000000 600000000 22187\n"}, "SD406", true, finding.Info},
		{"own cgroup 28% and own wait 29% at 31µs per timeslice: info", "own-pressure", map[string]string{"proc/4242/task/4242/schedstat": "2400000000 1000000000 30211\n", "proc/4242/task/4247/schedstat": "1600000000 600000000 22187\n"}, "SD406", true, finding.Info},
		{"own wait 29% at 99µs per timeslice: info", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "2400000000 1000000000 9500\n", "proc/4242/task/4247/schedstat": "1600000000 600000000 6662\n"}, "SD406", true, finding.Info},
		{"own wait 29% at 101µs per timeslice: warning", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "2400000000 1000000000 9500\n", "proc/4242/task/4247/schedstat": "1600000000 600000000 6342\n"}, "SD406", true, finding.Warning},
		{"own wait 29%, no timeslice counted: undecidable, no finding", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "2400000000 1000000000 0\n", "proc/4242/task/4247/schedstat": "1600000000 600000000 0\n"}, "SD406", false, 0},
		{"own cgroup 28%, process waited 0: info", "own-pressure", map[string]string{"proc/4242/task/4242/schedstat": "2400000000 0 30211\n", "proc/4242/task/4247/schedstat": "1600000000 0 22187\n"}, "SD406", true, finding.Info},
		{"own wait 9%: below the share", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "2400000000 200000000 30211\n", "proc/4242/task/4247/schedstat": "1600000000 190000000 22187\n"}, "SD406", false, 0},
		{"own wait 50% of 0.2s: too little runnable time to judge", "own-pressure", map[string]string{"sys/fs/cgroup/cpu.pressure": "some avg10=1.00 avg60=2.00 avg300=1.00 total=1\n", "proc/4242/task/4242/schedstat": "100000000 100000000 30\n", "proc/4242/task/4247/schedstat": "0 0 0\n"}, "SD406", false, 0},
		// SD407
		{"512 MiB, no GOMEMLIMIT", "v1-quota", nil, "SD407", true, finding.Info},
		{"GOMEMLIMIT set", "v2-quota", nil, "SD407", false, 0},
		{"memory limit, not a Go binary", "v1-quota", map[string]string{"proc/4242/exe": "#!/bin/sh\n"}, "SD407", false, 0},
		// SD408
		{"go1.24", "throttled", nil, "SD408", true, finding.Info},
		{"go1.25", "hybrid", nil, "SD408", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join("testdata", "fixtures", tc.fixture)
			if tc.files != nil {
				root = variant(t, tc.fixture, tc.files)
			}
			s := inspectFixture(t, root)
			fs := Findings(s)
			if _, err := json.Marshal(struct {
				S *Summary
				F []finding.Finding
			}{s, fs}); err != nil {
				t.Errorf("the report does not marshal: %v", err)
			}
			i := slices.IndexFunc(fs, func(f finding.Finding) bool { return f.Rule == tc.rule })
			switch {
			case tc.fires && i < 0:
				t.Errorf("no %s; findings %v; GOMAXPROCS %+v", tc.rule, ruleIDs(fs), s.GOMAXPROCS)
			case !tc.fires && i >= 0:
				t.Errorf("unexpected %s: %s", tc.rule, fs[i].Text())
			case tc.fires && fs[i].Severity != tc.sev:
				t.Errorf("%s severity %v, want %v: %s", tc.rule, fs[i].Severity, tc.sev, fs[i].Text())
			}
		})
	}
}

// TestComputeRules checks the GOMAXPROCS each Go version's rules give.
func TestComputeRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		affinity  int
		leaf      float64 // 0: none
		minor     int
		godebug   string
		automax   bool
		envVal    string
		want      int
		wantRule  string
		wantAvail float64
	}{
		{"1.24: the affinity count", 8, 2, 24, "", false, "", 8, "default-cpus", 2},
		{"1.25+: leaf rounded up", 8, 1.5, 25, "", false, "", 2, "default-container", 1.5},
		{"1.25+: at least 2", 8, 0.3, 26, "", false, "", 2, "default-container", 0.3},
		{"1.25+: not below the affinity", 1, 0.3, 26, "", false, "", 1, "default-container", 0.3},
		{"1.25+: quota above the CPUs", 4, 6, 26, "", false, "", 4, "default-container", 4},
		{"1.25+ with containermaxprocs=0", 8, 2, 26, "containermaxprocs=0", false, "", 8, "default-cpus", 2},
		{"automaxprocs rounds down", 8, 2.9, 26, "", true, "", 2, "automaxprocs", 2.9},
		{"automaxprocs at least 1", 8, 0.5, 26, "", true, "", 1, "automaxprocs", 0.5},
		{"automaxprocs ignores the affinity", 2, 6, 24, "", true, "", 6, "automaxprocs", 2},
		{"automaxprocs without a quota leaves the default", 4, 0, 24, "", true, "", 4, "default-cpus", 4},
		{"env beats everything", 8, 2, 26, "", true, "3", 3, "env", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Summary{CPUs: CPUs{Affinity: tc.affinity, AffinitySource: "/proc/1/status"}}
			l := Level{Dir: "/sys/fs/cgroup", QuotaFile: "/sys/fs/cgroup/cpu.max", LimitCPUs: tc.leaf}
			s.Cgroup.Levels = []Level{l}
			s.Binary = binaryFor(tc.minor, tc.godebug, tc.automax)
			if tc.envVal != "" {
				s.Env.GOMAXPROCS = &tc.envVal
			}
			compute(s, Options{Sysroot: "x"}, false)
			g := s.GOMAXPROCS
			if g.Computed != tc.want || g.Rule != tc.wantRule || s.CPUs.Available != tc.wantAvail {
				t.Errorf("got %d by %s, available %v; want %d by %s, available %v (%s)", g.Computed, g.Rule, s.CPUs.Available, tc.want, tc.wantRule, tc.wantAvail, g.Reason)
			}
		})
	}
}

func binaryFor(minor int, godebug string, automaxprocs bool) *Binary {
	info := &gobin.Info{GoVersion: fmt.Sprintf("go1.%d.1", minor), Minor: minor, DefaultGODEBUG: godebug}
	if automaxprocs {
		info.Automaxprocs = "v1.6.0"
	}
	b := &Binary{Path: "/proc/1/exe", IsGo: true, Info: info}
	b.applyGODEBUG("")
	return b
}

// TestHostPressureNote: with only the host's pressure at hand, the summary
// says so and SD406 stays silent.
func TestHostPressureNote(t *testing.T) {
	root := variant(t, "v1-quota", map[string]string{"proc/pressure/cpu": "some avg10=38.10 avg60=42.50 avg300=40.02 total=902211873\n"})
	s := inspectFixture(t, root)
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "only host-wide CPU pressure is available (/proc/pressure/cpu: some avg60 42.50%)") {
		t.Errorf("notes %q", s.Notes)
	}
	if s.Cgroup.Pressure != nil || s.Cgroup.HostPressure == nil {
		t.Errorf("pressure %+v host %+v: the host's file must not stand for the cgroup's", s.Cgroup.Pressure, s.Cgroup.HostPressure)
	}
}

// TestRootCgroupPressureIsHosts: the unified hierarchy's root file (this
// build machine's /sys/fs/cgroup/unified/cpu.pressure, with the process in
// "/") mirrors /proc/pressure/cpu: it is the host's, not the process's.
func TestRootCgroupPressureIsHosts(t *testing.T) {
	const psi = "some avg10=93.84 avg60=91.61 avg300=82.19 total=966512001\n"
	root := variant(t, "hybrid", map[string]string{
		"sys/fs/cgroup/unified/process_api/1750697f7be8ecf9a1c3486a3e1610f8/cpu.pressure": psi,
		"proc/pressure/cpu": "some avg10=93.84 avg60=91.61 avg300=82.19 total=967882728\n",
	})
	s := inspectFixture(t, root)
	if s.Cgroup.Pressure != nil || s.Cgroup.HostPressure == nil || len(s.Notes) == 0 {
		t.Errorf("pressure %+v, host %+v, notes %q", s.Cgroup.Pressure, s.Cgroup.HostPressure, s.Notes)
	}
	for _, f := range Findings(s) {
		if f.Rule == "SD406" {
			t.Errorf("SD406 from the host's pressure: %s", f.Text())
		}
	}
}

// TestSD406WakeLatencyOverAWindow: over a sampling window, a wait that is a
// large share of short runs counts as CPU pressure only when a timeslice
// waited about another thread's run (100 µs) or a quarter of a thread was
// waiting at all times. The figures are nats-server's on a quiet machine
// (25 µs per timeslice, 0.13 threads waiting) and under load.
func TestSD406WakeLatencyOverAWindow(t *testing.T) {
	wait := func(waitS, runS float64, slices int64) *Summary {
		w := &CPUWait{Files: "/proc/7/task/*/schedstat", Threads: 10, WindowSeconds: 1, WaitSeconds: waitS, RunSeconds: runS,
			Share: waitS / (waitS + runS), WaitingThreads: waitS, Timeslices: slices}
		if slices > 0 {
			w.WaitPerTimeslice = waitS / float64(slices)
		}
		return &Summary{Target: Target{PID: 7}, CPUWait: w}
	}
	for _, tc := range []struct {
		name     string
		s        *Summary
		want     bool
		severity finding.Severity
		words    []string
	}{
		{"nats quiet: 62%, 25µs, 0.13 threads", wait(0.127, 0.078, 5080), true, finding.Info,
			[]string{"25µs per timeslice", "5080 timeslices", "5080 times a second", "wake-up latency, not CPU pressure", "0.13 threads waiting on average", "under 0.25 threads waiting on average"}},
		{"0.24 threads at 30µs", wait(0.24, 0.2, 8000), true, finding.Info, []string{"30µs per timeslice"}},
		{"0.25 threads at 30µs", wait(0.25, 0.2, 8333), true, finding.Warning, []string{"0.25 threads waiting at once on average"}},
		{"nats at load 12: 0.87 threads", wait(0.866, 0.123, 29000), true, finding.Warning, []string{"0.87 threads waiting at once"}},
		{"0.2 threads at 177µs per timeslice", wait(0.2, 0.1, 1130), true, finding.Warning, []string{"177µs of wait per timeslice in 1130 timeslices"}},
		{"5% share at 300µs: below the share", wait(0.005, 0.095, 16), false, 0, nil},
		{"too little runnable time", wait(0.02, 0.02, 10), false, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := pressure(tc.s)
			if (f != nil) != tc.want {
				t.Fatalf("finding %v, want one: %v", f, tc.want)
			}
			if f == nil {
				return
			}
			if f.Severity != tc.severity {
				t.Errorf("severity %v, want %v: %s", f.Severity, tc.severity, f.Text())
			}
			for _, w := range tc.words {
				if !strings.Contains(f.Text(), w) {
					t.Errorf("message lacks %q: %s", w, f.Text())
				}
			}
			if !slices.ContainsFunc(f.Evidence, func(e finding.Evidence) bool { return e.Label == "run-queue wait per timeslice" }) {
				t.Errorf("no per-timeslice evidence: %+v", f.Evidence)
			}
		})
	}
}
