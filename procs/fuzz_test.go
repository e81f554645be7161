package procs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzInspect writes the fuzzed files into a sysroot tree and runs the
// whole of procs on it: reading, lenient parsing, the gaps and the rules.
// Nothing may panic; every rule left undecided must name what it lacked;
// no finding may stand on an input that was unknown in a way that could
// overturn it. Seeds in testdata/fuzz/FuzzInspect; run with
// go test -run XXX -fuzz FuzzInspect ./procs.
func FuzzInspect(f *testing.F) {
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "fixtures", "v2-quota", filepath.FromSlash(rel)))
		if err != nil {
			f.Fatal(err)
		}
		return data
	}
	f.Add(read("proc/4242/mountinfo"), read("proc/4242/cgroup"), read("proc/4242/status"),
		read("sys/fs/cgroup/cpu.max"), read("sys/fs/cgroup/cpu.stat"), []byte("GOMAXPROCS=8\x00"))
	f.Fuzz(func(t *testing.T, mountinfo, cgroupFile, status, cpuMax, cpuStat, environ []byte) {
		root := t.TempDir()
		for rel, data := range map[string][]byte{
			"proc/4242/mountinfo": mountinfo, "proc/4242/cgroup": cgroupFile, "proc/4242/status": status,
			"proc/4242/environ": environ, "sys/fs/cgroup/cpu.max": cpuMax, "sys/fs/cgroup/cpu.stat": cpuStat,
		} {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Inspect(Options{Sysroot: root, PID: 4242})
		if err != nil {
			return // nothing could be analysed: an error, not a report
		}
		fs := Findings(s)
		for _, f := range fs {
			if withdrawn(s, f.Rule) {
				t.Fatalf("%s reported on a figure an unknown input could overturn", f.Rule)
			}
			if f.Text() == "" || len(f.Evidence) == 0 {
				t.Fatalf("%s without message or evidence", f.Rule)
			}
		}
		for _, u := range s.Undecided {
			if len(u.Inputs) == 0 || len(u.Why) == 0 {
				t.Fatalf("undecided %+v names nothing", u)
			}
		}
	})
}
