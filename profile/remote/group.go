package remote

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/textlayout"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// ValueFindings are the findings of one label value's profile.
type ValueFindings struct {
	Value    string
	Findings []finding.Finding
}

// maxNamed is how many values a grouped finding names; the rest are
// counted.
const maxNamed = 8

// Group joins the findings of each label value's profile into one list:
// one finding per rule and place (the first location's file and line),
// as the value where it is worst reported it (the highest severity, then
// the most cores), with a note that names the values that hold it, "in 2
// of 5 pods: pod-a, pod-c", and the count as evidence. of is the number
// of values whose profile was diagnosed, the denominator. The result is
// sorted (finding.Sort).
func Group(label string, of int, values []ValueFindings) []finding.Finding {
	type group struct {
		best   finding.Finding
		from   string
		values []string
	}
	var order []string
	groups := map[string]*group{}
	for _, v := range values {
		seen := map[string]bool{}
		for _, f := range v.Findings {
			k := key(f)
			g := groups[k]
			if g == nil {
				g = &group{best: f, from: v.Value}
				groups[k] = g
				order = append(order, k)
			} else if worse(f, g.best) {
				g.best, g.from = f, v.Value
			}
			if !seen[k] {
				seen[k] = true
				g.values = append(g.values, v.Value)
			}
		}
	}
	out := make([]finding.Finding, 0, len(order))
	for _, k := range order {
		g := groups[k]
		f := g.best
		f.Evidence = append(f.Evidence[:len(f.Evidence):len(f.Evidence)], finding.Evidence{
			Label: "values of label " + label + " whose profile has this finding", Value: float64(len(g.values)), Unit: "of " + strconv.Itoa(of)})
		f.Note(finding.NoteLink, where(label, of, g.values, g.from))
		out = append(out, f)
	}
	finding.Sort(out)
	return out
}

// where is the note of a grouped finding.
func where(label string, of int, values []string, from string) string {
	named := values[:min(len(values), maxNamed)]
	quoted := make([]string, len(named))
	for i, v := range named {
		quoted[i] = shortValue(v)
	}
	list := strings.Join(quoted, ", ")
	if n := len(values) - len(named); n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	s := fmt.Sprintf("in %d of %d %s: %s", len(values), of, plural(label), list)
	if len(values) > 1 {
		s += fmt.Sprintf(" (the figures are %s's)", shortValue(from))
	}
	return s
}

// shortValue is a label value as a note shows it: cleaned, and cut at 60
// characters (a pod name is about 30).
func shortValue(v string) string { return clean(truncate(v, 60)) }

// plural names the values of a label: "pods", "versions", "values of
// service_name"... only a plain word takes an s.
func plural(label string) string {
	if strings.ContainsAny(label, "_.") || strings.HasSuffix(label, "s") {
		return "values of " + label
	}
	return label + "s"
}

// key is a finding's identity across values: its rule and the place its
// first location names.
func key(f finding.Finding) string {
	k := f.Rule
	if len(f.Locations) > 0 {
		l := f.Locations[0]
		k += "\x00" + l.File + "\x00" + strconv.Itoa(l.Line) + "\x00" + l.Function
	}
	return k
}

// worse is whether f is a worse instance than g: more severe, then more
// cores.
func worse(f, g finding.Finding) bool {
	if f.Severity != g.Severity {
		return f.Severity > g.Severity
	}
	return cores(f) > cores(g)
}

// cores is the figure in cores a finding's evidence gives, 0 when none.
func cores(f finding.Finding) float64 {
	for _, e := range f.Evidence {
		if e.Unit == "cores" {
			return e.Value
		}
	}
	return 0
}

// Origin says where a profile came from, for the summary.
type Origin struct {
	Server   string    `json:"server"`
	URL      string    `json:"url"` // password replaced
	Query    string    `json:"query"`
	Type     string    `json:"type"`
	From     time.Time `json:"from"`
	Until    time.Time `json:"until"`
	Method   string    `json:"method,omitempty"`
	Fallback string    `json:"fallback,omitempty"`
	Filled   []string  `json:"filled,omitempty"`
}

// OriginOf describes the query q sent to c, and p's answer (nil in a
// split's summary, where each value has its own).
func OriginOf(c *Client, q Query, p *Profile) *Origin {
	t, _ := typeID(c.server, q.Type)
	o := &Origin{Server: c.server.String(), URL: c.Name(), Query: q.Selector, Type: t, From: q.From.UTC(), Until: q.Until.UTC()}
	if p != nil {
		o.Method, o.Fallback, o.Filled = p.Method, p.Fallback, p.Filled
	}
	return o
}

