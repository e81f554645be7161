package fleet

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/finding"
)

// Group is one cause several targets may share: findings of one rule
// family (finding.Family: diagnose's test of one cause) at the same place
// (the first location's file and line; the family alone for a finding
// with no location). On one target the join may head the cause with the
// profile's rule and on a busier one with the trace's (SD204 and SD308 at
// one busy select): they are still one cause. Causes are ranked by what
// they cost: severity, then the CPU they burn over all their targets,
// then how many targets have them.
type Group struct {
	// Rule heads the costliest target's finding; Rules are every rule
	// that heads the cause on some target.
	Rule     string           `json:"rule"`
	Rules    []string         `json:"rules"`
	Severity finding.Severity `json:"severity"`
	Location finding.Location `json:"location"`
	// Targets are the instances that have it, most costly first.
	Targets []string `json:"targets"`
	// Cores are each target's CPU on the cause (the finding's first
	// figure in cores), in the order of Targets; empty when the rule
	// measures no CPU.
	Cores []float64 `json:"cores,omitempty"`
	// Of is how many targets were checked.
	Of int `json:"of"`

	key string // the family
}

// familyOf is a rule's family in the catalog; a rule it does not know
// (a newer target's live monitor) is a family of its own.
func familyOf(rule string) string {
	if r, ok := finding.Lookup(rule); ok && r.Family != "" {
		return string(r.Family)
	}
	return "rule " + rule
}

func (g *Group) total() float64 {
	t := 0.0
	for _, c := range g.Cores {
		t += c
	}
	return t
}

type member struct {
	target   int // index in the targets
	instance string
	f        finding.Finding
	cores    float64
}

// Across joins the checked targets' findings: one finding per cause
// (Group), saying how many of the checked targets have it, where, at what
// cost each, and whether the others are clean (Checked.Clean). The costliest target's
// finding gives the cause, the locations and the fix; every target's
// figure is evidence. The groups come ranked by cost, most costly first.
func Across(targets []*Checked, job string) ([]finding.Finding, []Group) {
	type key struct {
		family, file string
		line         int
	}
	checked := 0
	members := map[key][]member{}
	var order []key
	for i, t := range targets {
		if t.Status != StatusChecked {
			continue
		}
		checked++
		seen := map[key]bool{}
		for _, f := range t.Findings {
			k := key{family: familyOf(f.Rule)}
			if len(f.Locations) > 0 {
				k.file, k.line = f.Locations[0].File, f.Locations[0].Line
			}
			if seen[k] {
				continue // one target counts once per cause
			}
			seen[k] = true
			if _, ok := members[k]; !ok {
				order = append(order, k)
			}
			members[k] = append(members[k], member{target: i, instance: t.Instance, f: f, cores: cores(f)})
		}
	}
	var groups []Group
	var out []finding.Finding
	for _, k := range order {
		ms := members[k]
		slices.SortStableFunc(ms, func(a, b member) int {
			return cmp.Or(cmp.Compare(b.f.Severity, a.f.Severity), cmp.Compare(b.cores, a.cores), strings.Compare(a.instance, b.instance))
		})
		g := Group{Rule: ms[0].f.Rule, Severity: ms[0].f.Severity, Of: checked, key: k.family}
		if len(ms[0].f.Locations) > 0 {
			g.Location = ms[0].f.Locations[0]
		}
		hasCores := false
		for _, m := range ms {
			g.Targets = append(g.Targets, m.instance)
			hasCores = hasCores || m.cores > 0
			if !slices.Contains(g.Rules, m.f.Rule) {
				g.Rules = append(g.Rules, m.f.Rule)
			}
		}
		if hasCores {
			for _, m := range ms {
				g.Cores = append(g.Cores, m.cores)
			}
		}
		groups = append(groups, g)
	}
	slices.SortStableFunc(groups, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(b.total(), a.total()),
			cmp.Compare(len(b.Targets), len(a.Targets)), strings.Compare(a.Rule, b.Rule))
	})
	for _, g := range groups {
		k := key{family: g.key, file: g.Location.File, line: g.Location.Line}
		ms := members[k]
		othersClean := 0
		for i, t := range targets {
			if t.Status == StatusChecked && t.Clean && !slices.ContainsFunc(ms, func(m member) bool { return m.target == i }) {
				othersClean++
			}
		}
		out = append(out, acrossFinding(g, ms, job, checked, othersClean))
	}
	return out, groups
}

