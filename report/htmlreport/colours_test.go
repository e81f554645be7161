package htmlreport

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/vizbuild"
	"github.com/schedoctor/schedoctor/report"
	"github.com/schedoctor/schedoctor/viz"
)

// legendClasses renders r and returns, per legend name, the classes the
// page gives it (its legends and cause table), and the script's classes
// of each set's series, flame causes and states by name.
func legendClasses(t *testing.T, r report.Report) (legend, script map[string][]string) {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	legend = map[string][]string{}
	for _, m := range regexp.MustCompile(`<li><i class="([a-z0-9]+)"></i>([^<]*)</li>`).FindAllStringSubmatch(page, -1) {
		legend[m[2]] = append(legend[m[2]], m[1])
	}
	for _, m := range regexp.MustCompile(`<tr><td>([^<]*)</td><td class="num">[^<]*</td><td class="num">[^<]*</td><td class="bar"><span class="([a-z0-9]+)"`).FindAllStringSubmatch(page, -1) {
		legend[m[1]] = append(legend[m[1]], m[2])
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="sd-data">(.*?)</script>`).FindStringSubmatch(page)
	var data struct {
		Sets    []viz.Set    `json:"sets"`
		Colours []setColours `json:"colours"`
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Colours) != len(data.Sets) {
		t.Fatalf("%d colour sets for %d picture sets", len(data.Colours), len(data.Sets))
	}
	script = map[string][]string{}
	for i, s := range data.Sets {
		c := data.Colours[i]
		if s.Latency != nil {
			if len(c.Series) != len(s.Latency.Series) {
				t.Fatalf("set %d: %d series classes for %d series", i, len(c.Series), len(s.Latency.Series))
			}
			for j, sr := range s.Latency.Series {
				script[sr.Name] = append(script[sr.Name], c.Series[j])
			}
		}
		if s.Flame != nil {
			for j, n := range s.Flame.Causes {
				script[n] = append(script[n], c.Flame[j])
			}
		}
		if s.Timeline != nil {
			for j, n := range s.Timeline.States {
				script[n] = append(script[n], c.States[j])
			}
		}
	}
	return legend, script
}

func latency(names ...string) *viz.Histogram {
	h := &viz.Histogram{Bounds: []int64{1000, 2000}}
	for _, n := range names {
		h.Series = append(h.Series, viz.Series{Name: n, Counts: []int64{1, 2}})
	}
	return h
}

type checkLike struct{ Profile, Trace *viz.Set }

// TestColoursFollowNames: a wait reason has one colour in a trace report
// and in a check report, whichever other reasons each holds and whatever
// their order, in the legend and in the script's data; the causes of a
// flame graph of two causes have the colours of the full list's. Fails on
// the colours by position (the histogram's series index + 5, the flame's
// cause index): "channel or select" was c6 in one and c7 in the other.
func TestColoursFollowNames(t *testing.T) {
	tr := report.Report{Source: finding.SourceTrace, Summary: &fakeSummary{set: &viz.Set{Title: "trace",
		Latency: latency("created", "channel or select")}}}
	fb := vizbuild.NewFlame([]string{"user", "channel"})
	fb.Add([]string{"main.main"}, 10, "channel")
	tb := vizbuild.NewTimeline([]string{"running", "gc", "syscall", "scheduler", "idle"}, 4, 2, 100)
	tb.Span(0, 0, 0, 400)
	ck := report.Report{Source: finding.SourceCheck, Summary: checkLike{
		Profile: &viz.Set{Title: "profile", Causes: []viz.CauseCPU{{Cause: "channel", Cores: 1}, {Cause: "user", Cores: 1}}, Flame: fb.Build(0, 100, 1)},
		Trace:   &viz.Set{Title: "trace", Latency: latency("preempted", "sleep or timer", "channel or select"), Timeline: tb.Build()},
	}}
	l1, s1 := legendClasses(t, tr)
	l2, s2 := legendClasses(t, ck)
	one := func(where string, m map[string][]string, name string) string {
		t.Helper()
		cs := m[name]
		if len(cs) == 0 {
			t.Fatalf("%s: no class for %q", where, name)
		}
		for _, c := range cs {
			if c != cs[0] {
				t.Errorf("%s: %q has classes %v", where, name, cs)
			}
		}
		return cs[0]
	}
	for _, name := range []string{"channel or select"} {
		a, b, c, d := one("trace legend", l1, name), one("check legend", l2, name), one("trace data", s1, name), one("check data", s2, name)
		if a != b || b != c || c != d {
			t.Errorf("%q: %s in the trace report's legend, %s in the check report's, %s and %s in their data", name, a, b, c, d)
		}
	}
	// A reason has its cause's colour; the cause table, the flame legend
	// and the flame's data agree.
	if a, b, c := one("check legend", l2, "channel"), one("check data", s2, "channel"), one("check legend", l2, "channel or select"); a != b || a != c || a != "c9" {
		t.Errorf("channel: %s in the legend, %s in the flame's data; channel or select: %s; want c9 for all", a, b, c)
	}
	// Every reason of the histogram and every state of the timeline has
	// a colour of its own.
	seen := map[string]string{}
	for _, n := range []string{"preempted", "sleep or timer", "channel or select"} {
		c := one("check legend", l2, n)
		if o, ok := seen[c]; ok {
			t.Errorf("%q and %q share %s", n, o, c)
		}
		seen[c] = n
	}
	seen = map[string]string{}
	for _, n := range []string{"running", "gc", "syscall", "scheduler", "idle"} {
		c := one("check legend", l2, n)
		if o, ok := seen[c]; ok {
			t.Errorf("states %q and %q share %s", n, o, c)
		}
		seen[c] = n
	}
}

// TestPaletteUnknownNames: names the table does not know (a program's own
// Provider) get colours from their names: the same whatever their order,
// distinct from each other and from the known names of the report while
// slots remain, and always one of the palette's.
func TestPaletteUnknownNames(t *testing.T) {
	mk := func(names ...string) *viz.Set {
		s := &viz.Set{}
		for _, n := range names {
			s.Causes = append(s.Causes, viz.CauseCPU{Cause: n})
		}
		return s
	}
	a := newPalette([]*viz.Set{mk("user", "decode", "encode", "compress")})
	b := newPalette([]*viz.Set{mk("compress", "encode", "user", "decode")})
	for _, n := range []string{"user", "decode", "encode", "compress"} {
		if a.of(n) != b.of(n) {
			t.Errorf("%q: %s and %s: the colour depends on the order", n, a.of(n), b.of(n))
		}
	}
	if a.of("user") != "c0" {
		t.Errorf("user is %s, want c0", a.of("user"))
	}
	seen := map[string]bool{}
	for _, n := range []string{"user", "decode", "encode", "compress"} {
		if seen[a.of(n)] {
			t.Errorf("%q shares %s with another name", n, a.of(n))
		}
		seen[a.of(n)] = true
	}
	// More names than slots: every one still gets a slot of the palette.
	var many []string
	for i := range 3 * paletteSize {
		many = append(many, strings.Repeat("x", i+1))
	}
	p := newPalette([]*viz.Set{mk(many...)})
	classes := map[string]bool{}
	for _, n := range many {
		c := p.of(n)
		if k, err := strconv.Atoi(strings.TrimPrefix(c, "c")); err != nil || k < 0 || k >= paletteSize {
			t.Errorf("%q: class %q is not a palette slot", n, c)
		}
		classes[c] = true
	}
	if len(classes) != paletteSize {
		t.Errorf("%d names use %d of the %d slots", len(many), len(classes), paletteSize)
	}
	// The script's lookups are by index, never by name: a name that is a
	// JS object's own key is only a name.
	q := newPalette([]*viz.Set{{Latency: latency("__proto__", "constructor")}})
	if c := q.forSet(&viz.Set{Latency: latency("__proto__", "constructor")}); len(c.Series) != 2 || c.Series[0] == "" || c.Series[1] == "" {
		t.Errorf("series classes %v", c.Series)
	}
}

// TestPaletteCSS: every class the palette hands out is styled, with
// viz.Palette's colour.
func TestPaletteCSS(t *testing.T) {
	for i, c := range viz.Palette() {
		if !strings.Contains(css, "."+slotClass(i)+" { fill: var(--"+slotClass(i)+")") || !strings.Contains(css, "--"+slotClass(i)+": "+c+";") {
			t.Errorf("the page's style does not give %s the colour %s", slotClass(i), c)
		}
	}
	if !strings.Contains(css, ".idle, svg .idle {") {
		t.Error("report.css does not style the idle state")
	}
}
