package cli

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	pprof "github.com/google/pprof/profile"
)

// Generators of H2b's hostile cases: sysroots holding what a checkout
// cannot (FIFOs) and inputs too big to commit (bombs), for procs,
// schedtrace, goroutine dumps and contention profiles.

func init() {
	registerHostileGen("procs-fifo", genProcsFIFO)
	registerHostileGen("procs-mountinfo-huge", genProcsMountinfoHuge)
	registerHostileGen("goroutines-proto-frames-bomb", genGoroutinesFramesBomb)
	registerHostileGen("goroutines-deep-stack", genGoroutinesDeepStack)
	registerHostileGen("contention-negative", genContentionNegative)
	registerHostileGen("schedtrace-many-ticks", genSchedtraceManyTicks)
	registerHostileGen("goroutines-gzip-bomb", genGoroutinesGzipBomb)
}

// genGoroutinesGzipBomb: 300 MB of a debug=2 record repeated, gzipped to
// about 1 MB: over the 256 MB default once decompressed.
func genGoroutinesGzipBomb(dir string) error {
	f, err := os.Create(filepath.Join(dir, "bomb.txt.gz"))
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		f.Close()
		return err
	}
	chunk := bytes.Repeat([]byte("goroutine 1 [running]:\nmain.main()\n\t/src/a.go:1 +0x1\n\n"), 1<<14)
	for n := 0; n < 300<<20; n += len(chunk) {
		if _, err := zw.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copyFixture copies a procs fixture tree to dir/root.
func copyFixture(dir, fixture string) (string, error) {
	root := filepath.Join(dir, "root")
	return root, os.CopyFS(root, os.DirFS(filepath.Join(procsFixtures, fixture)))
}

// genProcsFIFO: the mount table and cpu.stat are FIFOs with no writer. An
// open or a read of either blocks forever unless refused.
func genProcsFIFO(dir string) error {
	root, err := copyFixture(dir, "v2-quota")
	if err != nil {
		return err
	}
	for _, rel := range []string{"proc/4242/mountinfo", "sys/fs/cgroup/cpu.stat", "proc/4242/environ"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil {
			return err
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			return fmt.Errorf("mkfifo %s: %w", p, err)
		}
	}
	return nil
}

// genProcsMountinfoHuge: a mount table of 16 MB, four times the default
// cap of a /proc file.
func genProcsMountinfoHuge(dir string) error {
	root, err := copyFixture(dir, "v2-quota")
	if err != nil {
		return err
	}
	p := filepath.Join(root, "proc", "4242", "mountinfo")
	mi, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	return os.WriteFile(p, bytes.Repeat(mi, 16<<20/len(mi)+1), 0o644)
}

// genGoroutinesFramesBomb: a gzipped goroutine profile of 100k samples of
// 100 frames each: 10 million location references in about 40 KB, which
// pprof would expand to hundreds of MB.
func genGoroutinesFramesBomb(dir string) error {
	fn := &pprof.Function{ID: 1, Name: "main.f", Filename: "/src/main.go"}
	loc := &pprof.Location{ID: 1, Line: []pprof.Line{{Function: fn, Line: 1}}}
	stack := make([]*pprof.Location, 100)
	for i := range stack {
		stack[i] = loc
	}
	p := &pprof.Profile{SampleType: []*pprof.ValueType{{Type: "goroutine", Unit: "count"}},
		Function: []*pprof.Function{fn}, Location: []*pprof.Location{loc}}
	for range 100_000 {
		p.Sample = append(p.Sample, &pprof.Sample{Location: stack, Value: []int64{1}})
	}
	f, err := os.Create(filepath.Join(dir, "goroutine.pb.gz"))
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// genGoroutinesDeepStack: a debug=2 dump whose one goroutine has two
// million frames (no Go traceback prints more than 100).
func genGoroutinesDeepStack(dir string) error {
	var b strings.Builder
	b.WriteString("goroutine 1 [chan receive, 30 minutes]:\n")
	for i := range 2_000_000 {
		fmt.Fprintf(&b, "main.f%d()\n\t/src/a.go:%d +0x1\n", i%5, i%1000+1)
	}
	return os.WriteFile(filepath.Join(dir, "deep.txt"), []byte(b.String()), 0o644)
}

// genContentionNegative: a mutex profile whose samples carry negative
// counts and delays beside sane ones.
func genContentionNegative(dir string) error {
	fn := &pprof.Function{ID: 1, Name: "main.work", Filename: "/src/main.go"}
	unlock := &pprof.Function{ID: 2, Name: "sync.(*Mutex).Unlock", Filename: "/go/src/sync/mutex.go"}
	l1 := &pprof.Location{ID: 1, Line: []pprof.Line{{Function: unlock, Line: 200}}}
	l2 := &pprof.Location{ID: 2, Line: []pprof.Line{{Function: fn, Line: 42}}}
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "contentions", Unit: "count"}, {Type: "delay", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "contentions", Unit: "count"},
		Period:        1,
		DurationNanos: 5e9,
		Function:      []*pprof.Function{fn, unlock},
		Location:      []*pprof.Location{l1, l2},
		Sample: []*pprof.Sample{
			{Location: []*pprof.Location{l1, l2}, Value: []int64{-9223372036854775807, 5e9}},
			{Location: []*pprof.Location{l1, l2}, Value: []int64{100, -1}},
			{Location: []*pprof.Location{l1, l2}, Value: []int64{9223372036854775807, 9223372036854775807}},
			{Location: []*pprof.Location{l1, l2}, Value: []int64{9223372036854775807, 1}},
		},
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := p.WriteUncompressed(zw); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "mutex.pb.gz"), buf.Bytes(), 0o644)
}

// genSchedtraceManyTicks: 200k snapshots of 64 Ps (about 60 MB): analysed
// over the last -max-ticks only.
func genSchedtraceManyTicks(dir string) error {
	var b bytes.Buffer
	ps := strings.Repeat(" 3", 64)
	for i := range 200_000 {
		fmt.Fprintf(&b, "SCHED %dms: gomaxprocs=64 idleprocs=0 threads=70 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=%d [%s ]\n", i*10, i%50, ps)
	}
	return os.WriteFile(filepath.Join(dir, "sched.txt"), b.Bytes(), 0o644)
}