// cores is a finding's CPU on its cause: its first figure in cores. The
// profile puts the cause's own CPU first ("cores (CPU time / profile
// duration)") and the process's after it (SD208's "process CPU rate",
// 0.25 cores beside a preemption cost of 0.02), and the join keeps the
// head finding's evidence first, then the others' (a trace's SD308 head,
// whose figures are Ps, then the profile's SD204 cores).
func cores(f finding.Finding) float64 {
	for _, e := range f.Evidence {
		if e.Unit == "cores" {
			if e.Value > 0 && !math.IsInf(e.Value, 0) && !math.IsNaN(e.Value) {
				return e.Value
			}
			return 0
		}
	}
	return 0
}

// acrossFinding is a group as a finding: the headline counts the targets
// and says where and at what cost; the cause, the locations, the fix and
// the sources are the costliest target's; the notes say what that target
// measured and which targets have it.
func acrossFinding(g Group, ms []member, job string, checked, othersClean int) finding.Finding {
	top := ms[0].f
	n := len(ms)
	who := fmt.Sprintf("%d of %d targets of job %s", n, checked, job)
	if n == checked && n > 1 {
		who = fmt.Sprintf("all %d targets of job %s", n, job)
	} else if n == 1 && checked == 1 {
		who = fmt.Sprintf("the one target of job %s", job)
	}
	where, fn := "", ""
	if l := g.Location; l.File != "" {
		where = " at " + path.Base(l.File)
		if l.Line > 0 {
			where += fmt.Sprintf(":%d", l.Line)
		}
		if l.Function != "" {
			fn = " (" + shortFunc(l.Function) + ")"
		}
	}
	tail := ""
	if len(g.Cores) > 0 {
		tail = ", " + coreRange(g.Cores)
	}
	switch others := checked - n; {
	case others == 0:
	case others == othersClean:
		tail += fmt.Sprintf("; the other %d %s clean", others, plural(others, "is", "are"))
	default:
		tail += fmt.Sprintf("; not on the other %d", others)
	}
	// The headline stays within finding.MaxHeadline: a long function name
	// (a generic method's) goes first, the locations still give it; then
	// the job's name is cut.
	what := who + where + fn + tail
	if utf8.RuneCountInString(what) > finding.MaxHeadline {
		what = who + where + tail
	}
	if over := utf8.RuneCountInString(what) - finding.MaxHeadline; over > 0 {
		r := []rune(who)
		if keep := max(16, len(r)-over-1); keep < len(r) {
			what = string(r[:keep]) + "…" + where + tail
		}
	}
	f := finding.Finding{
		Rule: g.Rule, Severity: g.Severity, What: what, Because: top.Because,
		Locations: top.Locations, Fix: top.Fix, Sources: top.Sources,
	}
	f.Notes = append(f.Notes, finding.Note{Kind: finding.NoteLink, Text: "on " + ms[0].instance + ": " + top.Headline()})
	f.Notes = append(f.Notes, finding.Note{Kind: finding.NoteLink, Text: "targets: " + strings.Join(instances(ms), ", ")})
	if len(g.Rules) > 1 {
		f.Notes = append(f.Notes, finding.Note{Kind: finding.NoteQualifier,
			Text: "headed by " + strings.Join(g.Rules, " or ") + " as each target's sources weighed it: one cause"})
	}
	// What the costliest target's join added (sources that agree, a
	// thin profile) holds for the cause.
	f.Notes = append(f.Notes, top.Notes...)
	for _, m := range ms {
		if m.cores > 0 {
			f.Evidence = append(f.Evidence, finding.Evidence{Label: "CPU on " + m.instance, Value: round2(m.cores), Unit: "cores"})
		}
	}
	f.Evidence = append(f.Evidence,
		finding.Evidence{Label: "targets with this cause", Value: float64(n), Unit: "targets"},
		finding.Evidence{Label: "targets checked", Value: float64(checked), Unit: "targets"})
	return f
}

func instances(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.instance
	}
	return out
}

// coreRange words the targets' CPU: "1.01 cores", "1.01 cores each" when
// all agree to the hundredth, "0.90–1.10 cores each" otherwise.
func coreRange(cs []float64) string {
	lo, hi := slices.Min(cs), slices.Max(cs)
	each := ""
	if len(cs) > 1 {
		each = " each"
	}
	if math.Abs(hi-lo) < 0.005 {
		return fmt.Sprintf("%.2f cores%s", hi, each)
	}
	return fmt.Sprintf("%.2f–%.2f cores%s", lo, hi, each)
}

// shortFunc drops a function's import path: "github.com/x/y/outbox.(*outbox).relay"
// becomes "outbox.(*outbox).relay".
func shortFunc(fn string) string {
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
