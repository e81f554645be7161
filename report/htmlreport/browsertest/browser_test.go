//go:build unix

package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/demo"
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/procs"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/report/htmlreport"
	"github.com/schedoctor/schedoctor/sweep"
	"github.com/schedoctor/schedoctor/viz"
)

const repo = "../../.."

func browser(t *testing.T) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping the browser tests in -short mode (scripts/browser-test.sh runs them)")
	}
	bin, err := Find()
	if err != nil {
		t.Skipf("skipping the browser tests: %v", err)
	}
	b, err := NewBrowser(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

func profileReport(t *testing.T, name string) report.Report {
	t.Helper()
	p, err := profile.ReadFile(context.Background(), filepath.Join(repo, "profile/testdata/lab", name), profile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return report.Report{Source: finding.SourceProfile, Findings: res.Findings, Summary: res.Summary}
}

func traceResult(t *testing.T, path string) *exectrace.Result {
	t.Helper()
	tr, err := exectrace.ReadFile(context.Background(), path, exectrace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := exectrace.Analyze(tr, exectrace.Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

func sweepReport(t *testing.T, name string) report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "sweep/testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Findings []finding.Finding `json:"findings"`
		Summary  *sweep.Summary    `json:"summary"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return report.Report{Source: finding.SourceSweep, Findings: j.Findings, Summary: j.Summary}
}

// page is what a rendered page says about itself (the body's data-*
// attributes the report's script sets) and the browser's logs.
type page struct {
	attrs    map[string]string
	dom      string
	stderr   string
	requests []string
}

var attrRE = regexp.MustCompile(`\s(data-[a-z-]+)="([^"]*)"`)

// open renders r to a file, loads it in Chromium and returns the page.
func open(t *testing.T, b *Browser, r report.Report) (page, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, r, htmlreport.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// $SCHEDOCTOR_KEEP_HTML keeps the pages to look at.
	if dir := os.Getenv("SCHEDOCTOR_KEEP_HTML"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, fileName(t.Name())+".html"), buf.Bytes(), 0o644)
	}
	return load(t, b, path), path
}

func load(t *testing.T, b *Browser, path string) page {
	t.Helper()
	return loadAt(t, b, path, 1280)
}

// widths are the window widths every report is drawn and photographed at:
// a laptop's, and a narrow window (half a screen, a tablet).
var widths = []int{1280, 800}

// loadAt loads the page in a window width px wide.
func loadAt(t *testing.T, b *Browser, path string, width int) page {
	t.Helper()
	out, errOut, err := b.Run(context.Background(), 90*time.Second, path,
		"--dump-dom", "--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,2000", width))
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errOut))
	}
	p := page{attrs: map[string]string{}, dom: out, stderr: errOut}
	var own []string
	p.requests, own = b.Requests()
	if len(own) > 0 {
		t.Logf("the browser's own requests (not the page's): %d", len(own))
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(out)
	for _, m := range attrRE.FindAllStringSubmatch(body, -1) {
		p.attrs[m[1]] = m[2]
	}
	return p
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// consoleErrors are the page's console errors and refused requests as
// Chromium logs them on stderr (its own D-Bus and GPU noise left out).
func consoleErrors(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Refused to") || strings.Contains(l, "Uncaught") {
			out = append(out, l)
		}
	}
	return out
}

