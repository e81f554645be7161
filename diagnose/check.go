package diagnose

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/lint/inspect"
)

// CheckInput holds each source's findings of one check (schedoctor check):
// the same moment of one service seen by every source. A source's finding
// whose Sources already names several (a profile's spin the source code
// confirmed: ["profile","lint"]) keeps them.
type CheckInput struct {
	Lint       []finding.Finding
	Profile    []finding.Finding
	Trace      []finding.Finding
	Goroutines []finding.Finding
	Contention []finding.Finding // mutex and block profiles: reported as the goroutines source, as the goroutines command does
	Procs      []finding.Finding
	// Live is what the service's live monitor gave (its findings and a
	// snapshot's), joined last (see LiveInput); nil when none was read.
	Live *LiveInput
	// Source reads the line of each loop finding that no source-code
	// evidence backs yet (a trace's SD307 at a sleep): when the loop there
	// spins or polls, lint's verdict joins the finding. Nil reads none.
	Source SourceReader
}

// CheckSummary says how the join went: how many findings each source gave
// and how many causes they made.
type CheckSummary struct {
	In     map[string]int `json:"findings_in"`
	Causes int            `json:"causes"`
	Merged int            `json:"merged"` // findings folded into another source's finding of the same cause
	Linked int            `json:"linked"` // latency findings that name a spin as their cause
	// Live is how the live monitor's findings joined, nil without
	// CheckInput.Live. Its caller reports it beside the monitor's own
	// state (check's summary, "live"), not in the join's JSON.
	Live *LiveSummary `json:"-"`
}

// sourceOrder is the order sources are listed in a joined finding: the
// source code first (it says what the line is), then the runtime sources.
var sourceOrder = []string{"lint", "profile", "trace", "goroutines", "procs"}

// family is the rule's family in the catalog (finding.Rule.Family), ""
// for a rule the catalog does not have.
func family(rule string) finding.Family {
	r, _ := finding.Lookup(rule)
	return r.Family
}

// groupsAtLine reports whether findings of the family at one location are
// one cause: a loop, a lock, a leak, GC, syscalls. Two findings are one
// cause when they share such a family and a location. The other families
// are reported apart: an effect is linked to its cause (effect), and the
// rest (timers, the CPU quota, the host, ...) are each one source's,
// where a merge by line could only be a wrong one.
func groupsAtLine(f finding.Family) bool {
	switch f {
	case finding.FamilyLoop, finding.FamilyLock, finding.FamilyLeak, finding.FamilyGC, finding.FamilySyscall:
		return true
	}
	return false
}

// effect reports whether the family is an effect that a spin keeping Ps
// busy explains: scheduling latency and backlogs (FamilyLatency), and a
// preemption storm (FamilyPreemption: a loop that never yields is
// preempted every 10ms at any GOMAXPROCS, which is not oversubscription).
func effect(f finding.Family) bool {
	return f == finding.FamilyLatency || f == finding.FamilyPreemption
}

type cause struct {
	f       finding.Finding
	sources []string
	parts   []part
}

type part struct {
	source string
	f      finding.Finding
}

// Check joins the sources' findings into one finding per cause: findings
// of one family at one location (file:line, matched by path suffix since
// lint records relative paths and runtime sources absolute ones) become
// one, with the most severe severity, the clearest message (the most
// severe, then the one backed by most sources) saying how many sources
// agree, every source's evidence with its source's name on the label, and
// Sources listing them all. The family of a rule is the catalog's
// (finding.Rule.Family; groupsAtLine). Latency findings (SD301, SD302) are
// linked to a spin that the join found: their message names the spin's
// location. Last, the live monitor's findings (in.Live) join the causes
// they share (joinLive), as the target's claims.
func Check(in CheckInput) ([]finding.Finding, *CheckSummary) {
	sum := &CheckSummary{In: map[string]int{}}
	lists := []struct {
		name string
		fs   []finding.Finding
	}{
		{"lint", in.Lint}, {"profile", in.Profile}, {"trace", in.Trace},
		{"goroutines", in.Goroutines}, {"goroutines", in.Contention}, {"procs", in.Procs},
	}
	var causes []*cause
	for _, l := range lists {
		sum.In[l.name] += len(l.fs)
		for _, f := range l.fs {
			if in.Source != nil {
				f = confirm(f, l.name, in.Source)
			}
			c := find(causes, f)
			if c == nil {
				causes = append(causes, &cause{parts: []part{{l.name, f}}})
				continue
			}
			c.parts = append(c.parts, part{l.name, f})
			sum.Merged++
		}
	}
	out := make([]finding.Finding, 0, len(causes))
	own := make([]string, 0, len(causes)) // each cause's first source, for a finding that names none
	for _, c := range causes {
		out = append(out, c.join())
		own = append(own, c.parts[0].source)
	}
	sum.Causes = len(out)
	sum.Linked = link(out)
	if in.Live != nil {
		out, sum.Live = joinLive(out, own, in.Live)
	}
	return out, sum
}

