package deps

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// layers is the table of which package of the module may import which, in
// the notation of Go's own go/build/deps_test.go, explained at its top. It
// is copied verbatim into docs/HACKING.md, with testArrows after it
// (TestHackingShowsLayers keeps the copy exact). Every name left of a "<"
// must have been placed by an earlier rule and no name is placed twice, so
// the table cannot allow a cycle.
const layers = `
# "a, b < c, d;" lets c and d import a and b and everything a and b may
# import; "a < b < c;" lets b import a, and c import b and a. A name is
# an import path relative to the module; an UPPER-CASE name is a layer,
# which stands for everything it may import; NONE is nothing. A rule may
# use only names placed by the rules above it.

# Helpers that import nothing of the module: escaping and layout for the
# terminal, bounded reads of untrusted input, the one HTTP GET, the one
# file writer, an input's kind from its first bytes, cgroup files,
# /proc/PID/stat, the protobuf wire format, statistics, load generation.
NONE
< internal/textsafe, internal/sysread, internal/httpfetch,
  internal/safewrite, internal/sniff, procs/cgroup, internal/procstat,
  internal/pbwire, sweep/stats, sweep/loadgen;

internal/textsafe < viz, internal/textlayout;
internal/textsafe, internal/procstat < sweep/proc;
viz < internal/vizbuild;
internal/sysread < procs/gobin;
internal/httpfetch, internal/sysread < host/probe;

# The model: Finding, Location, Evidence, Severity and the rule catalog.
# It imports nothing of the module, so that every source and every
# renderer can import it.
NONE < finding;

# What every source may use (internal/sniff: whether an input is text,
# and its first line, for the error that says what it was instead).
finding, internal/textsafe, internal/sysread, internal/httpfetch,
internal/safewrite, internal/sniff, internal/textlayout, viz,
internal/vizbuild, internal/procstat, internal/pbwire
< BASE;

# Sources: each reads one kind of evidence and judges it into findings.
# None imports diagnose, check, a renderer or the command line.
#
# lint: one go/analysis analyzer per code rule over shared helpers;
# lint/blocking the "never blocks" facts; lint the analyzers' list alone
# (what the golangci plugin and go vet -vettool need); lint/driver runs
# them; lint/loops one verdict per loop; lint/inspect the loop at a
# line a runtime source found hot.
BASE
< lint/internal/evidence
< lint/internal/analysisutil
< lint/internal/astutil
< lint/blocking
< lint/busyselect, lint/goroutinethrottle, lint/sleeppoll,
  lint/spinwait, lint/tickerleak, lint/timerloop
< lint, lint/loops;
lint < lint/driver;
lint/driver, lint/loops < lint/inspect;

# The runtime, process and host sources. profile/classify names a CPU
# sample's cause; profile/remote asks a continuous profiler (Pyroscope,
# Parca) for a merged profile and reads it as profile does; procs/cgroup
# and procs/gobin read what decides GOMAXPROCS; host/probe measures a
# connection; sweep/* run and measure.
BASE < profile/classify < profile < profile/remote;
BASE < exectrace, schedtrace, goroutines, contention;

# exectrace/perfetto writes a window of a trace for the Perfetto UI: it
# walks the events under the trace source's reading limit and judges
# nothing, so it is no source; the command line calls it.
exectrace < exectrace/perfetto;
BASE, procs/cgroup, procs/gobin < procs;
BASE, procs/cgroup, host/probe < host;
BASE, sweep/proc, sweep/loadgen, sweep/stats < sweep;

# live runs inside the user's program, so it imports no more than the
# model and the file writer; livetrace adds the trace source, prom the
# Prometheus exporter.
finding, internal/safewrite < live;
live < live/prom;
live, exectrace < live/livetrace;

lint, lint/driver, lint/loops, lint/inspect, profile, profile/remote, exectrace,
schedtrace, procs, goroutines, contention, host, sweep, live, live/livetrace,
live/prom
< SOURCES;

# The one join: diagnose reads a runtime source's hot line in the code
# and reports a cause that several sources saw once, the live monitor's
# findings and snapshots included; rule families come from the catalog.
SOURCES < diagnose;

# check captures a live service's sources, reads and bounds what it
# fetched, and hands them to diagnose; it joins nothing itself.
diagnose < check;

# check/fleet runs check on every target of a job that Prometheus
# scrapes and joins the causes the targets share.
check < check/fleet;

# Renderers: text, JSON, SARIF, HTML and the rule pages. They come after
# check in this order but know only the model: a source's figures reach
# them as report.Report.Summary. ruledocs joins the catalog with the
# sources' thresholds (RuleThresholds) and writes docs/rules.
finding, internal/textsafe, viz < report;
report, internal/vizbuild < report/htmlreport;
SOURCES, report < internal/ruledocs;

# Front ends. The golangci-lint plugin needs the analyzers only; the demo
# lints, profiles and traces the lab and checks its service; the command
# line has one file per subcommand; cmd/* are main packages.
finding, lint < golangci;
finding < internal/demo/labsvc;
NONE < internal/lab;
check, report/htmlreport, internal/lab, internal/demo/labsvc,
live/livetrace
< internal/demo;
internal/demo, internal/sniff, internal/ruledocs, SOURCES, check,
check/fleet, report/htmlreport, exectrace/perfetto
< internal/cli;
internal/cli < cmd/schedoctor;
golangci < cmd/schedoctor-vet;
internal/ruledocs < internal/gendocs;

# The bare read of an execution trace that scripts/bench-trace.sh
# measures schedoctor against: the reader and nothing of the module.
NONE < internal/tracebare;

# The lab: programs with one anti-pattern each (and its fixed twin) or
# healthy, on one harness; the lab service for check; the live
# monitor's example; a measurement of goroutine dumps' cost.
NONE < internal/lab/labrun;
internal/lab/labrun
< internal/lab/busyhandler, internal/lab/busyselect,
  internal/lab/closewait, internal/lab/cpubound, internal/lab/fanout,
  internal/lab/gcpressure, internal/lab/gosched,
  internal/lab/httpserver, internal/lab/lockcontend,
  internal/lab/mutex, internal/lab/overprocs, internal/lab/pingpong,
  internal/lab/ringbuffer, internal/lab/sleeppoll,
  internal/lab/spikes, internal/lab/syscallheavy, internal/lab/tickerleak,
  internal/lab/timerloop, internal/lab/workerpool;
live < internal/lab/service/labservice;
live, live/livetrace, live/prom < live/example;
NONE < check/internal/dumpstw, lint/internal/variantgen;

# Test helpers: only tests import them, and any package's tests may
# import the packages named left of TESTING (not what they import).
NONE < internal/golden, profile/internal/synth, profile/remote/remotetest;
internal/lab < internal/labtest;
lint/internal/analysisutil < lint/internal/linttest;
internal/golden, internal/lab, internal/labtest, lint/internal/linttest,
profile/internal/synth, profile/remote/remotetest
< TESTING;

# scripts/bench-profile.sh's profile writer and Parse-only floor.
profile/internal/synth < profile/internal/benchprof;

# Packages of tests, placed by what their tests import: the corpus of
# real programs' recordings, the HTML report in a browser, this table.
SOURCES < internal/corpus;
internal/demo, report/htmlreport < report/htmlreport/browsertest;
NONE < internal/deps, internal/apicheck;
`

