//go:build unix

package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/report/htmlreport"
	"github.com/schedoctor/schedoctor/viz"
)

type layoutLabel struct {
	At float64 `json:"at"`
	W  float64 `json:"w"`
}

type layoutOpt struct {
	Side string  `json:"side,omitempty"`
	Rows int     `json:"rows,omitempty"`
	Pad  float64 `json:"pad,omitempty"`
	Gap  float64 `json:"gap,omitempty"`
}

type layoutCase struct {
	Name   string        `json:"name"`
	Labels []layoutLabel `json:"labels"`
	Lo     float64       `json:"lo"`
	Hi     float64       `json:"hi"`
	Opt    layoutOpt     `json:"opt"`
	// wantRows, when set, is each label's row (-1 dropped).
	wantRows []int
}

type placedLabel struct {
	X   float64 `json:"x"`
	Row int     `json:"row"`
}

// TestLabelLayout runs the report's label layout (assets/layout.js,
// sdPlaceLabels) alone in the browser on close marks: whatever the
// marks, no two labels of a row overlap, none leaves the room, a label
// beside its mark is on one side of it, and with a row per label none is
// dropped.
func TestLabelLayout(t *testing.T) {
	b := browser(t)
	same := func(at float64, n int) []layoutLabel {
		var l []layoutLabel
		for range n {
			l = append(l, layoutLabel{At: at, W: 62})
		}
		return l
	}
	var ticks []layoutLabel
	for i := range 30 {
		ticks = append(ticks, layoutLabel{At: 56 + float64(i)*24, W: 46})
	}
	beside := layoutOpt{Pad: 3, Gap: 6, Rows: 3}
	cases := []layoutCase{
		{Name: "p90 and p99 in one bucket at the right edge", Labels: same(790, 3), Lo: 58, Hi: 790, Opt: beside, wantRows: []int{0, 1, 2}},
		{Name: "p50 mid, p90 and p99 in one bucket", Labels: []layoutLabel{{At: 400, W: 62}, {At: 600, W: 62}, {At: 600, W: 62}}, Lo: 58, Hi: 790, Opt: beside, wantRows: []int{0, 0, 1}},
		{Name: "adjacent buckets", Labels: []layoutLabel{{At: 400, W: 62}, {At: 417, W: 62}, {At: 434, W: 62}}, Lo: 58, Hi: 790, Opt: beside, wantRows: []int{0, 1, 2}},
		{Name: "far apart: one row", Labels: []layoutLabel{{At: 100, W: 62}, {At: 300, W: 62}, {At: 500, W: 62}}, Lo: 58, Hi: 790, Opt: beside, wantRows: []int{0, 0, 0}},
		{Name: "mark at the left edge", Labels: same(58, 2), Lo: 58, Hi: 790, Opt: beside, wantRows: []int{0, 1}},
		{Name: "all in one narrow room", Labels: same(100, 3), Lo: 80, Hi: 120, Opt: beside, wantRows: []int{0, 1, 2}},
		{Name: "ticks 24 px apart thinned", Labels: ticks, Lo: 48, Hi: 798, Opt: layoutOpt{Side: "centre", Gap: 4}},
		{Name: "a label wider than the room", Labels: []layoutLabel{{At: 150, W: 1000}}, Lo: 10, Hi: 300, Opt: layoutOpt{Side: "centre"}, wantRows: []int{0}},
		{Name: "one row, two on one spot", Labels: same(300, 2), Lo: 0, Hi: 800, Opt: layoutOpt{Pad: 3}, wantRows: []int{0, -1}},
	}
	got := runLayout(t, b, cases)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			checkLayout(t, c, got[i])
		})
	}
	// The thinned ticks keep the first and at least one in three.
	if p := got[6]; p[0].Row != 0 || countRows(p, 0) < len(p)/3 {
		t.Errorf("ticks: %v: the first dropped, or under a third kept", p)
	}
}

func countRows(p []placedLabel, row int) int {
	n := 0
	for _, l := range p {
		if l.Row == row {
			n++
		}
	}
	return n
}

func checkLayout(t *testing.T, c layoutCase, p []placedLabel) {
	t.Helper()
	if len(p) != len(c.Labels) {
		t.Fatalf("%d placements for %d labels", len(p), len(c.Labels))
	}
	rows := max(c.Opt.Rows, 1)
	const eps = 1e-6
	for i, l := range c.Labels {
		w := math.Min(l.W, c.Hi-c.Lo)
		pl := p[i]
		if pl.Row < -1 || pl.Row >= rows {
			t.Errorf("label %d in row %d of %d", i, pl.Row, rows)
		}
		if pl.Row < 0 {
			if rows >= len(c.Labels) {
				t.Errorf("label %d dropped with a row for every label", i)
			}
			continue
		}
		if pl.X < c.Lo-eps || pl.X+w > c.Hi+eps {
			t.Errorf("label %d at [%.1f, %.1f] leaves the room [%.1f, %.1f]", i, pl.X, pl.X+w, c.Lo, c.Hi)
		}
		clamped := math.Abs(pl.X-c.Lo) < eps || math.Abs(pl.X+w-c.Hi) < eps
		if c.Opt.Side != "centre" && !clamped && math.Abs(pl.X-(l.At+c.Opt.Pad)) > eps && math.Abs(pl.X+w-(l.At-c.Opt.Pad)) > eps {
			t.Errorf("label %d at %.1f is on neither side of its mark %.1f", i, pl.X, l.At)
		}
		if c.Opt.Side == "centre" && !clamped && math.Abs(pl.X+w/2-l.At) > eps {
			t.Errorf("label %d at %.1f is not centred on %.1f", i, pl.X, l.At)
		}
		for j := range i {
			o, ow := p[j], math.Min(c.Labels[j].W, c.Hi-c.Lo)
			if o.Row == pl.Row && pl.X < o.X+ow+c.Opt.Gap-eps && o.X < pl.X+w+c.Opt.Gap-eps {
				t.Errorf("labels %d [%.1f, %.1f] and %d [%.1f, %.1f] overlap in row %d", j, o.X, o.X+ow, i, pl.X, pl.X+w, pl.Row)
			}
		}
	}
	if c.wantRows != nil {
		var got []int
		for _, pl := range p {
			got = append(got, pl.Row)
		}
		if !slices.Equal(got, c.wantRows) {
			t.Errorf("rows %v, want %v", got, c.wantRows)
		}
	}
}