// checkClean fails unless the page drew without an error, a console error
// or a network request.
func checkClean(t *testing.T, p page) {
	t.Helper()
	if p.attrs["data-rendered"] != "ok" {
		t.Errorf("page did not render cleanly: data-rendered=%q errors=%q", p.attrs["data-rendered"], p.attrs["data-errors"])
	}
	if errs := consoleErrors(p.stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if len(p.requests) > 0 {
		t.Errorf("the page made network requests: %q", p.requests)
	}
	if n := p.attrs["data-resources"]; n != "0" {
		t.Errorf("the page loaded %s resources, want 0", n)
	}
	if s := p.attrs["data-layout-shift"]; s != "0.0" {
		t.Errorf("drawing moved the page by %s px, want 0 (the boxes are sized before the script runs)", s)
	}
	// Every picture can be reached with the keyboard and says what is
	// under the cursor.
	for _, m := range regexp.MustCompile(`<div class="chart"[^>]*>`).FindAllString(p.dom, -1) {
		if !strings.Contains(m, `tabindex="0"`) || !strings.Contains(m, "aria-describedby=") {
			t.Errorf("a picture is not keyboard reachable or has no description: %s", m)
		}
	}
}

func atoi(t *testing.T, p page, attr string) int {
	t.Helper()
	n, err := strconv.Atoi(p.attrs[attr])
	if err != nil {
		t.Fatalf("%s=%q: %v", attr, p.attrs[attr], err)
	}
	return n
}

// expected counts the elements the pictures must draw, from their data.
func expected(sets []*viz.Set) (flame, paths, bars, points int) {
	for _, s := range sets {
		if s.Flame != nil {
			flame += s.Flame.Nodes
		}
		if tl := s.Timeline; tl != nil {
			paths++ // the runnable goroutines
			for _, p := range tl.Procs {
				for _, st := range p.States {
					if st != nil {
						paths++
					}
				}
			}
		}
		if h := s.Latency; h != nil {
			for _, sr := range h.Series {
				for _, c := range sr.Counts {
					if c > 0 {
						bars++
					}
				}
			}
		}
		for _, c := range s.Curves {
			points += len(c.Points)
		}
	}
	return
}

func checkCounts(t *testing.T, p page, r report.Report) {
	t.Helper()
	flame, paths, bars, points := expected(htmlreport.Collect(r.Summary))
	for _, c := range []struct {
		attr string
		want int
	}{{"data-flame-rects", flame}, {"data-timeline-paths", paths}, {"data-histogram-bars", bars}, {"data-curve-points", points}} {
		if got := atoi(t, p, c.attr); got != c.want {
			t.Errorf("%s = %d, want %d (from the report's data)", c.attr, got, c.want)
		}
	}
}

// checkGeometry fails when, in the window of the width the page was
// loaded at, two of the pictures' labels overlap, a label is cut by its
// picture's edge, or the page is wider than the window (the page's script
// measures: data-label-overlaps, data-labels-cut, data-overflow-x).
func checkGeometry(t *testing.T, p page, width int) {
	t.Helper()
	for _, attr := range []string{"data-label-overlaps", "data-labels-cut", "data-overflow-x"} {
		if v := p.attrs[attr]; v != "0" {
			t.Errorf("at %d px: %s = %q, want 0 (%s)", width, attr, v, p.attrs["data-label-problems"])
		}
	}
}

var screenshotDir = flag.String("screenshots", "", "keep the browser tests' screenshots in `DIR` (default: $SCHEDOCTOR_SCREENSHOTS, else the test's temporary directory)")

// screenshot photographs the page in a window width px wide into the
// screenshot directory as NAME-WIDTH.png, checks that it is a PNG of that
// width with at least minColours distinct colours (a blank or undrawn
// page has a handful), and returns its path.
func screenshot(t *testing.T, b *Browser, path, name string, width, minColours int) string {
	t.Helper()
	dir := *screenshotDir
	if dir == "" {
		dir = os.Getenv("SCHEDOCTOR_SCREENSHOTS")
	}
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, fmt.Sprintf("%s-%d.png", fileName(name), width))
	if _, errOut, err := b.Run(context.Background(), 90*time.Second, path, "--screenshot="+shot,
		"--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,1600", width)); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errOut))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if w := img.Bounds().Dx(); w != width {
		t.Errorf("screenshot %s is %d px wide, want %d", shot, w, width)
	}
	if n := distinctColoursOf(img); n < minColours {
		t.Errorf("screenshot %s has %d distinct colours, want at least %d: blank or undrawn", shot, n, minColours)
	}
	return shot
}

// fileName makes a test's name a file name.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '(' || r == ')' {
			return '_'
		}
		return r
	}, name)
}

