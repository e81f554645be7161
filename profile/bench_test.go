package profile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// benchSamples is the size of the benchmark profile.
const benchSamples = 1_000_000

var bigProfile struct {
	once sync.Once
	path string
	err  error
}

// bigProfilePath writes, once per test binary, a CPU profile of
// benchSamples samples built from the real lab profiles in testdata/lab:
// their stacks are replicated and their values varied, so the classifier
// sees real Go 1.26 stacks at a million-sample scale.
func bigProfilePath(b *testing.B) string {
	b.Helper()
	bigProfile.once.Do(func() {
		names, _ := filepath.Glob("testdata/lab/*.pb.gz")
		var srcs []*profile.Profile
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				bigProfile.err = err
				return
			}
			p, err := Read(context.Background(), n, bytes.NewReader(data), ReadOptions{})
			if err != nil {
				bigProfile.err = err
				return
			}
			p.Comments = nil
			srcs = append(srcs, p)
		}
		m, err := profile.Merge(srcs)
		if err != nil {
			bigProfile.err = err
			return
		}
		base := m.Sample
		m.Sample = make([]*profile.Sample, 0, benchSamples)
		for i := range benchSamples {
			s := base[i%len(base)]
			n := int64(1 + i%7)
			m.Sample = append(m.Sample, &profile.Sample{Location: s.Location, Value: []int64{n, n * m.Period}})
		}
		dir, err := os.MkdirTemp("", "schedoctor-bench")
		if err != nil {
			bigProfile.err = err
			return
		}
		bigProfile.path = filepath.Join(dir, "big.pb.gz")
		f, err := os.Create(bigProfile.path)
		if err != nil {
			bigProfile.err = err
			return
		}
		if err := m.Write(f); err != nil {
			bigProfile.err = err
		}
		f.Close()
	})
	if bigProfile.err != nil {
		b.Fatal(bigProfile.err)
	}
	return bigProfile.path
}

// BenchmarkAnalyze1M reads, parses and classifies a 1,000,000-sample
// profile and derives the findings: what `schedoctor profile FILE` does.
func BenchmarkAnalyze1M(b *testing.B) {
	path := bigProfilePath(b)
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Read(context.Background(), path, f, ReadOptions{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze([]*profile.Profile{p}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(benchSamples, "samples/op")
}

// BenchmarkPprofTop runs `go tool pprof -top` on the same file, the
// baseline: pprof's binary is resolved once (go tool -n pprof) so that the
// go command's start-up is not counted against it.
func BenchmarkPprofTop(b *testing.B) {
	path := bigProfilePath(b)
	out, err := exec.Command("go", "tool", "-n", "pprof").Output()
	if err != nil {
		b.Skipf("no go tool pprof: %v", err)
	}
	pprofBin := strings.TrimSpace(string(out))
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(pprofBin, "-top", path)
		cmd.Env = append(os.Environ(), "PPROF_BINARY_PATH=/nonexistent", "PPROF_TMPDIR="+b.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pprof -top: %v\n%s", err, out)
		}
	}
	b.ReportMetric(benchSamples, "samples/op")
}

// fleetSizes are the sample counts of BenchmarkFleet: what a continuous
// profiler's merged profile of a service holds (issue 23).
var fleetSizes = []int{100_000, 500_000, 1_000_000}

var fleetProfiles = struct {
	sync.Mutex
	data map[int][]byte
}{data: map[int][]byte{}}

// fleetProfile returns, once per test binary and size, the gzipped bytes
// of synth.Fleet's merged profile of n samples at depth 32.
func fleetProfile(b *testing.B, n int) []byte {
	b.Helper()
	fleetProfiles.Lock()
	defer fleetProfiles.Unlock()
	if d, ok := fleetProfiles.data[n]; ok {
		return d
	}
	var buf bytes.Buffer
	if err := synth.Fleet(synth.FleetOptions{Samples: n}).Write(&buf); err != nil {
		b.Fatal(err)
	}
	fleetProfiles.data[n] = buf.Bytes()
	return buf.Bytes()
}

// BenchmarkFleet puts, for each size, pprof's own profile.Parse of the
// file (the floor: every pprof tool starts with it) beside what
// `schedoctor profile FILE` does with it (Read with the default limits,
// then Analyze, without the flame graph; with it, as -html does), in the
// same run: the goal is at most twice Parse's time and memory. Each
// operation starts on a collected heap, as a command does (outside the
// timer: runtime.GC), so that the collections an operation pays are its
// own, not those the one before left due; beside the wall time,
// cpu-ns/op is the process's CPU time during the operations (every
// thread: the collector's included), the steadier figure on a shared
// machine.
func BenchmarkFleet(b *testing.B) {
	for _, n := range fleetSizes {
		name := fmt.Sprintf("%dk", n/1000)
		b.Run(name+"/parse", func(b *testing.B) {
			data := fleetProfile(b, n)
			b.SetBytes(int64(len(data)))
			fleetLoop(b, func() {
				p, err := profile.Parse(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Sample) != n {
					b.Fatalf("%d samples, want %d", len(p.Sample), n)
				}
			})
		})
		// As the command analyses for its text and JSON reports (no
		// flame graph), and as it does for -html (Analyze's zero Options).
		for _, mode := range []struct {
			name string
			opt  Options
		}{{"schedoctor", Options{NoFlame: true}}, {"schedoctor-flame", Options{}}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				data := fleetProfile(b, n)
				b.SetBytes(int64(len(data)))
				fleetLoop(b, func() {
					p, err := Read(context.Background(), "fleet.pb.gz", bytes.NewReader(data), ReadOptions{})
					if err != nil {
						b.Fatal(err)
					}
					res, err := Analyze([]*profile.Profile{p}, mode.opt)
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Findings) == 0 {
						b.Fatal("no finding: the planted spin was missed")
					}
				})
			})
		}
	}
}

// fleetLoop runs op b.N times, each on a collected heap, and reports its
// allocations and (where it can be read) its CPU time as cpu-ns/op.
func fleetLoop(b *testing.B, op func()) {
	b.ReportAllocs()
	var cpu time.Duration
	measured := true
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		start, ok := processCPU()
		b.StartTimer()
		op()
		b.StopTimer()
		end, ok2 := processCPU()
		b.StartTimer()
		cpu += end - start
		measured = measured && ok && ok2
	}
	if measured && b.N > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}
