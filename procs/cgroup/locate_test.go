package cgroup

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustMounts(t *testing.T, s string) []Mount {
	t.Helper()
	ms, err := ParseMountinfo([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func mustEntries(t *testing.T, s string) []Entry {
	t.Helper()
	es, err := ParseProcCgroup([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestLocate(t *testing.T) {
	const v2Host = "30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	const dockerV1 = "821 819 0:33 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n" +
		"823 819 0:35 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
	for _, tc := range []struct {
		name, mounts, cgroup, controller string
		want                             Dir
		levels                           []string
	}{
		{"v2 nested", v2Host, "0::/kubepods.slice/pod1.slice/ctr.scope\n", "cpu",
			Dir{2, "/sys/fs/cgroup", "/kubepods.slice/pod1.slice/ctr.scope"},
			[]string{"/sys/fs/cgroup/kubepods.slice/pod1.slice/ctr.scope", "/sys/fs/cgroup/kubepods.slice/pod1.slice", "/sys/fs/cgroup/kubepods.slice", "/sys/fs/cgroup"}},
		{"v2 namespace root", v2Host, "0::/\n", "cpu", Dir{2, "/sys/fs/cgroup", ""}, []string{"/sys/fs/cgroup"}},
		{"v1 docker mount root", dockerV1, "4:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n", "cpu",
			Dir{1, "/sys/fs/cgroup/cpu,cpuacct", ""}, []string{"/sys/fs/cgroup/cpu,cpuacct"}},
		{"v1 memory", dockerV1, "4:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc/sub\n", "memory",
			Dir{1, "/sys/fs/cgroup/memory", "/sub"}, []string{"/sys/fs/cgroup/memory/sub", "/sys/fs/cgroup/memory"}},
		{"hybrid: v1 cpu wins over v2", hybridMountinfo, "1:cpu:/a\n0::/b\n", "cpu",
			Dir{1, "/sys/fs/cgroup/cpu", "/a"}, []string{"/sys/fs/cgroup/cpu/a", "/sys/fs/cgroup/cpu"}},
		{"hybrid: controller only in v2", hybridMountinfo, "1:cpu:/a\n0::/b\n", "pids",
			Dir{2, "/sys/fs/cgroup/unified", "/b"}, []string{"/sys/fs/cgroup/unified/b", "/sys/fs/cgroup/unified"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Locate(mustMounts(t, tc.mounts), mustEntries(t, tc.cgroup), tc.controller)
			if err != nil {
				t.Fatal(err)
			}
			if d != tc.want {
				t.Errorf("Locate = %+v, want %+v", d, tc.want)
			}
			if got := d.Levels(); !reflect.DeepEqual(got, tc.levels) {
				t.Errorf("Levels = %q, want %q", got, tc.levels)
			}
		})
	}
}

func TestLocateErrors(t *testing.T) {
	// A mount root that is not a path prefix ("/docker/abcd" vs "/docker/abc")
	// does not match, and a path outside the namespace ("/..") is unreachable.
	mounts := mustMounts(t, "821 819 0:33 /docker/abc /sys/fs/cgroup/cpu ro - cgroup cgroup rw,cpu\n"+
		"30 22 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n")
	if _, err := Locate(mounts, mustEntries(t, "4:cpu:/docker/abcd\n"), "cpu"); err == nil || !strings.Contains(err.Error(), "no cgroup (v1) with the cpu controller mount") {
		t.Errorf("prefix at a non-boundary: err = %v", err)
	}
	if _, err := Locate(mounts, mustEntries(t, "0::/../../init\n"), "cpu"); err == nil || !strings.Contains(err.Error(), "no cgroup2 mount") {
		t.Errorf("outside the namespace: err = %v", err)
	}
	if _, err := Locate(mounts, mustEntries(t, "4:memory:/x\n"), "cpu"); !errors.Is(err, ErrNoCgroup) {
		t.Errorf("no hierarchy with cpu: err = %v, want ErrNoCgroup", err)
	}
}