// TestReports renders each kind of report from the repository's fixtures.
func TestReports(t *testing.T) {
	b := browser(t)
	busy := profileReport(t, "busyselect.pb.gz")
	gc := profileReport(t, "gcpressure.pb.gz")
	tr := traceResult(t, filepath.Join(repo, "exectrace/testdata/gcpressure.trace"))
	procSum, err := procs.Inspect(procs.Options{Sysroot: filepath.Join(repo, "procs/testdata/fixtures/throttled"), PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		r    report.Report
		// what the page must draw at least
		flame, timeline, hist, curves bool
	}{
		{"profile busyselect", busy, true, false, false, false},
		{"profile gcpressure", gc, true, false, false, false},
		{"trace gcpressure", report.Report{Source: finding.SourceTrace, Findings: tr.Findings, Summary: tr.Summary}, false, true, true, false},
		{"sweep cpubound", sweepReport(t, "cpubound.json"), false, false, false, true},
		{"sweep load", sweepReport(t, "load.json"), false, false, false, true},
		{"check (nested summaries)", report.Report{Source: finding.SourceCheck, Findings: append(busy.Findings, tr.Findings...),
			Summary: &check.Summary{Target: "fixture",
				Profile: &diagnose.ProfileSummary{Summary: busy.Summary.(*profile.Summary)},
				Trace:   &diagnose.TraceSummary{Summary: tr.Summary}}}, true, true, true, false},
		{"procs (findings only)", report.Report{Source: finding.SourceProcs, Findings: procs.Findings(procSum), Summary: procSum}, false, false, false, false},
		{"crowded labels", crowdedReport(), false, false, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, path := open(t, b, c.r)
			checkClean(t, p)
			checkCounts(t, p, c.r)
			for _, want := range []struct {
				on   bool
				attr string
			}{{c.flame, "data-flame-rects"}, {c.timeline, "data-timeline-paths"}, {c.hist, "data-histogram-bars"}, {c.curves, "data-curve-points"}} {
				if n := atoi(t, p, want.attr); want.on && n == 0 {
					t.Errorf("%s = 0: the picture is missing", want.attr)
				}
			}
			// The findings are in the page, as HTML (no script needed).
			if got, want := strings.Count(p.dom, `<article class="finding`), len(c.r.Findings); got != want {
				t.Errorf("%d findings in the page, want %d", got, want)
			}
			t.Logf("render %s ms, flame %s rects, timeline %s paths", p.attrs["data-render-ms"], p.attrs["data-flame-rects"], p.attrs["data-timeline-paths"])
			// At each width: no label over another, none cut, nothing
			// wider than the window; and a screenshot to look at.
			minColours := 50
			if !c.flame && !c.timeline && !c.hist && !c.curves {
				minColours = 10 // text and the severities' colours
			}
			for _, w := range widths {
				pw := p // loaded at 1280
				if w != 1280 {
					pw = loadAt(t, b, path, w)
				}
				checkGeometry(t, pw, w)
				screenshot(t, b, path, t.Name(), w, minColours)
			}
		})
	}
}

// crowdedReport's pictures crowd their labels: the three percentiles in
// the histogram's last two buckets (p90 and p99 in one, at the right
// edge, where the old layout put their labels over each other), a sweep
// of 1 to 64 whose small values are a few px apart, and labels longer
// than the picture is wide.
func crowdedReport() report.Report {
	var bounds []int64
	counts := []int64{}
	for i := range 24 {
		bounds = append(bounds, int64(1000)<<i)
		counts = append(counts, int64(1000>>min(i, 9)))
	}
	h := &viz.Histogram{Bounds: bounds,
		Series: []viz.Series{{Name: "channel or select", Counts: counts}, {Name: "preempted", Counts: counts}, {Name: "created", Counts: counts}},
		Quants: []viz.Quantile{{Name: "p50", Value: bounds[22] - 5}, {Name: "p90", Value: bounds[23] - 3}, {Name: "p99", Value: bounds[23] - 1}}}
	long := strings.Repeat("a very long label from a benchmark's metric ", 6)
	var pts []viz.Point
	for _, x := range []float64{1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64} {
		pts = append(pts, viz.Point{X: x, Y: 100 / x, Lo: 90 / x, Hi: 110 / x})
	}
	set := &viz.Set{Title: "crowded", Latency: h, Curves: []viz.Curve{
		{Title: "p99 against GOMAXPROCS", XLabel: long, YLabel: long, Points: pts, Mark: 64, MarkLabel: "knee " + long},
		{Title: "knee at the left", XLabel: "GOMAXPROCS", YLabel: "ops/s", Points: pts, Mark: 1, MarkLabel: "knee"},
	}}
	return report.Report{Source: finding.SourceTrace, Findings: []finding.Finding{{Rule: "SD301", Severity: finding.Warning,
		Message: "p99 scheduling latency is " + long + "because " + long}}, Summary: hostileSummary{set}}
}

