package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/schedtrace"
)

// expectation is a program's expect.json (see doc.go).
type expectation struct {
	Program  string  `json:"program"`
	Upstream string  `json:"upstream"`
	Kind     string  `json:"kind"`
	Workload string  `json:"workload"`
	Machine  string  `json:"machine"`
	CPUs     float64 `json:"cpus"`
	// TraceProcessCPU is the CPU time the process got during the trace
	// (user+system, e.g. from /proc/PID/stat), a Go duration; "" when not
	// measured. It becomes exectrace.Options.ProcessCPU.
	TraceProcessCPU string `json:"trace_process_cpu"`
	traceProcessCPU time.Duration
	Expert          string                 `json:"expert"`
	Layers          map[string]*layerCheck `json:"layers"`
}

type layerCheck struct {
	Want             []want   `json:"want"`
	ForbidAtOrAbove  string   `json:"forbid_at_or_above"`
	ForbidRules      []string `json:"forbid_rules"`
	KnownWrong       string   `json:"known_wrong"`
	forbidSeverity   finding.Severity
	forbidConfigured bool
}

type want struct {
	Rule        string `json:"rule"`
	MinSeverity string `json:"min_severity"`
	AtFunction  string `json:"at_function_contains"`
	minSeverity finding.Severity
}

// layers maps each layer to its recording's file name.
var layers = map[string]string{
	"profile":    "cpu.pb.gz",
	"trace":      "trace.out",
	"schedtrace": "schedtrace.txt",
}