// testArrows are the imports that only test files make beyond what the
// table lets their package import (besides the package itself and the
// test helpers left of TESTING), each with its reason. One that no test makes any more fails
// the test, so the list only shrinks.
var testArrows = []arrow{
	{"sweep", "report", "sweep's golden tests render the summary in text and JSON as the CLI does"},
	{"live", "live/livetrace", "live_test runs the monitor with the trace diagnosis wired in"},
	{"golangci", "lint/driver", "the plugin's tests run the analyzers through driver.Run, as the command line does"},
	{"viz", "report/htmlreport", "viz's examples draw a Set with the HTML renderer, as a program using the package would"},
	{"internal/labtest", "sweep/proc", "labtest's copy of sweep/proc's /proc/stat reader is checked against the original"},
	{"live/prom", "internal/ruledocs", "live/prom's test generates the Prometheus mixin's thresholds from the rules' (one number, in the code that judges with it)"},
}

type arrow struct{ from, to, why string }

// policy is the parsed table: for every name, what it may import.
type policy struct {
	allowed map[string]map[string]bool
	direct  map[string][]string // the names left of the "<" that placed a name
	order   []string            // names in the order the table places them
}

// isLayer reports whether name is a layer (upper case), not a package.
func isLayer(name string) bool {
	return name == strings.ToUpper(name) && name != strings.ToLower(name)
}