// demoReport is a demo's report made from the fixtures, as `schedoctor
// demo -html` writes it: one row per lab program with both a profile and
// a trace fixture, each stage's pictures in its cell titled
// "<program>: <stage>", and every finding of every analysis. The demo's
// runs are replaced by the recordings it would make, so that the page is
// the same on every machine.
func demoReport(t *testing.T) (report.Report, []string) {
	t.Helper()
	sum := &demo.Summary{Stages: []demo.Stage{demo.StageLint, demo.StageProfile, demo.StageTrace}}
	var fs []finding.Finding
	var titles []string
	for _, name := range []string{"sleeppoll", "mutex", "gcpressure", "overprocs", "workerpool"} {
		prof := profileReport(t, name+".pb.gz")
		tr := traceResult(t, filepath.Join(repo, "exectrace/testdata", name+".trace"))
		pv := *prof.Summary.(*profile.Summary).Visuals()
		pv.Title = name + ": profile"
		tv := *tr.Summary.Visuals()
		tv.Title = name + ": trace"
		titles = append(titles, pv.Title, tv.Title)
		rules := func(fs []finding.Finding) []string {
			var out []string
			for _, f := range fs {
				if f.Severity >= finding.Warning {
					out = append(out, f.Rule)
				}
			}
			return out
		}
		sum.Programs = append(sum.Programs, demo.ProgramSummary{Name: name, Cells: map[demo.Stage]*demo.StageSummary{
			demo.StageLint:    {Expected: []string{}, Found: []string{}},
			demo.StageProfile: {Expected: rules(prof.Findings), Found: rules(prof.Findings), Visual: &pv},
			demo.StageTrace:   {Expected: rules(tr.Findings), Found: rules(tr.Findings), Visual: &tv},
		}})
		fs = append(fs, prof.Findings...)
		fs = append(fs, tr.Findings...)
	}
	return report.Report{Source: finding.Source("demo"), Findings: fs, Summary: sum}, titles
}