// find returns the cause f belongs to, nil for a new one.
func find(causes []*cause, f finding.Finding) *cause {
	fam := family(f.Rule)
	if !groupsAtLine(fam) || len(f.Locations) == 0 {
		return nil
	}
	for _, c := range causes {
		g := c.parts[0].f
		if family(g.Rule) != fam || len(g.Locations) == 0 {
			continue
		}
		for _, p := range c.parts {
			if SameLine(f.Locations[0], p.f.Locations) || SameLine(p.f.Locations[0], f.Locations) {
				return c
			}
		}
	}
	return nil
}

// SameLine reports whether l is on the line of one of in, matching paths
// as SamePath does.
func SameLine(l finding.Location, in []finding.Location) bool {
	for _, m := range in {
		if l.Line > 0 && l.Line == m.Line && SamePath(l.File, m.File) {
			return true
		}
	}
	return false
}

// SamePath matches a relative path with an absolute one by suffix at a
// path separator: lint's "cmd/svc/main.go" is the trace's
// "/home/u/svc/cmd/svc/main.go".
func SamePath(a, b string) bool {
	a, b = filepath.ToSlash(filepath.Clean(a)), filepath.ToSlash(filepath.Clean(b))
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a != "" && strings.HasSuffix(b, "/"+strings.TrimPrefix(a, "./"))
}

func sourcesOf(p part) []string {
	if len(p.f.Sources) > 0 {
		return p.f.Sources
	}
	return []string{p.source}
}

// join makes the cause's one finding.
func (c *cause) join() finding.Finding {
	best := 0
	for i, p := range c.parts {
		b := c.parts[best]
		if p.f.Severity > b.f.Severity ||
			(p.f.Severity == b.f.Severity && len(sourcesOf(p)) > len(sourcesOf(b))) {
			best = i
		}
	}
	f := c.parts[best].f
	var srcs []string
	for _, p := range c.parts {
		for _, s := range sourcesOf(p) {
			if !slices.Contains(srcs, s) {
				srcs = append(srcs, s)
			}
		}
	}
	slices.SortStableFunc(srcs, func(a, b string) int { return rank(a) - rank(b) })
	if len(c.parts) == 1 {
		return f // one source's finding as that source made it
	}
	j := finding.Finding{Rule: f.Rule, Severity: f.Severity, What: f.What, Because: f.Because, Message: f.Message,
		Notes: slices.Clone(f.Notes), Fix: f.Fix, Sources: srcs}
	var rules []string
	for _, p := range c.parts {
		if !slices.Contains(rules, p.f.Rule) {
			rules = append(rules, p.f.Rule)
		}
	}
	j.Note(finding.NoteCorroboration, fmt.Sprintf("%d sources agree: %s (rules %s)", len(srcs), strings.Join(srcs, ", "), strings.Join(rules, ", ")))
	j.Locations = slices.Clone(f.Locations)
	for i, p := range c.parts {
		if i == best {
			continue
		}
		for _, l := range p.f.Locations {
			if !SameLine(l, j.Locations) && len(j.Locations) < 8 {
				j.Locations = append(j.Locations, l)
			}
		}
	}
	order := append([]int{best}, without(len(c.parts), best)...)
	for _, i := range order {
		p := c.parts[i]
		for _, e := range p.f.Evidence {
			e.Label = p.source + " " + p.f.Rule + ": " + e.Label
			j.Evidence = append(j.Evidence, e)
		}
	}
	return j
}