// parseLayers reads the table. It fails on a name used before it is
// placed, a name placed twice, and a malformed rule.
func parseLayers(text string) (*policy, error) {
	p := &policy{allowed: map[string]map[string]bool{}, direct: map[string][]string{}}
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	rules := strings.Split(strings.Join(lines, "\n"), ";")
	if last := strings.TrimSpace(rules[len(rules)-1]); last != "" {
		return nil, fmt.Errorf("rule %q does not end with ;", last)
	}
	for _, rule := range rules[:len(rules)-1] {
		rule = strings.Join(strings.Fields(rule), " ")
		parts := strings.Split(rule, "<")
		if len(parts) < 2 {
			return nil, fmt.Errorf("rule %q has no <", rule)
		}
		var prev []string
		for i, part := range parts {
			var names []string
			for n := range strings.SplitSeq(part, ",") {
				n = strings.TrimSpace(n)
				if n == "" || strings.ContainsAny(n, " \t") {
					return nil, fmt.Errorf("rule %q: %q is not one name (a comma missing?)", rule, n)
				}
				names = append(names, n)
			}
			for _, n := range names {
				if i == 0 {
					if n != "NONE" && p.allowed[n] == nil {
						return nil, fmt.Errorf("rule %q: %s is used before a rule places it", rule, n)
					}
					continue
				}
				if n == "NONE" {
					return nil, fmt.Errorf("rule %q: NONE cannot be placed", rule)
				}
				if p.allowed[n] != nil {
					return nil, fmt.Errorf("rule %q: %s is placed twice", rule, n)
				}
				set := map[string]bool{}
				for _, l := range prev {
					if l == "NONE" {
						continue
					}
					set[l] = true
					for m := range p.allowed[l] {
						set[m] = true
					}
				}
				p.allowed[n] = set
				p.direct[n] = slices.DeleteFunc(slices.Clone(prev), func(l string) bool { return l == "NONE" })
				p.order = append(p.order, n)
			}
			prev = names
		}
	}
	return p, nil
}

// may reports whether the table lets from import to.
func (p *policy) may(from, to string) bool { return p.allowed[from][to] }

// importsOf lists the packages (not layers) that name may import, for an
// error message.
func (p *policy) importsOf(name string) string {
	var l []string
	for n := range p.allowed[name] {
		if !isLayer(n) {
			l = append(l, n)
		}
	}
	if len(l) == 0 {
		return "nothing of the module"
	}
	slices.Sort(l)
	return strings.Join(l, ", ")
}

// edge is one import: from imports to, in file (relative to the module
// root); test marks a test file's import.
type edge struct {
	from, to, file string
	test           bool
}

// graph is the module's real import graph, restricted to its own packages.
type graph struct {
	pkgs  []string
	edges []edge
}

// check returns one error per import the table does not allow, per
// package the table does not place, per package the table names that the
// module lacks, and per test arrow no test draws any more. Nil means the
// graph keeps to the layers.
func check(p *policy, arrows []arrow, g graph) []error {
	var errs []error
	known := map[string]bool{}
	for _, pkg := range g.pkgs {
		known[pkg] = true
		if isLayer(pkg) || p.allowed[pkg] == nil {
			errs = append(errs, fmt.Errorf("package %s is in no layer: place it in the table in internal/deps/deps_test.go", pkg))
		}
	}
	for _, n := range p.order {
		if !isLayer(n) && !known[n] {
			errs = append(errs, fmt.Errorf("the table places %s, which is not a package of the module: remove or rename it", n))
		}
	}
	extra := map[[2]string]bool{}
	for _, a := range arrows {
		extra[[2]string{a.from, a.to}] = false
	}
	for _, e := range g.edges {
		if p.allowed[e.from] == nil || e.from == e.to || p.may(e.from, e.to) {
			continue // an unplaced package is reported once, above
		}
		if e.test {
			if slices.Contains(p.direct["TESTING"], e.to) {
				continue
			}
			if _, ok := extra[[2]string{e.from, e.to}]; ok {
				extra[[2]string{e.from, e.to}] = true
				continue
			}
			errs = append(errs, fmt.Errorf("%s: a test of %s imports %s, which the table does not allow (tests may import what %s may, and the test helpers; %s may import %s)",
				e.file, e.from, e.to, e.from, e.from, p.importsOf(e.from)))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s imports %s, which the table does not allow (%s may import %s)",
			e.file, e.from, e.to, e.from, p.importsOf(e.from)))
	}
	for _, a := range arrows {
		if !extra[[2]string{a.from, a.to}] {
			errs = append(errs, fmt.Errorf("no test of %s imports %s any more: remove the arrow from testArrows", a.from, a.to))
		}
	}
	return errs
}

