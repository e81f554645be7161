package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Generators of H1's hostile cases: input whose names and text carry
// terminal escapes, line breaks, bidi overrides and invalid UTF-8.

// hostileNames are the strings a crafted input uses as names: each would
// do something to a terminal if printed raw.
var hostileNames = []string{
	"main.evil\x1b]0;pwned\a",               // retitles the terminal
	"main.erase\x1b[2K\rforged line",        // erases the line and overwrites it
	"main.\u202eexe.gnp",                    // right-to-left override
	"main.nl\nSD999 forged: 100% of a core", // a forged report line
	"main.c1\u009b2J\x7f\xff",               // C1 CSI, DEL, invalid UTF-8
}

func init() {
	registerHostileGen("profile-escapes", genProfileEscapes)
	registerHostileGen("procs-escapes", genProcsEscapes)
}

// genProfileEscapes writes cpu.pb.gz: a CPU profile whose hot functions,
// files and labels carry the hostile names, busy enough to be reported.
func genProfileEscapes(dir string) error {
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: int64(2 * time.Second),
		TimeNanos:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	}
	var id uint64
	fn := func(name, file string) *pprof.Function {
		id++
		f := &pprof.Function{ID: id, Name: name, SystemName: name, Filename: file}
		p.Function = append(p.Function, f)
		return f
	}
	loc := func(fns ...*pprof.Function) *pprof.Location {
		l := &pprof.Location{ID: uint64(len(p.Location) + 1)}
		for i, f := range fns {
			l.Line = append(l.Line, pprof.Line{Function: f, Line: int64(10 + i)})
		}
		p.Location = append(p.Location, l)
		return l
	}
	mainMain := loc(fn("main.main", "/src/main.go"))
	selectgo := loc(fn("runtime.selectgo", "/usr/local/go/src/runtime/select.go"))
	futex := loc(fn("runtime.futex", "/usr/local/go/src/runtime/sys_linux_amd64.s"))
	wakep := loc(fn("runtime.wakep", "/usr/local/go/src/runtime/proc.go"))
	for i, name := range hostileNames {
		user := loc(fn(name, fmt.Sprintf("/src/\x1b[8m%d\u202e.go", i)))
		n := int64(20 + 10*i)
		label := map[string][]string{"endpoint": {"/v1/" + name}}
		// Flat in the user function, a select under it, and wake churn:
		// each path prints the user frame in a different part of the report.
		p.Sample = append(p.Sample,
			&pprof.Sample{Location: []*pprof.Location{user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
			&pprof.Sample{Location: []*pprof.Location{selectgo, user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
			&pprof.Sample{Location: []*pprof.Location{futex, wakep, user, mainMain}, Value: []int64{n, n * p.Period}, Label: label},
		)
	}
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

// genProcsEscapes copies procs' bare-host fixture and gives process 4242 a
// hostile name, environment, cgroup path and executable path.
func genProcsEscapes(dir string) error {
	root := filepath.Join(dir, "root")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(procsFixtures, "bare-host"))); err != nil {
		return err
	}
	pd := filepath.Join(root, "proc", "4242")
	status, err := os.ReadFile(filepath.Join(pd, "status"))
	if err != nil {
		return err
	}
	status = append([]byte("Name:\tapi\x1b]0;pwned\a\u202e\n"), status[len("Name:\tapi\n"):]...)
	env := "GOMAXPROCS=8\x1b[2J\x00GODEBUG=x=1\u202e\x00PATH=/bin\x1b]0;t\a\x00"
	cg := "0::/system.slice/api\x1b[8m.service\n"
	for name, data := range map[string][]byte{"status": status, "environ": []byte(env), "cgroup": []byte(cg)} {
		if err := os.WriteFile(filepath.Join(pd, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
