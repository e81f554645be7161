// Package lab holds schedoctor's lab: small programs, each one scheduler
// anti-pattern and its fixed twin (selected with -fixed), plus healthy
// controls. They are the fixtures of the end-to-end tests and what
// `schedoctor demo` runs and diagnoses.
//
// A program marks the lines a diagnosis must point at with a trailing
// comment "lab:SDnnn" (several may share a line); Markers reads them, so
// tests assert rule and file:line without hard-coding line numbers.
package lab

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Sources is the lab's source: every program's main.go and the labrun
// harness, as files under their directory names.
//
//go:embed */*.go
var Sources embed.FS

// Program describes one lab program.
type Program struct {
	Name    string   // directory under internal/lab
	Summary string   // one line
	Healthy bool     // a control: no source may warn about it
	Env     []string // extra environment the anti-pattern needs (GOMAXPROCS=8)
	// Sweep marks a workload made for schedoctor sweep (a fixed amount of
	// work and a metric, or a server for -load) rather than a lesson: the
	// demo does not run it.
	Sweep bool
	// GoVersion is the go line of the module the program is linted in;
	// "" means the project's own. Set by a "lab:go 1.22" line in its doc.
	GoVersion string
}

// Programs lists the lab, in the order the demo shows it.
var Programs = []Program{
	{Name: "busyselect", Summary: "consumer polls a channel with select and an empty default"},
	{Name: "sleeppoll", Summary: "spawners throttle on runtime.NumGoroutine, polling with a 5µs sleep"},
	{Name: "timerloop", Summary: "time.After made anew on every loop iteration"},
	{Name: "gosched", Summary: "waiter spins on an atomic flag with runtime.Gosched"},
	{Name: "tickerleak", Summary: "ticker never stopped, in a go 1.22 module", GoVersion: "1.22"},
	{Name: "mutex", Summary: "every worker updates one map under one sync.Mutex"},
	{Name: "gcpressure", Summary: "per-item linked structures keep the GC running"},
	{Name: "syscallheavy", Summary: "one write(2) per small record"},
	{Name: "fanout", Summary: "one goroutine per CPU-bound item, a thousand at a time"},
	{Name: "overprocs", Summary: "CPU-bound goroutines with GOMAXPROCS=8, above the CPUs", Env: []string{"GOMAXPROCS=8"}},
	{Name: "busyhandler", Summary: "HTTP handler waits for a background job with select and an empty default"},
	{Name: "ringbuffer", Summary: "lock-free ring buffer whose put and get spin on runtime.Gosched in a CAS loop"},
	{Name: "workerpool", Summary: "healthy: a worker pool doing real work", Healthy: true},
	{Name: "pingpong", Summary: "healthy: a channel ping-pong, busy but legitimate", Healthy: true},
	{Name: "cpubound", Summary: "healthy: a fixed amount of CPU work split across the Ps (sweep)", Healthy: true, Sweep: true},
	{Name: "lockcontend", Summary: "a fixed crew of workers serialised on one sync.Mutex (sweep: negative scaling)", Sweep: true},
	{Name: "httpserver", Summary: "healthy: a loopback HTTP server doing CPU work per request (sweep -load)", Healthy: true, Sweep: true},
}

// Fixtures are lab programs that one layer's tests run and that are no
// lesson of the demo: closewait's connection leak is seen by `schedoctor
// host` (SD608), which neither the demo nor the runtime end-to-end tests
// that go over Programs run. They are built like the others
// (labtest.Build names them).
var Fixtures = []Program{
	{Name: "closewait", Summary: "server that never closes the connections its clients closed: sockets pile up in CLOSE_WAIT (host)"},
	{Name: "spikes", Summary: "a burst of 2,000 goroutines every 500ms and a close waking 1,000 goroutines 20 times a second: latency in spikes (trace windows)"},
}

