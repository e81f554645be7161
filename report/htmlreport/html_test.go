package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/golden"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/viz"
)

// hostile is a name that would break out of an element, an attribute or a
// script if it reached the page unescaped, with control characters.
const hostile = "main.<script>alert(\"x\")</script>'\"&</script><!--\x1b[31m\x00\u2028"

// fakeSummary stands for a source's summary: text, and pictures with
// hostile names everywhere a source puts input strings.
type fakeSummary struct{ set *viz.Set }

func (f *fakeSummary) Visuals() *viz.Set { return f.set }
func (f *fakeSummary) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, "WHERE "+hostile+"\n")
	return err
}

// HostileReport is a report whose every input string is hostile; the
// browser test renders it too.
func HostileReport() report.Report {
	b := vizbuild.NewFlame([]string{"user", "timers"})
	b.Add([]string{"runtime.main", hostile, "leaf"}, 900, "user")
	b.Add([]string{"runtime.main", hostile}, 100, "timers")
	tb := vizbuild.NewTimeline([]string{"running", "idle"}, 10, 4, 100)
	tb.Span(0, 0, 0, 500)
	tb.Span(0, 1, 500, 1000)
	tb.Runnable(2, 0, 1000)
	set := &viz.Set{
		Title:  hostile,
		Causes: []viz.CauseCPU{{Cause: hostile, Cores: 1, Share: 100}},
		Flame:  b.Build(0, 100, 1),
		Latency: &viz.Histogram{Bounds: []int64{1000, 2000}, Series: []viz.Series{{Name: hostile, Counts: []int64{3, 4}}},
			Quants: []viz.Quantile{{Name: hostile, Value: 1500}}},
		Timeline: tb.Build(),
		Curves:   []viz.Curve{{Title: hostile, XLabel: hostile, YLabel: hostile, Points: []viz.Point{{X: 1, Y: 2, Lo: 1, Hi: 3}, {X: 2, Y: 1, Lo: 1, Hi: 1}}, Mark: 2, MarkLabel: hostile}},
	}
	return report.Report{
		Source: finding.SourceProfile,
		Findings: []finding.Finding{{
			Rule: "SD101", Severity: finding.Critical, Message: "1 core because " + hostile,
			Locations: []finding.Location{{File: "/x/" + hostile + ".go", Line: 3, Function: hostile}},
			Evidence:  []finding.Evidence{{Label: hostile, Value: 1, Unit: hostile}},
			Fix:       "do " + hostile, Sources: []string{"profile", hostile},
		}},
		Summary: &fakeSummary{set: set},
	}
}

func TestHostileNamesEscaped(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, HostileReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// Exactly the two script elements of the page, closed once each.
	if n := strings.Count(strings.ToLower(out), "<script"); n != 2 {
		t.Errorf("%d <script in the page, want 2 (the data and the code)", n)
	}
	if n := strings.Count(strings.ToLower(out), "</script"); n != 2 {
		t.Errorf("%d </script in the page, want 2", n)
	}
	if strings.Contains(out, "<!--") {
		t.Error("a comment opener reached the page")
	}
	for _, c := range []string{"\x1b", "\x00"} {
		if strings.Contains(out, c) {
			t.Errorf("control character %q reached the page", c)
		}
	}
	// The name is there as text: escaped markup, and the escaped control
	// characters as textsafe writes them.
	if !strings.Contains(out, "main.&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("the hostile name is not in the page as escaped text")
	}
	// The data block parses back to the same names.
	m := regexp.MustCompile(`(?s)<script type="application/json" id="sd-data">(.*?)</script>`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no data block")
	}
	var data struct {
		Sets []viz.Set `json:"sets"`
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatalf("data block: %v", err)
	}
	// ... escaped as the text report shows them (viz.Clean): the script
	// draws them as text, where a raw bidi override would reorder them.
	want := textsafe.String(hostile)
	if len(data.Sets) != 1 || data.Sets[0].Title != want || data.Sets[0].Flame.Names[2] != want && data.Sets[0].Flame.Names[1] != want {
		t.Errorf("data block does not carry the names escaped: %+v", data.Sets)
	}
}

