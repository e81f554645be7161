package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Generators of the newcomer cases of issue 19: names of a MiB, and a
// recording of one kind under a name that a terminal would act on.

func init() {
	registerHostileGen("profile-huge-names", genProfileHugeNames)
	registerHostileGen("goroutines-huge-names", genGoroutinesHugeNames)
	registerHostileGen("kind-hostile-name", genKindHostileName)
}

// hugeName is a name of n bytes (a function, a file, a label value), of
// letters that do not compress (a profile inflating 100 times is refused
// as a bomb), with a bidi override in the middle, so that a cut that kept
// it raw would show.
func hugeName(prefix string, n int) string {
	r := rand.New(rand.NewPCG(19, uint64(n)))
	b := []byte(prefix)
	for len(b) < n/2 {
		b = append(b, byte('a'+r.IntN(26)))
	}
	b = append(b, "\u202e"...)
	for len(b) < n {
		b = append(b, byte('a'+r.IntN(26)))
	}
	return string(b)
}

// genProfileHugeNames writes cpu.pb.gz: a CPU profile whose hot user
// function, its file and its label are 1 MiB each, busy enough to be
// reported (a select under it, and wake churn).
func genProfileHugeNames(dir string) error {
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: int64(2 * time.Second),
		TimeNanos:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	}
	var id uint64
	loc := func(name, file string) *pprof.Location {
		id++
		f := &pprof.Function{ID: id, Name: name, SystemName: name, Filename: file}
		p.Function = append(p.Function, f)
		l := &pprof.Location{ID: id, Line: []pprof.Line{{Function: f, Line: 10}}}
		p.Location = append(p.Location, l)
		return l
	}
	mainMain := loc("main.main", "/src/main.go")
	selectgo := loc("runtime.selectgo", "/usr/local/go/src/runtime/select.go")
	futex := loc("runtime.futex", "/usr/local/go/src/runtime/sys_linux_amd64.s")
	wakep := loc("runtime.wakep", "/usr/local/go/src/runtime/proc.go")
	user := loc(hugeName("main.", 1<<20), "/src/"+hugeName("d", 1<<20)+".go")
	label := map[string][]string{"endpoint": {hugeName("/v1/", 1<<20)}}
	const n = 100
	p.Sample = append(p.Sample,
		&pprof.Sample{Location: []*pprof.Location{user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
		&pprof.Sample{Location: []*pprof.Location{selectgo, user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
		&pprof.Sample{Location: []*pprof.Location{futex, wakep, user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
	)
	f, err := os.Create(filepath.Join(dir, "cpu.pb.gz"))
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// genGoroutinesHugeNames writes dump.txt: a debug=2 dump in which 50
// goroutines are parked on a send for an hour in a function of 60 KB,
// created at a file of 60 KB (an SD701 by age). The reader skips lines
// over 64 KiB, so this is the longest name a dump can bring.
func genGoroutinesHugeNames(dir string) error {
	fn, file := hugeName("main.", 60_000), "/src/"+hugeName("d", 60_000)+".go"
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "goroutine %d [chan send, 60 minutes]:\n%s(...)\n\t%s:12 +0x1d\ncreated by main.main in goroutine 1\n\t/src/main.go:9 +0x2a\n\n", i+10, fn, file)
	}
	return os.WriteFile(filepath.Join(dir, "dump.txt"), []byte(b.String()), 0o644)
}

// genKindHostileName copies an execution trace under a name with a
// terminal escape, a bidi override and a line break: the message that
// names the command to read it must quote the name, not print it raw.
func genKindHostileName(dir string) error {
	data, err := os.ReadFile(traceFixtures + "mutex.trace")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "t\x1b]0;pwned\a\u202egnp.trace"), data, 0o644)
}
