// Package htmlreport renders a report as one self-contained HTML file: the
// findings first (each with its evidence, locations and fix), the source's
// figures, and its pictures (CPU by cause, a flame graph of the classified
// profile, the scheduling-latency histogram, a P timeline, sweep curves).
//
// The file needs no network: the style sheet and script are embedded and
// inlined, the pictures' data is inlined as JSON, and a content security
// policy forbids every fetch, so that it opens from file:// and can be
// attached to a ticket. The findings and figures are HTML, readable
// without script and printed; the pictures are drawn by a few hundred
// lines of plain JS.
//
// Every string from the input (function names, file paths, label values,
// command lines) is escaped: html/template escapes the markup, and the
// JSON of the pictures is marshalled with <, > and & escaped so that no
// name can close the script element that holds it.
package htmlreport

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textsafe"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/viz"
)

//go:embed assets/report.css
var reportCSS string

// css is the page's style: report.css and the palette's classes.
var css = reportCSS + paletteCSS()

//go:embed assets/layout.js
var layoutScript string

//go:embed assets/report.js
var reportScript string

// script is the page's one script: the label layout (layout.js, pure, so
// that a test can run it alone) and the drawing.
var script = layoutScript + reportScript

// scriptHash is the script's CSP hash: the policy allows this script and
// no other, so that even markup that escaped the escaping could not run.
var scriptHash = func() string {
	sum := sha256.Sum256([]byte(script))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// Options tune Render. The zero value is a report titled by its source.
type Options struct {
	// Title replaces "schedoctor <source>" as the page's title.
	Title string
	// Version is the tool's version, printed in the footer.
	Version string
}

// Render writes r as one HTML document.
func Render(w io.Writer, r report.Report, opt Options) error {
	fs := append([]finding.Finding(nil), r.Findings...)
	finding.Sort(fs)
	title := opt.Title
	if title == "" {
		title = "schedoctor " + string(r.Source)
	}
	page := pageData{
		Title:   title,
		Source:  string(r.Source),
		Version: opt.Version,
		CSS:     template.CSS(css),
		Script:  template.JS(script),
		CSP: "default-src 'none'; script-src '" + scriptHash + "'; style-src 'unsafe-inline'; img-src data:; " +
			"base-uri 'none'; form-action 'none'",
	}
	page.Counts = counts(fs)
	for _, t := range report.Thin(r.Summary) {
		page.Thin = append(page.Thin, clean(report.ThinPrefix+t))
	}
	for _, h := range r.Hints {
		page.Hints = append(page.Hints, clean(h.Text))
	}
	if len(page.Thin) > 0 {
		page.Counts += "; not enough evidence to rule causes out"
	}
	for _, f := range fs {
		page.Findings = append(page.Findings, findingView(f))
	}
	var err error
	if page.Summary, err = summaryText(r.Summary); err != nil {
		return fmt.Errorf("rendering the summary: %w", err)
	}
	sets := Collect(r.Summary)
	for i, s := range sets {
		sets[i] = viz.Clean(finite(s)) // labels from input drawn as text: escaped, capped
	}
	pal := newPalette(sets)
	data := dataJSON{Sets: sets, Colours: []setColours{}}
	for i, s := range sets {
		page.Sets = append(page.Sets, setView(i, s, pal))
		data.Colours = append(data.Colours, pal.forSet(s))
	}
	if data.Sets == nil {
		data.Sets = []*viz.Set{}
	}
	js, err := json.Marshal(data) // escapes <, > and &: safe inside <script>
	if err != nil {
		return fmt.Errorf("encoding the pictures' data: %w", err)
	}
	page.Data = template.JS(js)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("rendering the HTML report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

type dataJSON struct {
	Sets []*viz.Set `json:"sets"`
	// Colours are the classes of each set's causes, series and states
	// (colours.go), index for index with Sets.
	Colours []setColours `json:"colours"`
}

// maxSets bounds the picture sets of one report (a demo of many programs):
// the report stays a few MB.
const maxSets = 32

// Collect finds the pictures in a summary: the summary itself when it is a
// viz.Provider, else the Providers among its fields, slice elements and
// map values (check's summary holds the profile's and the trace's; a
// demo's, one per program), searched a few levels deep, at most maxSets.
func Collect(summary any) []*viz.Set {
	var out []*viz.Set
	report.Walk(summary, report.WalkLimits{Depth: 6, Maps: true}, func(v any) (bool, bool) {
		p, ok := v.(viz.Provider)
		if !ok {
			return false, false
		}
		if s := p.Visuals(); s != nil && !empty(s) {
			out = append(out, s)
		}
		return true, len(out) >= maxSets
	})
	return out
}

func empty(s *viz.Set) bool {
	return len(s.Causes) == 0 && s.Flame == nil && s.Latency == nil && s.Timeline == nil && len(s.Curves) == 0
}

type pageData struct {
	Title, Source, Version string
	CSS                    template.CSS
	Script                 template.JS
	CSP                    string
	Data                   template.JS
	Counts                 string
	Thin                   []string // thin-evidence notes, shown under the heading
	Hints                  []string // what would sharpen the report, under them
	Findings               []findingData
	Summary                string
	Sets                   []setData
}

type findingData struct {
	// What is the one-line headline, Because the reason beneath it.
	Rule, Name, Severity, What, Because, Fix, URL string
	Locations                                     []string
	Evidence                                      []evidenceData
	Sources                                       string
}

type evidenceData struct{ Label, Value string }

type setData struct {
	Index       int
	Title       string
	Causes      []causeRow
	Flame       *viz.Flame
	FlameHeight int
	FlameNote   string
	Latency     *viz.Histogram
	Timeline    *viz.Timeline
	TLHeight    int
	TLRow       int
	TLNote      string
	TLStates    []legendItem
	LatLegend   []legendItem
	Curves      []curveData
}

type causeRow struct {
	Cause string
	Class string
	Cores string
	Share string
	Width float64
}

type legendItem struct{ Name, Class string }

type curveData struct {
	Index int
	Title string
}

func counts(fs []finding.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	n := map[finding.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []finding.Severity{finding.Critical, finding.Warning, finding.Info} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	noun := "findings"
	if len(fs) == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("%d %s (%s)", len(fs), noun, strings.Join(parts, ", "))
}

// clean keeps a string from the input readable as text: control characters
// shown as escapes (textsafe), as in the text report. html/template then
// escapes the markup.
func clean(s string) string { return textsafe.String(s) }

func findingView(f finding.Finding) findingData {
	d := findingData{Rule: clean(f.Rule), Severity: f.Severity.String(), What: clean(headline(f)), Because: clean(because(f)), Fix: clean(f.Fix)}
	if r, ok := finding.Lookup(f.Rule); ok {
		d.Name, d.URL = r.Name, r.URL()
	}
	for _, l := range f.Locations {
		d.Locations = append(d.Locations, clean(l.String()))
	}
	for _, e := range f.Evidence {
		d.Evidence = append(d.Evidence, evidenceData{Label: clean(e.Label), Value: clean(report.FormatValue(e.Value, e.Unit))})
	}
	if len(f.Sources) > 1 {
		d.Sources = clean(strings.Join(f.Sources, ", "))
	}
	return d
}

// headline and because split a finding into the one line that heads its
// card and the reason beneath it: What, and Because with the notes. A
// finding that carries only the legacy Message (a lint analyzer that
// reports one sentence, JSON written before the parts existed) is cut at
// its first "; " or " because ", whichever comes first; a message with
// neither is all headline.
func headline(f finding.Finding) string {
	if f.What != "" {
		return f.What
	}
	what, _ := splitMessage(f.Message)
	return what
}

func because(f finding.Finding) string {
	var parts []string
	if f.What != "" {
		if f.Because != "" {
			parts = append(parts, "Because "+f.Because)
		}
	} else if _, why := splitMessage(f.Message); why != "" {
		parts = append(parts, why)
	}
	for _, n := range f.Notes {
		if n.Text != "" {
			parts = append(parts, n.Text)
		}
	}
	return strings.Join(parts, "; ")
}

func splitMessage(m string) (what, why string) {
	i, j := strings.Index(m, "; "), strings.Index(m, " because ")
	switch {
	case j >= 0 && (i < 0 || j < i):
		return m[:j], "Because " + m[j+len(" because "):]
	case i >= 0:
		return m[:i], m[i+len("; "):]
	}
	return m, ""
}

func summaryText(s any) (string, error) {
	var b strings.Builder
	switch t := s.(type) {
	case report.WidthTextSummary:
		if err := t.WriteTextWidth(&b, 100); err != nil {
			return "", err
		}
	case report.TextSummary:
		if err := t.WriteText(&b); err != nil {
			return "", err
		}
	default:
		return "", nil
	}
	return clean2(b.String()), nil
}

// clean2 escapes control characters other than newlines and tabs, which a
// text summary's layout needs.
func clean2(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(textsafe.String(strings.ReplaceAll(l, "\t", "    ")), `\t`, "    ")
	}
	return strings.Join(lines, "\n")
}

const flameRow = 18

func setView(i int, s *viz.Set, pal palette) setData {
	d := setData{Index: i, Title: clean(s.Title), Flame: s.Flame, Latency: s.Latency, Timeline: s.Timeline}
	if s.Flame != nil {
		d.FlameHeight = (depth(s.Flame.Root)+1)*flameRow + 2
		d.FlameNote = fmt.Sprintf("%d frames drawn; %d frames under %.2g%% of the CPU left out (their CPU stays in their callers)",
			s.Flame.Nodes, s.Flame.Pruned, 100*s.Flame.MinShare)
	}
	maxCores := 0.0
	for _, c := range s.Causes {
		maxCores = max(maxCores, c.Cores)
	}
	for _, c := range s.Causes {
		w := 0.0
		if maxCores > 0 {
			w = 100 * c.Cores / maxCores
		}
		d.Causes = append(d.Causes, causeRow{Cause: clean(c.Cause), Class: pal.of(c.Cause),
			Cores: fmt.Sprintf("%.3f", c.Cores), Share: fmt.Sprintf("%.1f%%", c.Share), Width: w})
	}
	if t := s.Timeline; t != nil {
		// Few Ps get taller rows; the script draws with the same height.
		d.TLRow = 14
		if len(t.Procs) <= 8 {
			d.TLRow = 24
		}
		d.TLHeight = len(t.Procs)*d.TLRow + 8 + 80 + 20
		for _, n := range t.States {
			d.TLStates = append(d.TLStates, legendItem{Name: clean(n), Class: pal.of(n)})
		}
		d.TLNote = fmt.Sprintf("%s, %d buckets of %s", plural(len(t.Procs), "P"), t.Buckets, durString(t.BucketNs))
		if t.OmittedProcs > 0 {
			d.TLNote += fmt.Sprintf("; %s more not drawn", plural(t.OmittedProcs, "P"))
		}
	}
	if h := s.Latency; h != nil {
		for _, sr := range h.Series {
			d.LatLegend = append(d.LatLegend, legendItem{Name: clean(sr.Name), Class: pal.of(sr.Name)})
		}
	}
	for ci, c := range s.Curves {
		if len(c.Points) > 0 {
			d.Curves = append(d.Curves, curveData{Index: ci, Title: clean(c.Title)})
		}
	}
	return d
}

func durString(ns int64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3gs", float64(ns)/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3gms", float64(ns)/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3gµs", float64(ns)/1e3)
	}
	return fmt.Sprintf("%dns", ns)
}

// depth is the flame graph's deepest level below n (iterative: a deep
// stack must not exhaust anything).
func depth(n *viz.FlameNode) int {
	type item struct {
		n *viz.FlameNode
		d int
	}
	best := 0
	stack := []item{{n, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		best = max(best, it.d)
		for _, c := range it.n.Children {
			stack = append(stack, item{c, it.d + 1})
		}
	}
	return best
}

//go:embed assets/report.html.tmpl
var pageText string

var pageTemplate = template.Must(template.New("report").Parse(pageText))

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// finite returns a copy of s without the numbers JSON cannot carry (NaN,
// ±Inf, from a failed measurement): a curve's point is left out, any other
// number becomes 0. The source's summary is not changed.
func finite(s *viz.Set) *viz.Set {
	ok := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	fix := func(v float64) float64 {
		if ok(v) {
			return v
		}
		return 0
	}
	c := *s
	c.Causes = nil
	for _, x := range s.Causes {
		x.Cores, x.Share = fix(x.Cores), fix(x.Share)
		c.Causes = append(c.Causes, x)
	}
	if s.Flame != nil {
		f := *s.Flame
		f.Cores, f.MinShare = fix(f.Cores), fix(f.MinShare)
		c.Flame = &f
	}
	if s.Timeline != nil {
		t := *s.Timeline
		t.Runnable = make([]float64, len(s.Timeline.Runnable))
		for i, v := range s.Timeline.Runnable {
			t.Runnable[i] = fix(v)
		}
		c.Timeline = &t
	}
	c.Curves = nil
	for _, cv := range s.Curves {
		pts := cv.Points
		cv.Points = nil
		for _, p := range pts {
			if ok(p.X) && ok(p.Y) {
				if !ok(p.Lo) || !ok(p.Hi) {
					p.Lo, p.Hi = p.Y, p.Y
				}
				cv.Points = append(cv.Points, p)
			}
		}
		cv.Mark = fix(cv.Mark)
		c.Curves = append(c.Curves, cv)
	}
	return &c
}