// nested stands for check's summary: sources' summaries as fields,
// embedded in wrappers (diagnose's), some nil.
type nested struct {
	Target  string
	Profile *wrapper
	Trace   *fakeSummary
	Missing *fakeSummary
	private *fakeSummary
}

type wrapper struct {
	*fakeSummary
	Note string
}

func TestCollect(t *testing.T) {
	a := &fakeSummary{set: &viz.Set{Title: "a", Causes: []viz.CauseCPU{{Cause: "user", Cores: 1}}}}
	b := &fakeSummary{set: &viz.Set{Title: "b", Curves: []viz.Curve{{Points: []viz.Point{{X: 1}}}}}}
	hidden := &fakeSummary{set: &viz.Set{Title: "hidden", Causes: a.set.Causes}}
	got := Collect(&nested{Profile: &wrapper{fakeSummary: a}, Trace: b, private: hidden})
	if len(got) != 2 || got[0].Title != "a" || got[1].Title != "b" {
		t.Errorf("collected %v, want a and b", titles(got))
	}
	// A provider with nothing to draw, and no provider at all.
	if got := Collect(&fakeSummary{set: &viz.Set{Title: "empty"}}); len(got) != 0 {
		t.Errorf("collected %v from an empty set", titles(got))
	}
	if got := Collect(struct{ N int }{3}); len(got) != 0 {
		t.Errorf("collected %v from a summary without pictures", titles(got))
	}
	if got := Collect(nil); len(got) != 0 {
		t.Errorf("collected %v from nil", titles(got))
	}
	// Slices and maps (a demo's programs), in key order.
	c := &fakeSummary{set: &viz.Set{Title: "c", Causes: a.set.Causes}}
	got = Collect(struct {
		Rows []struct{ Cells map[string]*viz.Set }
	}{Rows: []struct{ Cells map[string]*viz.Set }{{Cells: map[string]*viz.Set{"z": b.set, "a": c.set, "m": nil}}}})
	if len(got) != 2 || got[0].Title != "c" || got[1].Title != "b" {
		t.Errorf("collected %v from a slice of maps, want c and b", titles(got))
	}
	// A cycle ends.
	type loop struct{ Next *loop }
	l := &loop{}
	l.Next = l
	Collect(l)
}

func titles(sets []*viz.Set) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Title)
	}
	return out
}