// WriteTextWidth prints the origin in a few lines within width columns.
func (o *Origin) WriteTextWidth(w io.Writer, width int) error {
	var b strings.Builder
	head := fmt.Sprintf("from %s %s: %s %s, %s to %s", o.Server, o.URL, o.Type, o.Query,
		o.From.Format(time.RFC3339), o.Until.Format(time.RFC3339))
	if o.Method != "" {
		head += " (" + o.Method + ")"
	}
	b.WriteString(textlayout.Wrap("", "  ", textsafe.String(head), width))
	if o.Fallback != "" {
		b.WriteString(textlayout.Wrap("  ", "    ", textsafe.String("fallback: "+o.Fallback), width))
	}
	for _, f := range o.Filled {
		b.WriteString(textlayout.Wrap("  ", "    ", textsafe.String("filled in: "+f), width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SplitSummary is the summary of a diagnosis split by a label: where the
// profiles came from and one row per value.
type SplitSummary struct {
	Origin *Origin `json:"remote"`
	Label  string  `json:"label"`
	// Listed is how many values the server listed; Cut how many of them
	// were not asked for (over the maximum).
	Listed int          `json:"values_listed"`
	Cut    int          `json:"values_cut"`
	Values []ValueShare `json:"values"`
}

// ValueShare is one value's row: its profile's figures and findings, or
// why it has none.
type ValueShare struct {
	Value      string   `json:"value"`
	CPUSeconds float64  `json:"cpu_seconds"`
	Cores      float64  `json:"cores"`
	Samples    int64    `json:"samples"`
	Findings   int      `json:"findings"`
	Rules      []string `json:"rules,omitempty"` // the findings' rules, worst first
	Method     string   `json:"method,omitempty"`
	Filled     []string `json:"filled,omitempty"`
	NoData     bool     `json:"no_data,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// WriteText prints the summary in 80 columns.
func (s *SplitSummary) WriteText(w io.Writer) error { return s.WriteTextWidth(w, 80) }

// WriteTextWidth prints the origin, then one line per value.
func (s *SplitSummary) WriteTextWidth(w io.Writer, width int) error {
	if err := s.Origin.WriteTextWidth(w, width); err != nil {
		return err
	}
	var b strings.Builder
	line := fmt.Sprintf("split by %s: %d values", s.Label, s.Listed)
	if s.Cut > 0 {
		line += fmt.Sprintf(", the first %d asked (%d more not: raise the maximum, or narrow the selector)", len(s.Values), s.Cut)
	}
	b.WriteString("\n" + textlayout.Wrap("", "  ", line, width))
	b.WriteString(fmt.Sprintf("\n  %-32s %6s %8s  %s\n", strings.ToUpper(s.Label), "CORES", "SAMPLES", "FINDINGS"))
	for _, v := range s.Values {
		name := textsafe.String(truncate(v.Value, 32))
		var rest string
		switch {
		case v.Error != "":
			rest = "error: " + v.Error
		case v.NoData:
			rest = "no samples in the range"
		case v.Findings == 0:
			rest = "clean"
		default:
			rest = strings.Join(v.Rules, " ")
		}
		if v.Error != "" || v.NoData {
			b.WriteString(textlayout.Wrap(fmt.Sprintf("  %-32s %6s %8s  ", name, "-", "-"), strings.Repeat(" ", 52), textsafe.String(rest), width))
			continue
		}
		b.WriteString(textlayout.Wrap(fmt.Sprintf("  %-32s %6.2f %8d  ", name, v.Cores, v.Samples), strings.Repeat(" ", 52), textsafe.String(rest), width))
	}
	// What was filled in, once for all the values it was filled in for
	// (the same server fills in the same for each).
	var filled []string
	count := map[string]int{}
	for _, v := range s.Values {
		for _, f := range v.Filled {
			if count[f] == 0 {
				filled = append(filled, f)
			}
			count[f]++
		}
	}
	for _, f := range filled {
		b.WriteString(textlayout.Wrap("  ", "    ", textsafe.String(fmt.Sprintf("filled in (%d of %d values): %s", count[f], len(s.Values), f)), width))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
