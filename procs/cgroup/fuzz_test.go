package cgroup

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// The fuzz targets check that no input panics and that what parses obeys the
// invariants the readers rely on. Seed corpora are in testdata/fuzz/FuzzXxx
// (real files from the fixture trees and this machine); run one with
// go test -run XXX -fuzz FuzzParseMountinfo -fuzztime 60s ./procs/cgroup.

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte(hybridMountinfo))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, skipped := ParseMountinfoLines(data)
		for _, m := range ms {
			if !strings.HasPrefix(m.Root, "/") || !strings.HasPrefix(m.MountPoint, "/") || m.FSType == "" {
				t.Fatalf("accepted mount %+v", m)
			}
		}
		// Every non-blank line is either a mount or named as skipped.
		if n := nonBlankLines(data); len(ms)+len(skipped) != n {
			t.Fatalf("%d mounts + %d skipped != %d lines", len(ms), len(skipped), n)
		}
		for _, e := range skipped {
			if e.Line < 1 || e.Err == nil {
				t.Fatalf("skipped %+v", e)
			}
		}
		_ = Lines(skipped)
		strict, err := ParseMountinfo(data)
		if (err == nil) != (len(skipped) == 0) || err == nil && len(strict) != len(ms) {
			t.Fatalf("strict %d mounts, %v; lenient %d, %d skipped", len(strict), err, len(ms), len(skipped))
		}
	})
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add([]byte("4:memory:/process_api/17\n1:cpu,cpuacct:/\n0::/\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, skipped := ParseProcCgroupLines(data)
		for _, e := range es {
			if !strings.HasPrefix(e.Path, "/") || e.Hierarchy < 0 {
				t.Fatalf("accepted entry %+v", e)
			}
		}
		if n := nonBlankLines(data); len(es)+len(skipped) != n {
			t.Fatalf("%d entries + %d skipped != %d lines", len(es), len(skipped), n)
		}
	})
}

// FuzzLocate feeds both files to Locate, which must give a directory under a
// mount point or an error, never a panic.
func FuzzLocate(f *testing.F) {
	f.Add([]byte(hybridMountinfo), []byte("1:cpu:/a/b\n0::/c\n"), "cpu")
	f.Add([]byte("30 22 0:26 /x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"), []byte("0::/x/y\n"), "memory")
	f.Fuzz(func(t *testing.T, mountinfo, cgroup []byte, controller string) {
		// The lenient parsers, as procs uses them: what survives the
		// skipped lines must still locate safely.
		ms, _ := ParseMountinfoLines(mountinfo)
		es, _ := ParseProcCgroupLines(cgroup)
		d, err := Locate(ms, es, controller)
		if err != nil {
			return
		}
		levels := d.Levels()
		if levels[0] != d.Leaf() || levels[len(levels)-1] != d.MountPoint {
			t.Fatalf("levels %q of %+v", levels, d)
		}
		if strings.HasPrefix(d.Rel, "/../") || d.Rel == "/.." {
			t.Fatalf("unreachable cgroup accepted: %+v", d)
		}
	})
}

func FuzzParseCPUMax(f *testing.F) {
	f.Add([]byte("max 100000\n"))
	f.Add([]byte("150000 100000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseCPUMax(data)
		if err != nil {
			return
		}
		if q.PeriodUS <= 0 || (q.Limited && (q.QuotaUS <= 0 || math.IsInf(q.Cores(), 0) || q.Cores() <= 0)) {
			t.Fatalf("accepted %+v from %q", q, data)
		}
	})
}

func FuzzParseV1Quota(f *testing.F) {
	f.Add([]byte("200000\n"), []byte("100000\n"))
	f.Add([]byte("-1\n"), []byte("100000\n"))
	f.Fuzz(func(t *testing.T, quota, period []byte) {
		q, err := ParseV1Quota(quota, period)
		if err != nil {
			return
		}
		if q.PeriodUS <= 0 || (q.Limited && q.QuotaUS <= 0) {
			t.Fatalf("accepted %+v", q)
		}
	})
}

func FuzzParseCPUList(f *testing.F) {
	f.Add([]byte("0-3,8,10-11\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseCPUList(data)
		if err != nil {
			return
		}
		again, err := ParseCPUList([]byte(l.String()))
		if err != nil || !reflect.DeepEqual(l, again) && len(l)+len(again) > 0 {
			t.Fatalf("%q: %v prints as %q, which parses as %v, %v", data, l, l.String(), again, err)
		}
	})
}

func FuzzParsePressure(f *testing.F) {
	f.Add([]byte("some avg10=0.31 avg60=0.44 avg300=0.40 total=3912005\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePressure(data)
		if err != nil {
			return
		}
		for _, v := range []float64{p.Avg10, p.Avg60, p.Avg300} {
			if v < 0 || v > 100 || math.IsNaN(v) {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("nr_periods 52000\nnr_throttled 13400\nthrottled_usec 402118776\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, skipped := ParseStatLines(data)
		if n := nonBlankLines(data); len(skipped) > n || len(st) > n-len(skipped) {
			t.Fatalf("%d keys, %d skipped of %d lines", len(st), len(skipped), n)
		}
		_, _ = ParseMemoryLimit(data)
		_, _ = ParseInt(data)
	})
}

// FuzzParseSchedstat: /proc/PID/task/TID/schedstat never parses to a
// negative time.
func FuzzParseSchedstat(f *testing.F) {
	f.Add([]byte("2400000000 1000000000 30211\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, wait, err := ParseSchedstat(data)
		if err == nil && (run < 0 || wait < 0) {
			t.Fatalf("%q: run %v wait %v", data, run, wait)
		}
	})
}

// FuzzStatus: /proc/PID/status as procs reads it (the name, the affinity
// list through ParseCPUList).
func FuzzStatus(f *testing.F) {
	f.Add([]byte("Name:\tserver\nThreads:\t9\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = StatusField(data, "Name")
		if v, ok := StatusField(data, "Cpus_allowed_list"); ok {
			if strings.ContainsAny(v, "\n") {
				t.Fatalf("field value %q spans lines", v)
			}
			if l, err := ParseCPUList([]byte(v)); err == nil && len(l) > maxCPU {
				t.Fatalf("%d CPUs", len(l))
			}
		}
	})
}

func nonBlankLines(data []byte) int {
	n := 0
	for range lines(data) {
		n++
	}
	return n
}