// TestDemoReport: the demo's report draws every program's pictures, in the
// table's order under their titles, with its table as the figures; it stays
// small (the pictures are bounded per set, and the sets per report).
func TestDemoReport(t *testing.T) {
	b := browser(t)
	r, titles := demoReport(t)
	p, path := open(t, b, r)
	checkClean(t, p)
	checkCounts(t, p, r)
	for _, attr := range []string{"data-flame-rects", "data-timeline-paths", "data-histogram-bars"} {
		if atoi(t, p, attr) == 0 {
			t.Errorf("%s = 0: the demo's pictures are missing", attr)
		}
	}
	// Each program's pictures under its own heading, in order.
	heads := regexp.MustCompile(`<h2 id="set[0-9]+">([^<]*)</h2>`).FindAllStringSubmatch(p.dom, -1)
	var got []string
	for _, h := range heads {
		got = append(got, h[1])
	}
	if strings.Join(got, "|") != strings.Join(titles, "|") {
		t.Errorf("the pictures' headings are %q, want %q", got, titles)
	}
	// And listed at the top, each a link to its heading.
	if n := strings.Count(p.dom, `<a href="#set`); n != len(titles) {
		t.Errorf("the list of pictures has %d links, want %d", n, len(titles))
	}
	if !strings.Contains(p.dom, "program ") || !strings.Contains(p.dom, "sleeppoll ") {
		t.Error("the demo's table is not among the figures")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Ten picture sets of one-second recordings: well under the 5 MB a
	// report of the largest trace may take (TestLargeTrace).
	const maxHTML = 1 << 20
	if st.Size() > maxHTML {
		t.Errorf("the demo report of %d picture sets is %d bytes, over %d", len(titles), st.Size(), maxHTML)
	}
	for _, w := range widths {
		pw := p
		if w != 1280 {
			pw = loadAt(t, b, path, w)
		}
		checkGeometry(t, pw, w)
		screenshot(t, b, path, t.Name(), w, 50)
	}
	t.Logf("%d picture sets, %d bytes; render %s ms, flame %s rects, timeline %s paths, histogram %s bars",
		len(titles), st.Size(), p.attrs["data-render-ms"], p.attrs["data-flame-rects"], p.attrs["data-timeline-paths"], p.attrs["data-histogram-bars"])
}

// TestHostileNames: names with markup, quotes and control characters are
// shown as text, drawn in the pictures, and run nothing.
func TestHostileNames(t *testing.T) {
	b := browser(t)
	r := hostileReport()
	p, _ := open(t, b, r)
	checkClean(t, p)
	checkCounts(t, p, r)
	// A script that ran would have set this; a tag that was parsed would
	// be an element in the DOM.
	if strings.Contains(p.dom, "data-pwned") {
		t.Error("a hostile name ran as script")
	}
	if regexp.MustCompile(`<img[^>]*x-hostile`).MatchString(p.dom) {
		t.Error("a hostile name became an element")
	}
	// As text: escaped in the findings, and in the flame graph's labels
	// (drawn by the script through textContent).
	if n := strings.Count(p.dom, "main.&lt;img src=x x-hostile"); n < 3 {
		t.Errorf("the hostile name appears %d times as text, want at least 3 (finding, location, flame label)", n)
	}
}

const hostileName = `main.<img src=x x-hostile onerror="document.body.dataset.pwned=1">'"&</script><script>document.body.dataset.pwned=1</script>` + "\x1b[31m\x00"

func hostileReport() report.Report {
	fb := vizbuild.NewFlame([]string{"user", "timers"})
	fb.Add([]string{"runtime.main", hostileName, "leaf"}, 900, "user")
	fb.Add([]string{"runtime.main", hostileName}, 100, "timers")
	tb := vizbuild.NewTimeline([]string{"running", "idle"}, 10, 4, 100)
	tb.Span(0, 0, 0, 500)
	tb.Span(0, 1, 500, 1000)
	tb.Runnable(2, 0, 1000)
	set := &viz.Set{
		Title:  hostileName,
		Causes: []viz.CauseCPU{{Cause: hostileName, Cores: 1, Share: 100}},
		Flame:  fb.Build(0, 100, 1),
		Latency: &viz.Histogram{Bounds: []int64{1000, 2000}, Series: []viz.Series{{Name: hostileName, Counts: []int64{3, 4}}},
			Quants: []viz.Quantile{{Name: hostileName, Value: 1500}}},
		Timeline: tb.Build(),
		Curves: []viz.Curve{{Title: hostileName, XLabel: hostileName, YLabel: hostileName,
			Points: []viz.Point{{X: 1, Y: 2, Lo: 1, Hi: 3}, {X: 2, Y: 1, Lo: 1, Hi: 1}}, Mark: 2, MarkLabel: hostileName}},
	}
	return report.Report{
		Source: finding.SourceProfile,
		Findings: []finding.Finding{{
			Rule: "SD101", Severity: finding.Critical, Message: "1 core because " + hostileName,
			Locations: []finding.Location{{File: "/x/" + hostileName + ".go", Line: 3, Function: hostileName}},
			Evidence:  []finding.Evidence{{Label: hostileName, Value: 1, Unit: hostileName}},
			Fix:       "do " + hostileName, Sources: []string{"profile", hostileName},
		}},
		Summary: hostileSummary{set},
	}
}

type hostileSummary struct{ set *viz.Set }

func (h hostileSummary) Visuals() *viz.Set { return h.set }

// TestChecksCanFail: a page that fetches something, or throws, is caught
// by the same checks that pass the reports (so their passing means
// something).
func TestChecksCanFail(t *testing.T) {
	b := browser(t)
	_, path := open(t, b, profileReport(t, "busyselect.pb.gz"))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// An image from the network, injected past the renderer.
	bad := strings.Replace(string(good), "<main>", `<main><img src="http://example.invalid/x.png" alt="">`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	// Caught as checkClean catches it: the page's own record of the
	// policy's refusal, or Chromium's "Refused to" line (on a crowded
	// machine the violation event can come after the DOM is dumped).
	p := load(t, b, path)
	if p.attrs["data-rendered"] == "ok" && p.attrs["data-errors"] == "" && len(consoleErrors(p.stderr)) == 0 {
		t.Error("a page that loads a network image rendered clean: the request went unnoticed")
	}
	// Without the policy, the proxy must see the request.
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	if err := os.WriteFile(path, []byte(csp.ReplaceAllString(bad, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := load(t, b, path); len(p.requests) == 0 {
		t.Error("the recording proxy saw no request from a page that loads a network image")
	}
	// A picture whose box the server did not size moves the page when drawn.
	unsized := regexp.MustCompile(`(<div class="chart"[^>]*) style="height: [0-9]+px"`).ReplaceAllString(string(good), "$1")
	if err := os.WriteFile(path, []byte(unsized), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := load(t, b, path); p.attrs["data-layout-shift"] == "0.0" || p.attrs["data-layout-shift"] == "" {
		t.Errorf("layout shift %q for a page whose pictures' boxes are unsized", p.attrs["data-layout-shift"])
	}
	// Two labels drawn over each other, one cut by its picture's edge,
	// and a line wider than the window are caught by the page's measure
	// that checkGeometry reads.
	crowded := strings.Replace(string(good), "<main>", `<main><div class="chart" style="height: 40px"><svg viewBox="0 0 400 40">`+
		`<text x="10" y="20">p90 8.39ms</text><text x="14" y="22">p99 8.39ms</text><text x="390" y="20">this label runs past the edge of its picture</text></svg></div>`+
		`<p style="white-space: nowrap">`+strings.Repeat("wide ", 400)+`</p>`, 1)
	if err := os.WriteFile(path, []byte(crowded), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := loadAt(t, b, path, 800)
	for attr, want := range map[string]string{"data-label-overlaps": "1", "data-labels-cut": "1"} {
		if got := pc.attrs[attr]; got != want {
			t.Errorf("%s = %q on a page with one such label, want %s", attr, got, want)
		}
	}
	if pc.attrs["data-overflow-x"] == "0" || pc.attrs["data-overflow-x"] == "" {
		t.Errorf("data-overflow-x = %q on a page with a line wider than the window", pc.attrs["data-overflow-x"])
	}
}

// TestScreenshotNotBlank: the report's screenshot has the pictures' many
// colours, not a blank page.
func TestScreenshotNotBlank(t *testing.T) {
	b := browser(t)
	tr := traceResult(t, filepath.Join(repo, "exectrace/testdata/gcpressure.trace"))
	_, path := open(t, b, report.Report{Source: finding.SourceTrace, Findings: tr.Findings, Summary: tr.Summary})
	// Text alone gives grey levels; the timeline, histogram and legend add
	// their colours. A blank or unstyled page has a handful.
	for _, w := range widths {
		shot := screenshot(t, b, path, t.Name(), w, 50)
		t.Logf("screenshot %s", shot)
	}
	// The check can fail: a page with nothing drawn.
	blank := filepath.Join(t.TempDir(), "blank.html")
	if err := os.WriteFile(blank, []byte("<!doctype html><title>blank</title><p>x</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "blank.png")
	if _, errOut, err := b.Run(context.Background(), 90*time.Second, blank, "--screenshot="+shot, "--window-size=800,600"); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errOut))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := distinctColoursOf(img); n >= 50 {
		t.Errorf("a blank page's screenshot has %d distinct colours: the check cannot fail", n)
	}
}

// distinctColoursOf counts the colours of every other pixel of every
// other row.
func distinctColoursOf(img image.Image) int {
	seen := map[[3]uint32]bool{}
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 2 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	return len(seen)
}

// TestLargeTrace: the report of the largest trace at hand stays a few MB
// and draws in under a second ($SCHEDOCTOR_BENCH_TRACE, made by
// scripts/bench-trace.sh, else the largest committed fixture).
func TestLargeTrace(t *testing.T) {
	b := browser(t)
	path := os.Getenv("SCHEDOCTOR_BENCH_TRACE")
	if path == "" {
		path = largestFixture(t)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tr := traceResult(t, path)
	analyse := time.Since(start)
	r := report.Report{Source: finding.SourceTrace, Findings: tr.Findings, Summary: tr.Summary}
	p, html := open(t, b, r)
	checkClean(t, p)
	checkCounts(t, p, r)
	hs, err := os.Stat(html)
	if err != nil {
		t.Fatal(err)
	}
	const maxHTML = 5 << 20
	if hs.Size() > maxHTML {
		t.Errorf("the report of a %d-byte trace is %d bytes, over %d", st.Size(), hs.Size(), maxHTML)
	}
	ms, err := strconv.ParseFloat(p.attrs["data-render-ms"], 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trace %s: %d bytes, analysed in %v; report %d bytes, drawn in %.0f ms", filepath.Base(path), st.Size(), analyse.Round(time.Millisecond), hs.Size(), ms)
	if ms > 1000 {
		if busy, load := machineBusy(); busy {
			t.Skipf("drawing took %.0f ms, over 1s, but the machine is busy (load average %.1f on %d CPUs): not a verdict", ms, load, runtime.NumCPU())
		}
		t.Errorf("drawing took %.0f ms, over 1s", ms)
	}
}

func largestFixture(t *testing.T) string {
	matches, _ := filepath.Glob(filepath.Join(repo, "exectrace/testdata/*.trace"))
	best, size := "", int64(-1)
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Size() > size {
			best, size = m, st.Size()
		}
	}
	if best == "" {
		t.Fatal("no trace fixture")
	}
	return best
}

// machineBusy reports whether the 1-minute load average is above the CPUs.
func machineBusy() (bool, float64) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return false, 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return false, 0
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return false, 0
	}
	return l > float64(runtime.NumCPU()), l
}
