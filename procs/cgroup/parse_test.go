package cgroup

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// This machine's /proc/self/mountinfo shape: cgroup v1 controllers under a
// tmpfs at /sys/fs/cgroup, and the unified hierarchy at .../unified.
const hybridMountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

func TestParseMountinfo(t *testing.T) {
	ms, err := ParseMountinfo([]byte(hybridMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 7 {
		t.Fatalf("got %d mounts, want 7", len(ms))
	}
	want := Mount{ID: 32, Parent: 31, Root: "/", MountPoint: "/sys/fs/cgroup/cpu", FSType: "cgroup", Source: "cgroup", SuperOptions: []string{"rw", "cpu"}}
	if !reflect.DeepEqual(ms[3], want) {
		t.Errorf("mount 3 = %+v, want %+v", ms[3], want)
	}
	// Optional fields (shared:, master:) and escaped spaces.
	line := `1212 1211 0:26 /a\040b /sys/fs/cgroup ro,nosuid shared:9 master:3 - cgroup2 cgroup rw,nsdelegate` + "\n"
	ms, err = ParseMountinfo([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Root != "/a b" || ms[0].FSType != "cgroup2" || ms[0].Source != "cgroup" {
		t.Errorf("got %+v", ms[0])
	}
}

func TestParseMountinfoErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"22 27 0:21 / /proc rw,relatime proc proc rw\n", "line 1: want at least 10 fields"},
		{"x 27 0:21 / /proc rw,relatime - proc proc rw\n", "line 1: mount IDs"},
		{"\n22 27 0:21 proc /proc rw,relatime - proc proc rw\n", "line 2: root \"proc\""},
		{`22 27 0:21 /a\04 /proc rw - proc proc rw`, "truncated escape"},
		{`22 27 0:21 /a\999 /proc rw - proc proc rw`, "bad escape"},
	} {
		_, err := ParseMountinfo([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseMountinfo(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestParseProcCgroup(t *testing.T) {
	es, err := ParseProcCgroup([]byte("4:memory:/process_api/17\n1:cpu,cpuacct:/\n0::/\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Hierarchy: 4, Controllers: []string{"memory"}, Path: "/process_api/17"},
		{Hierarchy: 1, Controllers: []string{"cpu", "cpuacct"}, Path: "/"},
		{Hierarchy: 0, Path: "/"},
	}
	if !reflect.DeepEqual(es, want) {
		t.Errorf("got %+v, want %+v", es, want)
	}
	// A path may contain colons.
	es, err = ParseProcCgroup([]byte("0::/a:b\n"))
	if err != nil || es[0].Path != "/a:b" {
		t.Errorf("got %+v, %v", es, err)
	}
	for _, bad := range []string{"", "0:/\n", "x::/\n", "0::relative\n"} {
		if _, err := ParseProcCgroup([]byte(bad)); err == nil {
			t.Errorf("ParseProcCgroup(%q): want an error", bad)
		}
	}
}

func TestParseCPUMax(t *testing.T) {
	for _, tc := range []struct {
		in    string
		cores float64
	}{
		{"max 100000\n", math.Inf(1)},
		{"150000 100000\n", 1.5},
		{"50000 100000", 0.5},
		{"400000 100000\n", 4},
	} {
		q, err := ParseCPUMax([]byte(tc.in))
		if err != nil {
			t.Errorf("ParseCPUMax(%q): %v", tc.in, err)
			continue
		}
		if q.Cores() != tc.cores {
			t.Errorf("ParseCPUMax(%q).Cores() = %v, want %v", tc.in, q.Cores(), tc.cores)
		}
	}
	for _, bad := range []string{"", "150000\n", "max\n", "max 0\n", "-5 100000\n", "0 100000\n", "1 2 3\n", "max -1\n", "abc 100000\n"} {
		if _, err := ParseCPUMax([]byte(bad)); err == nil {
			t.Errorf("ParseCPUMax(%q): want an error", bad)
		}
	}
}

func TestParseV1Quota(t *testing.T) {
	q, err := ParseV1Quota([]byte("200000\n"), []byte("100000\n"))
	if err != nil || q.Cores() != 2 {
		t.Errorf("got %v, %v; want 2 CPUs", q.Cores(), err)
	}
	q, err = ParseV1Quota([]byte("-1\n"), []byte("100000\n"))
	if err != nil || q.Limited {
		t.Errorf("-1: got %+v, %v; want no limit", q, err)
	}
	for _, bad := range [][2]string{{"-2", "100000"}, {"0", "100000"}, {"100", "0"}, {"x", "100000"}, {"100", ""}} {
		if _, err := ParseV1Quota([]byte(bad[0]), []byte(bad[1])); err == nil {
			t.Errorf("ParseV1Quota(%q, %q): want an error", bad[0], bad[1])
		}
	}
}

func TestParseStatAndPressure(t *testing.T) {
	st, err := ParseStat([]byte("nr_periods 52000\nnr_throttled 13400\nthrottled_usec 402118776\n"))
	if err != nil || st["nr_throttled"] != 13400 {
		t.Errorf("got %v, %v", st, err)
	}
	if _, err := ParseStat([]byte("nr_periods twelve\n")); err == nil {
		t.Error("want an error for a non-numeric value")
	}
	p, err := ParsePressure([]byte("some avg10=41.22 avg60=35.10 avg300=28.90 total=1801224567\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"))
	if err != nil || p.Avg60 != 35.10 || p.TotalUS != 1801224567 {
		t.Errorf("got %+v, %v", p, err)
	}
	for _, bad := range []string{"", "full avg10=0 avg60=0 avg300=0 total=0\n", "some avg10=x avg60=0 avg300=0 total=0\n", "some avg10=0\n", "some avg10=200 avg60=0 avg300=0 total=0\n"} {
		if _, err := ParsePressure([]byte(bad)); err == nil {
			t.Errorf("ParsePressure(%q): want an error", bad)
		}
	}
}

func TestParseMemoryLimit(t *testing.T) {
	for in, want := range map[string]uint64{"max\n": 0, "536870912\n": 536870912, "9223372036854771712\n": 0} {
		got, err := ParseMemoryLimit([]byte(in))
		if err != nil || got != want {
			t.Errorf("ParseMemoryLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := ParseMemoryLimit([]byte("lots\n")); err == nil {
		t.Error("want an error")
	}
}

func TestParseCPUList(t *testing.T) {
	l, err := ParseCPUList([]byte("0-3,8,10-11,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 7 || l.String() != "0-3,8,10-11" {
		t.Errorf("got %v (%d CPUs), want 0-3,8,10-11 (7)", l, len(l))
	}
	if l, err := ParseCPUList([]byte("\n")); err != nil || len(l) != 0 {
		t.Errorf("empty list: %v, %v", l, err)
	}
	for _, bad := range []string{"3-1", "a", "0-", "-1", "0,,1", "99999999"} {
		if _, err := ParseCPUList([]byte(bad)); err == nil {
			t.Errorf("ParseCPUList(%q): want an error", bad)
		}
	}
}

func TestStatusField(t *testing.T) {
	status := "Name:\tserver\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n"
	if v, ok := StatusField([]byte(status), "Cpus_allowed_list"); !ok || v != "0-7" {
		t.Errorf("got %q, %v", v, ok)
	}
	if _, ok := StatusField([]byte(status), "Cpus"); ok {
		t.Error("a prefix of a field name must not match")
	}
}

// TestParseLiveFiles parses this machine's own files, whatever their shape.
func TestParseLiveFiles(t *testing.T) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if _, err := ParseMountinfo(mi); err != nil {
		t.Errorf("/proc/self/mountinfo: %v", err)
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skipf("no /proc/self/cgroup: %v", err)
	}
	if _, err := ParseProcCgroup(cg); err != nil {
		t.Errorf("/proc/self/cgroup: %v", err)
	}
}