func without(n, skip int) []int {
	var out []int
	for i := range n {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

func rank(s string) int {
	if i := slices.Index(sourceOrder, s); i >= 0 {
		return i
	}
	return len(sourceOrder)
}

// link names, in each latency finding, the causes at warning or above
// that the join found and that the finding does not name yet: spins and
// polls (they keep Ps busy) and lock convoys (their goroutines queue for a
// P between hand-offs of the lock), with the spin's measured cores when a
// source gave them. The cause is what to fix first, not a rival to the
// latency, so a linked latency finding's fix is the cause's: adding CPU
// would feed a spin or lengthen a convoy, never shorten the queue.
func link(fs []finding.Finding) int {
	var causes []int
	for i, f := range fs {
		fam := family(f.Rule)
		if (fam == finding.FamilyLoop || fam == finding.FamilyLock) && f.Severity >= finding.Warning && len(f.Locations) > 0 {
			causes = append(causes, i)
		}
	}
	n := 0
	for i := range fs {
		f := &fs[i]
		fam := family(f.Rule)
		if !effect(fam) {
			continue
		}
		var first *finding.Finding // the most severe cause linked, whose fix leads
		for _, ci := range causes {
			s := fs[ci]
			if fam == finding.FamilyPreemption && family(s.Rule) != finding.FamilyLoop {
				continue // a lock queue preempts nothing
			}
			loc := s.Locations[0]
			at := fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)
			if first == nil || s.Severity > first.Severity {
				first = &fs[ci]
			}
			if strings.Contains(f.Text(), at) {
				continue // the source (the trace) linked it already
			}
			what := fmt.Sprintf("the %s loop at %s", s.Rule, at)
			if family(s.Rule) == finding.FamilyLock {
				what = fmt.Sprintf("the %s lock queue at %s", s.Rule, at)
			}
			if cores, ok := coresOf(s); ok {
				what += fmt.Sprintf(" (%.2f cores)", cores)
			}
			f.Note(finding.NoteCause, "caused at least in part by "+what+": fix it first")
			f.Evidence = append(f.Evidence, finding.Evidence{Label: "linked cause: " + s.Rule + " at " + at, Value: float64(loc.Line), Unit: "line"})
			f.Locations = append(f.Locations, loc)
			f.Sources = mergeSources(f.Sources, "trace", s.Sources)
		}
		if first == nil {
			continue
		}
		n++
		if fam == finding.FamilyPreemption || advisesCPU(f.Fix) { // a preemption storm's fix (SD208) is all GOMAXPROCS
			loc := first.Locations[0]
			f.Fix = fmt.Sprintf("Fix the %s cause at %s:%d first, not the CPU: %s", first.Rule, filepath.Base(loc.File), loc.Line, first.Fix)
		}
	}
	return n
}

// advisesCPU reports whether a fix tells the user to add CPU, which a
// linked spin or lock convoy makes wrong.
func advisesCPU(fix string) bool {
	l := strings.ToLower(fix)
	return strings.Contains(l, "add cpu") || strings.Contains(l, "more cpus") || strings.Contains(l, "more cpu,") ||
		strings.Contains(l, "give the process more cpu")
}

func coresOf(f finding.Finding) (float64, bool) {
	for _, e := range f.Evidence {
		if e.Unit == "cores" && e.Value > 0 {
			return e.Value, true
		}
	}
	return 0, false
}

func mergeSources(have []string, own string, add []string) []string {
	if len(have) == 0 {
		have = []string{own}
	}
	out := slices.Clone(have)
	for _, s := range add {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	if len(out) == 1 {
		return nil
	}
	return out
}

// confirm reads the source at a loop finding's line when no source-code
// evidence backs it yet, and adds lint as a source when the loop there
// spins or polls (the SD101/SD102/SD106 verdicts). A loop that blocks or
// computes, or a file not found, leaves the finding as its source made it:
// a miss rather than a confirmation the code does not show.
func confirm(f finding.Finding, source string, src SourceReader) finding.Finding {
	if family(f.Rule) != finding.FamilyLoop || len(f.Locations) == 0 || slices.Contains(f.Sources, "lint") {
		return f
	}
	at := f.Locations[0]
	if at.File == "" || at.Line <= 0 {
		return f
	}
	loop, err := src.At(at.File, at.Line)
	if err != nil || loop == nil {
		return f
	}
	switch loop.Kind {
	case inspect.SelectDefault, inspect.YieldSpin, inspect.AtomicSpin, inspect.SleepPoll:
	default:
		return f
	}
	if at.Line != loop.SpinLine && (at.Line < loop.Start || at.Line > loop.End) {
		return f
	}
	g := f
	g.Evidence = append(slices.Clone(f.Evidence), finding.Evidence{
		Label: "source: " + string(loop.Kind) + " loop (" + loop.Detail + ")", Value: float64(loop.SpinLine), Unit: "line"})
	g.Sources = mergeSources(f.Sources, source, []string{"lint"})
	g.Note(finding.NoteCorroboration, "the source confirms: "+loop.Detail)
	return g
}