// runLayout runs sdPlaceLabels on each case in a page of its own (the
// layout script and the cases, no report) and returns the placements.
func runLayout(t *testing.T, b *Browser, cases []layoutCase) [][]placedLabel {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repo, "report/htmlreport/assets/layout.js"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf(`<!doctype html><title>layout</title><body><script>%s</script><script>
var out = %s.map(function (c) { return sdPlaceLabels(c.labels, c.lo, c.hi, c.opt); });
document.body.setAttribute("data-placed", JSON.stringify(out));
</script></body>`, src, in)
	path := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := b.Run(context.Background(), 90*time.Second, path, "--dump-dom", "--virtual-time-budget=2000")
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errOut))
	}
	m := regexp.MustCompile(`data-placed="([^"]*)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the layout script wrote no result:\n%s\n%s", out, tail(errOut))
	}
	var got [][]placedLabel
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("the layout's result: %v", err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	return got
}

// TestEveryNameHasAColour: every CPU cause and every wait reason and P
// state the fixtures' traces draw has a slot of its own in viz's palette
// (or is the idle grey), so that none falls back to a colour from its
// name's hash, which would differ from report to report when two names
// collide.
func TestEveryNameHasAColour(t *testing.T) {
	var names []string
	for _, c := range classify.Causes {
		names = append(names, string(c))
	}
	traces, _ := filepath.Glob(filepath.Join(repo, "exectrace/testdata/*.trace"))
	if len(traces) == 0 {
		t.Fatal("no trace fixtures")
	}
	seen := map[string]bool{}
	for _, path := range traces {
		tr := traceResult(t, path)
		set := tr.Summary.Visuals()
		if set == nil {
			continue
		}
		if h := set.Latency; h != nil {
			for _, s := range h.Series {
				seen[s.Name] = true
			}
		}
		if tl := set.Timeline; tl != nil {
			for _, s := range tl.States {
				seen[s] = true
			}
		}
	}
	for n := range seen {
		names = append(names, n)
	}
	for _, n := range names {
		if _, ok := viz.Slot(n); !ok && n != "idle" {
			t.Errorf("%q has no colour of its own: add it to viz's slots", n)
		}
	}
	t.Logf("%d names, %d of them from %d traces", len(names), len(seen), len(traces))
}

// TestColoursAcrossReports: the fixtures' real reports — trace reports of
// traces whose reasons differ, and a check report holding a profile and
// another trace — give each cause, reason and state one class.
func TestColoursAcrossReports(t *testing.T) {
	busy := profileReport(t, "busyselect.pb.gz")
	var reports []report.Report
	for _, name := range []string{"mutex", "sleeppoll", "gosched"} {
		tr := traceResult(t, filepath.Join(repo, "exectrace/testdata", name+".trace"))
		reports = append(reports, report.Report{Source: finding.SourceTrace, Findings: tr.Findings, Summary: tr.Summary})
	}
	gc := traceResult(t, filepath.Join(repo, "exectrace/testdata/gcpressure.trace"))
	reports = append(reports, busy, report.Report{Source: finding.SourceCheck, Findings: gc.Findings,
		Summary: &check.Summary{Target: "fixture",
			Profile: &diagnose.ProfileSummary{Summary: busy.Summary.(*profile.Summary)},
			Trace:   &diagnose.TraceSummary{Summary: gc.Summary}}})
	classOf := map[string]string{}
	where := map[string]int{}
	item := regexp.MustCompile(`<li><i class="([a-z0-9]+)"></i>([^<]*)</li>`)
	for i, r := range reports {
		var b bytes.Buffer
		if err := htmlreport.Render(&b, r, htmlreport.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, m := range item.FindAllStringSubmatch(b.String(), -1) {
			class, name := m[1], html.UnescapeString(m[2])
			if c, ok := classOf[name]; ok && c != class {
				t.Errorf("%q is %s in report %d and %s in report %d", name, c, where[name], class, i)
			}
			classOf[name], where[name] = class, i
		}
	}
	if len(classOf) < 10 {
		t.Errorf("only %d names in the legends: %v", len(classOf), classOf)
	}
}