// TestGolden pins the page's markup around the embedded style and script
// (those are replaced by their sizes, so that a style edit does not make
// the golden stale).
func TestGolden(t *testing.T) {
	tb := vizbuild.NewTimeline([]string{"running", "idle"}, 4, 2, 100)
	tb.Span(0, 0, 0, 250)
	tb.Span(0, 1, 250, 400)
	fb := vizbuild.NewFlame([]string{"user", "channel"})
	fb.Add([]string{"runtime.main", "main.main", "main.spin"}, 700, "channel")
	fb.Add([]string{"runtime.main", "main.main"}, 300, "user")
	r := report.Report{
		Source: finding.SourceProfile,
		Findings: []finding.Finding{{Rule: "SD204", Severity: finding.Warning, Message: "70% of CPU (0.70 cores) busy-waits in a select because its default case is always ready",
			Locations: []finding.Location{{File: "/src/main.go", Line: 12, Function: "main.spin"}},
			Evidence:  []finding.Evidence{{Label: "share of the profile's CPU time", Value: 70, Unit: "%"}},
			Fix:       "remove the default", Sources: []string{"profile", "lint"}}},
		Summary: &fakeSummary{set: &viz.Set{Title: "profile",
			Causes:   []viz.CauseCPU{{Cause: "channel", Cores: 0.7, Share: 70}, {Cause: "user", Cores: 0.3, Share: 30}},
			Flame:    fb.Build(0.001, 100, 1),
			Timeline: tb.Build(),
		}},
	}
	var buf bytes.Buffer
	if err := Render(&buf, r, Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(buf.String(), css, "/* report.css */", 1)
	out = strings.Replace(out, script, "/* report.js */", 1)
	// The hash as the attribute holds it (entity-escaped: + is &#43;).
	out = regexp.MustCompile(`script-src &#39;sha256-.*?&#39;`).ReplaceAllString(out, "script-src &#39;sha256-HASH&#39;")
	golden.Check(t, "testdata/report.golden.html", []byte(out))
}

// TestCSPAllowsTheScript: the policy names the hash of the script the page
// holds, so the browser runs it (and nothing else).
func TestCSPAllowsTheScript(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, report.Report{Source: "lint"}, Options{}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(buf.String())
	if m == nil {
		t.Fatal("no script")
	}
	sum := sha256.Sum256([]byte(m[1]))
	want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	page := html.UnescapeString(buf.String()) // the attribute's entities, as the browser reads them
	if !strings.Contains(page, want) {
		t.Errorf("the policy does not allow the script's hash %s", want)
	}
	if !strings.Contains(page, "default-src 'none'") {
		t.Error("the policy does not forbid fetches")
	}
}

// TestNonFinite: a failed measurement (NaN, Inf) in the pictures' numbers
// does not fail the report; the point is left out.
func TestNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	set := &viz.Set{Title: "sweep",
		Causes: []viz.CauseCPU{{Cause: "user", Cores: nan, Share: inf}},
		Curves: []viz.Curve{{Title: "wall", Points: []viz.Point{{X: 1, Y: nan}, {X: 2, Y: 1, Lo: nan, Hi: inf}}, Mark: nan}}}
	var buf bytes.Buffer
	if err := Render(&buf, report.Report{Source: "sweep", Summary: &fakeSummary{set: set}}, Options{}); err != nil {
		t.Fatalf("render: %v", err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="sd-data">(.*?)</script>`).FindStringSubmatch(buf.String())
	var data struct {
		Sets []viz.Set `json:"sets"`
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	if pts := data.Sets[0].Curves[0].Points; len(pts) != 1 || pts[0].X != 2 || pts[0].Lo != 1 {
		t.Errorf("points %+v, want only x=2 with its interval collapsed to y", pts)
	}
	if !math.IsNaN(set.Causes[0].Cores) {
		t.Error("the source's summary was changed")
	}
}

// twoSets is a summary with several picture sets, as a demo's.
type twoSets struct {
	A, B *viz.Set
}

// TestPicturesNav: a report of several picture sets (a demo: dozens,
// after dozens of findings) lists them at the top, each a link to its
// heading, titles escaped; a report of one set has no such list.
func TestPicturesNav(t *testing.T) {
	causes := []viz.CauseCPU{{Cause: "user", Cores: 1, Share: 100}}
	render := func(sum any) string {
		var b bytes.Buffer
		if err := Render(&b, report.Report{Source: "demo", Summary: sum}, Options{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := render(twoSets{A: &viz.Set{Title: "busyselect: profile", Causes: causes}, B: &viz.Set{Title: hostile, Causes: causes}})
	nav := regexp.MustCompile(`(?s)<nav class="sets" aria-label="pictures">.*?</nav>`).FindString(out)
	if nav == "" {
		t.Fatalf("no list of the pictures in a report of two sets")
	}
	if !strings.Contains(nav, `<a href="#set0">busyselect: profile</a>`) || !strings.Contains(nav, `<a href="#set1">main.&lt;script&gt;`) {
		t.Errorf("the list does not link each set by its escaped title: %s", nav)
	}
	for _, id := range []string{`<h2 id="set0">`, `<h2 id="set1">`} {
		if !strings.Contains(out, id) {
			t.Errorf("the list links to %s, which is not in the page", id)
		}
	}
	if strings.Contains(render(twoSets{A: &viz.Set{Title: "one", Causes: causes}}), `aria-label="pictures"`) {
		t.Error("a report of one picture set lists its pictures")
	}
}

type thinSummary struct{}

func (thinSummary) ThinEvidence() string {
	return "only 3 samples (0.03s of CPU); profile for at least 30s"
}

// TestThinHeading: a thin profile's HTML report says so in its heading,
// not "no findings" with the note only inside the figures. Fails on the
// report whose heading read "no findings".
func TestThinHeading(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, report.Report{Source: finding.SourceProfile, Summary: thinSummary{}}, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	head, _, _ := strings.Cut(page, `<section id="findings"`)
	for _, want := range []string{
		"<title>schedoctor profile: no findings; not enough evidence to rule causes out</title>",
		`<p class="thin" role="note"><strong>not enough evidence: only 3 samples (0.03s of CPU); profile for at least 30s</strong></p>`,
	} {
		if !strings.Contains(head, want) {
			t.Errorf("heading lacks %q:\n%s", want, head)
		}
	}
	b.Reset()
	if err := Render(&b, report.Report{Source: finding.SourceProfile}, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "not enough evidence") {
		t.Error("a report without a thin summary says the evidence is thin")
	}
}

// TestHeadlineBecause: a finding's card heads with one line (the
// message up to its first "; " or " because "), the rest beneath in a
// paragraph of its own, both escaped; the whole headline is in the title
// for hover. Fails on the card whose heading was the whole message.
func TestHeadlineBecause(t *testing.T) {
	for _, c := range []struct{ msg, what, why string }{
		{"GOMAXPROCS=2 is the knee because it has the best p99; not recommended: busy", "GOMAXPROCS=2 is the knee", "Because it has the best p99; not recommended: busy"},
		{"16% of CPU goes to preemption; threads kept running because of x", "16% of CPU goes to preemption", "threads kept running because of x"},
		{"70% of CPU busy-waits in a select", "70% of CPU busy-waits in a select", ""},
		{"", "", ""},
	} {
		f := finding.Finding{Message: c.msg}
		if got := headline(f); got != c.what {
			t.Errorf("headline(%q) = %q, want %q", c.msg, got, c.what)
		}
		if got := because(f); got != c.why {
			t.Errorf("because(%q) = %q, want %q", c.msg, got, c.why)
		}
	}
	long := strings.Repeat("very long figures, ", 20)
	r := report.Report{Source: finding.SourceProfile, Findings: []finding.Finding{
		{Rule: "SD204", Severity: finding.Warning, Message: "1 core <b>busy</b> " + long + "because a <i>select</i> has a default"},
		{Rule: "SD101", Severity: finding.Info, Message: "one line only"},
	}}
	var b bytes.Buffer
	if err := Render(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	what := "1 core &lt;b&gt;busy&lt;/b&gt; " + strings.TrimSuffix(long, " ")
	for _, want := range []string{
		`title="` + what + `"`,
		`<span class="what">` + what + `</span></h3>`,
		`<p class="because">Because a &lt;i&gt;select&lt;/i&gt; has a default</p>`,
		`<span class="what">one line only</span></h3>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<p class="because">`); n != 1 {
		t.Errorf("%d because paragraphs, want 1 (a one-line message has none)", n)
	}
	if n := strings.Count(page, `class="headline"`); n != 2 {
		t.Errorf("%d headlines, want one per finding", n)
	}
	// One line in the style: cut with an ellipsis, never wrapped.
	if !regexp.MustCompile(`\.finding h3 \{[^}]*white-space: nowrap;[^}]*text-overflow: ellipsis;`).MatchString(css) {
		t.Error("the headline's style does not keep it to one line")
	}
}
