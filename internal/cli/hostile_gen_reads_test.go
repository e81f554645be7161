package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Generators of issue 19's read cases: inputs that name files of this
// machine (a profile recording /etc/passwd, a saved directory or a
// sysroot linking onto the host), which the run must not open; the
// files opened are checked under strace (hostile_opens_test.go).

func init() {
	registerHostileGen("reads-profile", genReadsProfile)
	registerHostileGen("reads-saved", genReadsSaved)
	registerHostileGen("reads-sysroot", genReadsSysroot)
	registerHostileGen("reads-budget", genReadsBudget)
}

// genReadsBudget: a small profile whose hot lines lie in 100 packages of
// GOROOT (a toolchain root: readable for a local file), which made the
// source reader parse and type check every one of them (35–45 s, up to
// 2.2 GB). The run's budget stops it, and the report says so; where the
// packages load fast enough, all 100 are read within the budget (a CI run
// under -race did: nothing stopped, in 8 s), so the case asserts the
// bounds every hostile case has (time, memory, the files opened), not the
// stop, which lint/inspect's TestReadBudget asserts on every limit.
func genReadsBudget(dir string) error {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return err
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	var paths []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(paths) == 100 {
			return filepath.SkipDir
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || d.Name() == "cmd") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			paths = append(paths, p)
			return filepath.SkipDir // one file per package
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(paths) < 100 {
		return fmt.Errorf("only %d packages under %s", len(paths), src)
	}
	return writeProfile(readsProfile(paths), filepath.Join(dir, "cpu.pb.gz"))
}

// readsTree writes DIR/src (the -src root of the cases) with .go names
// and a directory that are links out of it, and, beside the case
// directory, a Go file the recorded "../" paths reach on the old code. It
// returns the paths a hostile profile records.
func readsTree(dir string) ([]string, error) {
	outside := filepath.Join(filepath.Dir(dir), "outside-"+filepath.Base(dir))
	secret := filepath.Join(outside, "secret.go")
	src := filepath.Join(dir, "src", "pkg")
	for _, d := range []string{outside, src} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	goFile := "package secret\n\n// SECRET of this machine\nfunc spin(c chan int) {\n\tfor {\n\t\tselect {\n\t\tcase <-c:\n\t\tdefault:\n\t\t}\n\t}\n}\n"
	if err := os.WriteFile(secret, []byte(goFile), 0o600); err != nil {
		return nil, err
	}
	for name, target := range map[string]string{
		"passwd.go": "/etc/passwd",
		"secret.go": secret,
		"host.go":   "/etc/hostname",
	} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			return nil, err
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "src", "outdir")); err != nil {
		return nil, err
	}
	return []string{
		"/etc/passwd",
		"/proc/self/environ",
		"/proc/self/root/etc/passwd",
		"/proc/self/cwd/src/pkg/passwd.go",
		filepath.Join(src, "passwd.go"),
		filepath.Join(src, "secret.go"),
		"/build/pkg/host.go",
		"/build/outdir/secret.go",
		"x/../../../" + filepath.Base(outside) + "/secret.go",
		"../" + filepath.Base(outside) + "/secret.go",
		secret,
	}, nil
}

// readsProfile is a CPU profile in which each recorded path is the hot
// line of a user function, busy enough for the source to be asked.
func readsProfile(paths []string) *pprof.Profile {
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: int64(2 * time.Second),
		TimeNanos:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	}
	mainFn := &pprof.Function{ID: 1, Name: "main.main", SystemName: "main.main", Filename: "/src/main.go"}
	selFn := &pprof.Function{ID: 2, Name: "runtime.selectgo", SystemName: "runtime.selectgo", Filename: "/usr/local/go/src/runtime/select.go"}
	p.Function = append(p.Function, mainFn, selFn)
	mainLoc := &pprof.Location{ID: 1, Line: []pprof.Line{{Function: mainFn, Line: 5}}}
	selLoc := &pprof.Location{ID: 2, Line: []pprof.Line{{Function: selFn, Line: 300}}}
	p.Location = append(p.Location, mainLoc, selLoc)
	for i, path := range paths {
		name := fmt.Sprintf("main.spin%d", i)
		f := &pprof.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: path}
		p.Function = append(p.Function, f)
		l := &pprof.Location{ID: uint64(len(p.Location) + 1), Line: []pprof.Line{{Function: f, Line: 6}}}
		p.Location = append(p.Location, l)
		// Mostly in selectgo under the line: each line's select share is
		// above profile.CandidateShare, so each is read in the source.
		flat, sel := int64(10), int64(40)
		p.Sample = append(p.Sample,
			&pprof.Sample{Location: []*pprof.Location{l, mainLoc}, Value: []int64{flat, flat * p.Period}},
			&pprof.Sample{Location: []*pprof.Location{selLoc, l, mainLoc}, Value: []int64{sel, sel * p.Period}},
		)
	}
	return p
}

func writeProfile(p *pprof.Profile, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// genReadsProfile: a local profile file whose hot lines name files of
// this machine, -src DIR/src holding links out of it.
func genReadsProfile(dir string) error {
	paths, err := readsTree(dir)
	if err != nil {
		return err
	}
	return writeProfile(readsProfile(paths), filepath.Join(dir, "cpu.pb.gz"))
}

// genReadsSaved: a saved check directory (remote: captured from a
// target) with the same profile, a goroutine dump linked to /etc/passwd,
// a trace linked to /dev/zero and a mutex profile that is a FIFO.
func genReadsSaved(dir string) error {
	paths, err := readsTree(dir)
	if err != nil {
		return err
	}
	saved := filepath.Join(dir, "saved")
	if err := os.MkdirAll(saved, 0o755); err != nil {
		return err
	}
	if err := writeProfile(readsProfile(paths), filepath.Join(saved, "profile.pb.gz")); err != nil {
		return err
	}
	for name, target := range map[string]string{"goroutine-start.txt": "/etc/passwd", "trace.out": "/dev/zero", "block.pb.gz": "../../../../../../../../etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(saved, name)); err != nil {
			return err
		}
	}
	if err := syscall.Mkfifo(filepath.Join(saved, "mutex.pb.gz"), 0o644); err != nil {
		return err
	}
	type capture struct {
		Kind     string `json:"kind"`
		Endpoint string `json:"endpoint"`
		File     string `json:"file"`
	}
	m := map[string]any{"target": "http://127.0.0.1:6060", "start": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), "captures": []capture{
		{"profile", "/debug/pprof/profile?seconds=2", "profile.pb.gz"},
		{"goroutine-start", "/debug/pprof/goroutine?debug=2", "goroutine-start.txt"},
		{"trace", "/debug/pprof/trace?seconds=1", "trace.out"},
		{"mutex", "/debug/pprof/mutex", "mutex.pb.gz"},
		{"block", "/debug/pprof/block", "block.pb.gz"},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(saved, "manifest.json"), b, 0o644)
}

// genReadsSysroot: procs' v2-quota fixture whose process files and a
// cgroup file are absolute links onto this machine's files.
func genReadsSysroot(dir string) error {
	root := filepath.Join(dir, "root")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(procsFixtures, "v2-quota"))); err != nil {
		return err
	}
	for name, target := range map[string]string{
		"proc/4242/environ":      "/etc/passwd",
		"proc/4242/exe":          "/bin/sh",
		"sys/fs/cgroup/cpu.stat": "/etc/hostname",
		"sys/fs/cgroup/cpu.max":  "../../../../../../../../../etc/hostname",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	return nil
}
