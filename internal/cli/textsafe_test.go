package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/goroutines"
	"github.com/schedoctor/schedoctor/procs"
	"github.com/schedoctor/schedoctor/profile"
)

// TestRenderersEscape: the sources' text renderers escape the names they
// print themselves, without the net the CLI puts under its output (which
// keeps line breaks): hostile names reach no terminal raw and forge no
// line, whatever writer a library user gives them.
func TestRenderersEscape(t *testing.T) {
	dir := t.TempDir()
	check := func(name string, write func(*strings.Builder) error) {
		t.Helper()
		var b strings.Builder
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		if i, r := rawControl([]byte(out)); i >= 0 {
			t.Errorf("%s: raw %U at %d in:\n%s", name, r, i, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "SD999") || strings.HasPrefix(strings.TrimSpace(l), "forged") {
				t.Errorf("%s: a name forged a line: %q", name, l)
			}
		}
		if !strings.Contains(out, `\x1b`) && !strings.Contains(out, `\u202e`) && !strings.Contains(out, `\n`) {
			t.Errorf("%s: no hostile name printed (escaped) at all: the test shows nothing:\n%s", name, out)
		}
	}

	if err := genProfileEscapes(dir); err != nil {
		t.Fatal(err)
	}
	p, err := pprofRead(filepath.Join(dir, "cpu.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := diagnose.Profile(res, diagnose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("profile", func(b *strings.Builder) error { return joined.Summary.WriteText(b) })

	dump, err := os.ReadFile(filepath.Join(hostileDir, "goroutines-escapes", "dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := goroutines.Read(context.Background(), "dump\x1b[2J.txt", bytes.NewReader(dump), goroutines.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gres, err := goroutines.Analyze([]*goroutines.Dump{d}, goroutines.Options{MinGroup: 1})
	if err != nil {
		t.Fatal(err)
	}
	check("goroutines", func(b *strings.Builder) error { return gres.Summary.WriteText(b) })

	if err := genProcsEscapes(dir); err != nil {
		t.Fatal(err)
	}
	s, err := procs.Inspect(procs.Options{Sysroot: filepath.Join(dir, "root"), PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	check("procs", func(b *strings.Builder) error { return s.WriteText(b) })

	// A trace's summary with the hostile names where a crafted trace puts
	// them: function names, files, wait reasons.
	loc := finding.Location{File: "/src/" + hostileNames[2] + ".go", Line: 7, Function: hostileNames[0]}
	ts := &exectrace.Summary{
		Sites:    []exectrace.SiteSummary{{Function: hostileNames[1], Creator: loc, Goroutines: 3}},
		Spinning: []exectrace.SpinSite{{Function: hostileNames[3], HotLine: loc, HotFrom: "cpu samples"}},
	}
	ts.Latency.ByReason = []exectrace.ReasonLatency{{Reason: hostileNames[4]}}
	ts.Latency.WokenLongest = []exectrace.Stall{{What: hostileNames[3], Location: loc}}
	check("trace", func(b *strings.Builder) error { return ts.WriteText(b) })
}

func pprofRead(name string) (*pprof.Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return pprof.Parse(f)
}