// TestDependencies checks the module's real import graph, test files
// included, against the table.
func TestDependencies(t *testing.T) {
	p, err := parseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	m := loadModule(t)
	for _, err := range check(p, testArrows, m.graph) {
		t.Error(err)
	}
}

// TestLayersConsistent checks the table itself: it parses, it allows no
// cycle, the layer names are only layers, and every package it allows is
// placed.
func TestLayersConsistent(t *testing.T) {
	p, err := parseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range p.order {
		if p.may(n, n) {
			t.Errorf("the table lets %s import itself, through a cycle", n)
		}
		for m := range p.allowed[n] {
			if p.allowed[m] == nil {
				t.Errorf("%s may import %s, which the table never places", n, m)
			}
			if p.may(m, n) {
				t.Errorf("the table lets %s and %s import each other", n, m)
			}
		}
	}
	for _, l := range []string{"BASE", "SOURCES", "TESTING"} {
		if p.allowed[l] == nil {
			t.Errorf("layer %s is not placed: check's rules need it", l)
		}
	}
	for _, a := range testArrows {
		if p.allowed[a.from] == nil || p.allowed[a.to] == nil {
			t.Errorf("test arrow %s → %s names a package the table does not place", a.from, a.to)
		}
		if p.may(a.from, a.to) {
			t.Errorf("test arrow %s → %s is already allowed: remove it", a.from, a.to)
		}
	}
}

// TestParseLayersRejects checks that a table that would allow a cycle, or
// is malformed, does not parse.
func TestParseLayersRejects(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"NONE < a; a < b; b < a;", `rule "b < a": a is placed twice`},
		{"NONE < a; b < c;", `rule "b < c": b is used before a rule places it`},
		{"NONE < a < b; b < b;", `rule "b < b": b is placed twice`},
		{"NONE < a", `rule "NONE < a" does not end with ;`},
		{"NONE a;", `rule "NONE a" has no <`},
		{"NONE < a b;", `rule "NONE < a b": "a b" is not one name (a comma missing?)`},
		{"NONE < a, ;", `rule "NONE < a,": "" is not one name (a comma missing?)`},
		{"NONE < NONE;", `rule "NONE < NONE": NONE cannot be placed`},
		{"NONE < .; . < .;", `rule ". < .": . is placed twice`},
	} {
		_, err := parseLayers(c.text)
		if err == nil || err.Error() != c.want {
			t.Errorf("parseLayers(%q) = %v, want %s", c.text, err, c.want)
		}
	}
}

// TestParseLayersAllows checks what a parsed table allows: a chain gives
// the closure of what comes before, siblings do not import each other,
// and a layer stands for what it may import.
func TestParseLayersAllows(t *testing.T) {
	p, err := parseLayers(`
		# a comment; with a < in it
		NONE < a, b;
		a < c < d, e;
		d, b < L;
		L < f;`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"a": nil, "b": nil, "c": {"a"}, "d": {"a", "c"}, "e": {"a", "c"},
		"L": {"a", "b", "c", "d"}, "f": {"L", "a", "b", "c", "d"},
	}
	for n, w := range want {
		got := slices.Sorted(maps.Keys(p.allowed[n]))
		if !slices.Equal(got, w) {
			t.Errorf("%s may import %v, want %v", n, got, w)
		}
	}
	if p.may("d", "e") || p.may("e", "d") {
		t.Error("siblings d and e may import each other")
	}
	if got := p.direct["f"]; !slices.Equal(got, []string{"L"}) {
		t.Errorf("f is placed right of %v, want [L]", got)
	}
	if got := p.direct["a"]; len(got) != 0 {
		t.Errorf("a is placed right of %v, want nothing", got)
	}
	for name, want := range map[string]bool{"L": true, "BASE": true, ".": false, "finding": false, "internal/Foo": false} {
		if isLayer(name) != want {
			t.Errorf("isLayer(%q) = %v", name, !want)
		}
	}
}