// Lookup returns the program called name, among Programs and Fixtures.
func Lookup(name string) (Program, bool) {
	for _, p := range append(Programs[:len(Programs):len(Programs)], Fixtures...) {
		if p.Name == name {
			return p, true
		}
	}
	return Program{}, false
}

// Expected returns the rules a diagnosis of the program must report: those
// of its markers, and those named by a "lab:unlocated SDnnn" comment, for
// causes that a source reports without a line (a CPU profile cannot see the
// line of a goroutine that only yields: its stack is cut by mcall).
func Expected(name string) ([]string, error) {
	m, err := Markers(name)
	if err != nil {
		return nil, err
	}
	data, _ := Sources.ReadFile(name + "/main.go")
	var rules []string
	for r := range m {
		rules = append(rules, r)
	}
	for _, u := range unlocatedRE.FindAllStringSubmatch(string(data), -1) {
		if _, ok := m[u[1]]; !ok {
			rules = append(rules, u[1])
		}
	}
	slices.Sort(rules)
	return slices.Compact(rules), nil
}

var unlocatedRE = regexp.MustCompile(`lab:unlocated (SD[0-9]{3})`)

// Allowed returns the rules a diagnosis of the program may report without
// being required to, named by "lab:may SDnnn" comments: effects that cross
// their threshold only sometimes (the garbage of a timer per iteration
// keeps the GC busy, more or less).
func Allowed(name string) ([]string, error) {
	data, err := Sources.ReadFile(name + "/main.go")
	if err != nil {
		return nil, fmt.Errorf("lab program %q: %w", name, err)
	}
	var rules []string
	for _, m := range mayRE.FindAllStringSubmatch(string(data), -1) {
		rules = append(rules, m[1])
	}
	return rules, nil
}

var mayRE = regexp.MustCompile(`lab:may (SD[0-9]{3})`)

// Marker is a line of a lab program that a diagnosis must point at.
type Marker struct {
	Rule string
	File string // path relative to internal/lab, e.g. "busyselect/main.go"
	Line int
}

var markerRE = regexp.MustCompile(`lab:(SD[0-9]{3})`)

// Markers returns the marked lines of a program, by rule.
func Markers(name string) (map[string][]Marker, error) {
	file := name + "/main.go"
	data, err := Sources.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("lab program %q: %w", name, err)
	}
	out := map[string][]Marker{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		for _, m := range markerRE.FindAllStringSubmatch(sc.Text(), -1) {
			out[m[1]] = append(out[m[1]], Marker{Rule: m[1], File: file, Line: line})
		}
	}
	return out, sc.Err()
}

// modulePath is the lab's import path prefix; WriteModule reproduces it so
// the programs build from the embedded copy with no network.
const modulePath = "github.com/schedoctor/schedoctor"

// WriteModule writes a self-contained module into dir holding the harness
// and the named programs (all when names is empty), with the given go line
// ("" for the toolchain's default of this project, 1.26). Programs then sit
// at dir/internal/lab/<name>.
func WriteModule(dir, goVersion string, names ...string) error {
	if goVersion == "" {
		goVersion = "1.26"
	}
	want := map[string]bool{"labrun": true}
	for _, n := range names {
		want[n] = true
	}
	err := fs.WalkDir(Sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		top, _, _ := strings.Cut(path, "/")
		if len(names) > 0 && !want[top] {
			return nil
		}
		data, err := Sources.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "internal", "lab", filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("writing the lab module: %w", err)
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n", modulePath, goVersion)
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
}

// Build compiles the named programs from a module written by WriteModule
// (or the project's own root) into binDir, and returns their paths by name.
func Build(ctx context.Context, moduleDir, binDir string, names ...string) (map[string]string, error) {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"build", "-o", binDir + string(filepath.Separator)}
	for _, n := range names {
		args = append(args, "./internal/lab/"+n)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building lab programs %v: %v\n%s", names, err, out)
	}
	paths := make(map[string]string, len(names))
	for _, n := range names {
		paths[n] = filepath.Join(binDir, n)
	}
	return paths, nil
}