var (
	upstreamRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[0-9a-f]{7,40}$`)
	kinds      = []string{"spin", "poll", "contention", "healthy", "other"}
)

// maxDirBytes bounds one program's recordings, so the corpus stays small
// enough to live in the repository.
const maxDirBytes = 6 << 20

func TestCorpus(t *testing.T) {
	dirs, err := programDirs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Skip("no program recorded under testdata/ yet")
	}
	var longest struct {
		n           int
		rule, where string
	}
	defer func() { t.Logf("longest headline: %d characters (%s, %s)", longest.n, longest.rule, longest.where) }()
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			exp, err := readExpectation(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkFiles(t, dir, exp)
			for _, layer := range slices.Sorted(maps.Keys(exp.Layers)) {
				lc := exp.Layers[layer]
				t.Run(layer, func(t *testing.T) {
					path := filepath.Join(dir, layers[layer])
					fs, err := analyze(layer, path, exp)
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					for _, f := range fs {
						t.Logf("%s %s %s at %v", f.Rule, f.Severity, f.Headline(), f.Locations)
						if rest := strings.TrimPrefix(f.Text(), f.Headline()); rest != "" {
							t.Logf("    …%s", rest)
						}
						checkHeadline(t, f)
						if n := utf8.RuneCountInString(f.Headline()); n > longest.n {
							longest.n, longest.rule, longest.where = n, f.Rule, path
						}
					}
					problems := check(lc, fs)
					switch {
					case lc.KnownWrong != "" && len(problems) > 0:
						for _, p := range problems {
							t.Logf("known wrong (%s): %s", lc.KnownWrong, p)
						}
					case lc.KnownWrong != "":
						t.Logf("marked known_wrong (%s) but every check now passes: remove the note", lc.KnownWrong)
					default:
						for _, p := range problems {
							t.Error(p)
						}
					}
				})
			}
		})
	}
}

// checkHeadline holds a finding to one line: its headline (What) fits
// finding.MaxHeadline characters, the figures being in its evidence and the
// cause in its Because (issue 21).
func checkHeadline(t *testing.T, f finding.Finding) {
	t.Helper()
	if n := utf8.RuneCountInString(f.Headline()); n > finding.MaxHeadline {
		t.Errorf("%s: headline of %d characters, more than %d: %q", f.Rule, n, finding.MaxHeadline, f.Headline())
	}
	if f.Headline() == "" {
		t.Errorf("%s: no headline", f.Rule)
	}
}

// programDirs lists testdata's subdirectories; each is one program.
func programDirs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("listing the corpus: %w", err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	return dirs, nil
}

func readExpectation(dir string) (*expectation, error) {
	data, err := os.ReadFile(filepath.Join(dir, "expect.json"))
	if err != nil {
		return nil, fmt.Errorf("reading the expectation: %w", err)
	}
	var exp expectation
	if err := decodeStrict(data, &exp); err != nil {
		return nil, fmt.Errorf("%s/expect.json: %w", dir, err)
	}
	if err := exp.validate(); err != nil {
		return nil, fmt.Errorf("%s/expect.json: %w", dir, err)
	}
	return &exp, nil
}

// validate rejects an expectation that could not fail or that names what
// does not exist: unknown layers, rules or severities, a missing verdict.
func (e *expectation) validate() error {
	if e.Program == "" || e.Workload == "" || e.Machine == "" || e.Expert == "" {
		return errors.New("program, workload, machine and expert must all be filled in")
	}
	if !upstreamRE.MatchString(e.Upstream) {
		return fmt.Errorf("upstream %q: want owner/repo@commit", e.Upstream)
	}
	if !slices.Contains(kinds, e.Kind) {
		return fmt.Errorf("kind %q: want one of %v", e.Kind, kinds)
	}
	if e.CPUs < 0 {
		return fmt.Errorf("cpus %g: must not be negative", e.CPUs)
	}
	if e.TraceProcessCPU != "" {
		d, err := time.ParseDuration(e.TraceProcessCPU)
		if err != nil || d <= 0 {
			return fmt.Errorf("trace_process_cpu %q: want a positive Go duration such as \"700ms\"", e.TraceProcessCPU)
		}
		e.traceProcessCPU = d
	}
	if len(e.Layers) == 0 {
		return errors.New("no layer to check")
	}
	for name, lc := range e.Layers {
		if _, ok := layers[name]; !ok {
			return fmt.Errorf("layer %q: want one of profile, trace, schedtrace", name)
		}
		if lc == nil {
			return fmt.Errorf("layer %q: empty", name)
		}
		if lc.ForbidAtOrAbove != "" {
			s, err := finding.ParseSeverity(lc.ForbidAtOrAbove)
			if err != nil {
				return fmt.Errorf("layer %s: forbid_at_or_above: %w", name, err)
			}
			lc.forbidSeverity, lc.forbidConfigured = s, true
		}
		if e.Kind == "healthy" && (!lc.forbidConfigured || lc.forbidSeverity > finding.Warning) {
			return fmt.Errorf("layer %s: a healthy program must forbid warnings (forbid_at_or_above \"warning\" or \"info\")", name)
		}
		if len(lc.Want) == 0 && !lc.forbidConfigured && len(lc.ForbidRules) == 0 {
			return fmt.Errorf("layer %s: neither want, forbid_at_or_above nor forbid_rules: the check could not fail", name)
		}
		for _, r := range lc.ForbidRules {
			if _, ok := finding.Lookup(r); !ok {
				return fmt.Errorf("layer %s: forbid_rules: unknown rule %q", name, r)
			}
		}
		for i := range lc.Want {
			w := &lc.Want[i]
			if _, ok := finding.Lookup(w.Rule); !ok {
				return fmt.Errorf("layer %s: want: unknown rule %q", name, w.Rule)
			}
			if w.MinSeverity != "" {
				s, err := finding.ParseSeverity(w.MinSeverity)
				if err != nil {
					return fmt.Errorf("layer %s: want %s: %w", name, w.Rule, err)
				}
				w.minSeverity = s
			}
		}
	}
	return nil
}

// checkFiles holds the directory to the format: every recording has its
// layer and every layer its recording, nothing else lives there (no source,
// no driver), and the recordings stay small.
func checkFiles(t *testing.T, dir string, exp *expectation) {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir {
				t.Errorf("%s: unexpected subdirectory (a program's directory holds only its recordings)", path)
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		name := d.Name()
		if name == "expect.json" {
			return nil
		}
		layer := ""
		for l, file := range layers {
			if file == name {
				layer = l
			}
		}
		switch {
		case layer == "":
			t.Errorf("%s: not a recording of the corpus format (cpu.pb.gz, trace.out, schedtrace.txt, expect.json)", path)
		case exp.Layers[layer] == nil:
			t.Errorf("%s: recorded but expect.json has no %q layer", path, layer)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	for layer := range exp.Layers {
		if _, err := os.Stat(filepath.Join(dir, layers[layer])); err != nil {
			t.Errorf("expect.json names layer %q but its recording is missing: %v", layer, err)
		}
	}
	if total > maxDirBytes {
		t.Errorf("%s: %d bytes of recordings, want at most %d: record shorter", dir, total, maxDirBytes)
	}
}

// analyze runs one layer's real analysis on its recording, as the
// subcommands in internal/cli do.
func analyze(layer, path string, exp *expectation) ([]finding.Finding, error) {
	switch layer {
	case "profile":
		p, err := profile.ReadFile(context.Background(), path, profile.ReadOptions{})
		if err != nil {
			return nil, err
		}
		res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
		if err != nil {
			return nil, err
		}
		return res.Findings, nil
	case "trace":
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		tr, err := exectrace.ReadFile(ctx, path, exectrace.ReadOptions{})
		if err != nil {
			return nil, err
		}
		res, err := exectrace.Analyze(tr, exectrace.Options{CPUs: exp.CPUs, ProcessCPU: exp.traceProcessCPU})
		if err != nil {
			return nil, err
		}
		if res.Summary != nil && res.Summary.Truncated != nil {
			return nil, fmt.Errorf("truncated recording: %s", res.Summary.Truncated)
		}
		return res.Findings, nil
	case "schedtrace":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		tr, err := schedtrace.Read(context.Background(), filepath.Base(path), f, schedtrace.ReadOptions{})
		if err != nil {
			return nil, err
		}
		res, err := schedtrace.Analyze(tr, schedtrace.Options{})
		if err != nil {
			return nil, err
		}
		return res.Findings, nil
	}
	return nil, fmt.Errorf("unknown layer %q", layer)
}

// check compares one layer's findings with its expectation and returns
// every mismatch, worded for the test log.
func check(lc *layerCheck, fs []finding.Finding) []string {
	var problems []string
	// A finding of a wanted rule is exempt from forbid_at_or_above even
	// where it misses the want (wrong place, too weak): the want reports
	// that, and one mismatch should read as one problem.
	wanted := make([]bool, len(fs))
	for _, w := range lc.Want {
		found := false
		for i, f := range fs {
			if f.Rule != w.Rule {
				continue
			}
			wanted[i] = true
			if f.Severity >= w.minSeverity && atFunction(f, w.AtFunction) {
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("missing %s at %s or above%s; got %s",
				w.Rule, w.minSeverity, inFunction(w.AtFunction), summarize(fs)))
		}
	}
	for i, f := range fs {
		if slices.Contains(lc.ForbidRules, f.Rule) {
			problems = append(problems, fmt.Sprintf("forbidden rule %s (%s): %s", f.Rule, f.Severity, f.Text()))
		} else if lc.forbidConfigured && !wanted[i] && f.Severity >= lc.forbidSeverity {
			problems = append(problems, fmt.Sprintf("unexpected %s at %s (forbidden at or above %s): %s",
				f.Rule, f.Severity, lc.forbidSeverity, f.Text()))
		}
		for _, l := range f.Locations {
			if l.Function != "" && !finding.UserFunction(l.Function) {
				problems = append(problems, fmt.Sprintf("%s located at %s, not a user frame", f.Rule, l))
			}
		}
	}
	return problems
}

func atFunction(f finding.Finding, sub string) bool {
	if sub == "" {
		return true
	}
	for _, l := range f.Locations {
		if strings.Contains(l.Function, sub) {
			return true
		}
	}
	return false
}

func inFunction(sub string) string {
	if sub == "" {
		return ""
	}
	return fmt.Sprintf(" in a function containing %q", sub)
}

func summarize(fs []finding.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	var parts []string
	for _, f := range fs {
		fn := ""
		if len(f.Locations) > 0 && f.Locations[0].Function != "" {
			fn = " in " + f.Locations[0].Function
		}
		parts = append(parts, fmt.Sprintf("%s/%s%s", f.Rule, f.Severity, fn))
	}
	return strings.Join(parts, ", ")
}

// decodeStrict decodes JSON and rejects unknown fields, so that a misspelt
// key cannot silently turn a check off.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func parseLayer(t *testing.T, js string) *layerCheck {
	t.Helper()
	var lc layerCheck
	if err := decodeStrict([]byte(js), &lc); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return &lc
}