// TestCheckFailsOnUpwardImport plants upward arrows, unplaced packages and
// stale entries in a copy of the real graph and expects each to be named.
func TestCheckFailsOnUpwardImport(t *testing.T) {
	p, err := parseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	m := loadModule(t)
	if errs := check(p, testArrows, m.graph); len(errs) != 0 {
		t.Skipf("the real graph already fails (TestDependencies says why): %v", errs[0])
	}
	plant := func(edges ...edge) graph {
		g := m.graph
		g.edges = append(slices.Clip(g.edges), edges...)
		return g
	}
	for _, c := range []struct {
		name string
		g    graph
		want string
	}{
		{"model imports the join", plant(edge{from: "finding", to: "diagnose", file: "finding/finding.go"}),
			"finding/finding.go: finding imports diagnose, which the table does not allow (finding may import nothing of the module)"},
		{"source imports a renderer", plant(edge{from: "profile", to: "report", file: "profile/profile.go"}),
			"profile/profile.go: profile imports report, which the table does not allow (profile may import " + p.importsOf("profile") + ")"},
		{"source imports the join", plant(edge{from: "exectrace", to: "diagnose", file: "exectrace/x.go"}),
			"exectrace/x.go: exectrace imports diagnose, which the table does not allow (exectrace may import " + p.importsOf("exectrace") + ")"},
		{"join imports check", plant(edge{from: "diagnose", to: "check", file: "diagnose/x.go"}),
			"diagnose/x.go: diagnose imports check, which the table does not allow (diagnose may import " + p.importsOf("diagnose") + ")"},
		{"renderer imports a source", plant(edge{from: "report", to: "profile", file: "report/x.go"}),
			"report/x.go: report imports profile, which the table does not allow (report may import finding, internal/textsafe, viz)"},
		{"sibling source", plant(edge{from: "schedtrace", to: "exectrace", file: "schedtrace/x.go"}),
			"schedtrace/x.go: schedtrace imports exectrace, which the table does not allow (schedtrace may import " + p.importsOf("schedtrace") + ")"},
		{"live grows", plant(edge{from: "live", to: "internal/textsafe", file: "live/x.go"}),
			"live/x.go: live imports internal/textsafe, which the table does not allow (live may import finding, internal/safewrite)"},
		{"production code imports a test helper", plant(edge{from: "profile", to: "internal/golden", file: "profile/x.go"}),
			"profile/x.go: profile imports internal/golden, which the table does not allow (profile may import " + p.importsOf("profile") + ")"},
		{"test imports the command line", plant(edge{from: "profile", to: "internal/cli", file: "profile/x_test.go", test: true}),
			"profile/x_test.go: a test of profile imports internal/cli, which the table does not allow (tests may import what profile may, and the test helpers; profile may import " + p.importsOf("profile") + ")"},
		{"test imports what a test helper imports", plant(edge{from: "finding", to: "viz", file: "finding/x_test.go", test: true}),
			"finding/x_test.go: a test of finding imports viz, which the table does not allow (tests may import what finding may, and the test helpers; finding may import nothing of the module)"},
		{"new package", graph{pkgs: append(slices.Clip(m.graph.pkgs), "trace2"), edges: m.graph.edges},
			"package trace2 is in no layer: place it in the table in internal/deps/deps_test.go"},
		{"package removed", graph{pkgs: slices.DeleteFunc(slices.Clone(m.graph.pkgs), func(s string) bool { return s == "sweep/stats" }), edges: m.graph.edges},
			"the table places sweep/stats, which is not a package of the module: remove or rename it"},
		{"test arrow gone", graph{pkgs: m.graph.pkgs, edges: slices.DeleteFunc(slices.Clone(m.graph.edges), func(e edge) bool { return e.from == "sweep" && e.to == "report" })},
			"no test of sweep imports report any more: remove the arrow from testArrows"},
	} {
		errs := check(p, testArrows, c.g)
		if len(errs) != 1 || errs[0].Error() != c.want {
			t.Errorf("%s: got %v\nwant [%s]", c.name, errs, c.want)
		}
	}
	// A test may import its own package's layer, a test helper, and
	// anything its package may.
	for _, e := range []edge{
		{from: "profile", to: "internal/golden", file: "profile/x_test.go", test: true},
		{from: "diagnose", to: "lint", file: "diagnose/x_test.go", test: true},
		{from: "report", to: "viz", file: "report/x_test.go", test: true},
	} {
		if errs := check(p, testArrows, plant(e)); len(errs) != 0 {
			t.Errorf("%v: %v", e, errs)
		}
	}
}
