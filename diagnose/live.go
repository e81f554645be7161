package diagnose

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/finding"
)

// LiveInput is what the checked service's live monitor (package live)
// gave, as its reader (check) fetched and bounded it: the monitor's
// findings, which are the target's claims, and the findings of a snapshot
// the reader diagnosed. Check joins it after the other sources.
type LiveInput struct {
	// Findings are the monitor's findings as it served them. The join
	// reads the first MaxLiveFindings, of catalog rules only (see
	// LiveClaim).
	Findings []finding.Finding
	// Listed is how many findings the monitor listed, when its reader
	// decoded only the first (check decodes MaxLiveFindings); below
	// len(Findings) it counts as len(Findings).
	Listed int
	// Time is when the monitor served its state, Span the window it
	// judges scheduling latency over (live.State's Time and Latency.Span).
	Time time.Time
	Span time.Duration
	// Snapshot is a flight-recorder snapshot the monitor took and did not
	// diagnose, diagnosed by the reader; nil for none.
	Snapshot *LiveSnapshot
}

// LiveSnapshot is a snapshot of the monitor's and its trace diagnosis (as
// `schedoctor trace` gives it: Trace's findings).
type LiveSnapshot struct {
	Name string // its file name in the monitor's directory
	// Time is when the monitor took it (live.Snapshot.Time); zero when the
	// monitor does not list it.
	Time     time.Time
	Findings []finding.Finding
}

// LiveSummary is what the live monitor added to the join: how many
// findings it gave (its claims and the snapshot's), how many joined
// another source's finding of the same cause, how many were not read, and
// the snapshot diagnosed.
type LiveSummary struct {
	Findings int `json:"findings"`
	Joined   int `json:"joined"`
	// Dropped counts the monitor's findings not read: past
	// MaxLiveFindings, or of a rule the catalog does not have.
	Dropped int `json:"dropped,omitempty"`
	// Snapshot is the snapshot diagnosed (LiveInput.Snapshot), with its
	// findings' count.
	Snapshot         string `json:"snapshot,omitempty"`
	SnapshotFindings int    `json:"snapshot_findings,omitempty"`
}

// Bounds of what the live monitor's findings may add: the monitor gives a
// handful (SD701-SD704, and those of a snapshot it diagnosed); a target
// that listed 40,000 made the join take 20 s. Its reader (check) decodes
// no more than MaxLiveFindings either.
const (
	MaxLiveFindings = 100
	maxClaimRunes   = 300 // of a claim's because
	// of a claim's headline: with LiveClaim before it, within
	// finding.MaxHeadline
	maxClaimHeadRunes = finding.MaxHeadline - len(LiveClaim) - 1
	maxClaimLabel     = 120 // of an evidence label
	maxClaimItems     = 16  // evidence per claim
	maxClaimLocs      = 8   // locations per claim
)

// LiveClaim starts the message of a finding the target's live monitor
// made: its words, not schedoctor's.
const LiveClaim = "the target's live monitor reports: "

// claimLabel is the evidence that marks a finding as the monitor's claim.
const claimLabel = "claimed by the target's live monitor"

// snapshotDelay is live's default Options.SnapshotDelay: a snapshot is
// written that long after its trigger, so it still shows a spike the
// monitor's latency span held.
const snapshotDelay = 5 * time.Second

// joinLive adds the live monitor's findings to the joined ones, fs (own[i]
// names the one source of fs[i] when fs[i].Sources is empty): each becomes
// part of a finding of the same cause when one exists (see sameCause),
// else a finding of its own; all carry the source "live". They are the
// target's claims (claim): at most MaxLiveFindings are read, each marked
// as the monitor's, with the catalog's fix for its rule, not the
// target's.
func joinLive(fs []finding.Finding, own []string, l *LiveInput) ([]finding.Finding, *LiveSummary) {
	sum := &LiveSummary{}
	got := l.Findings[:min(len(l.Findings), MaxLiveFindings)]
	sum.Dropped = max(l.Listed, len(l.Findings)) - len(got) // past MaxLiveFindings
	var in []finding.Finding
	for _, f := range got {
		cf, ok := claim(f)
		if !ok {
			sum.Dropped++
			continue
		}
		in = append(in, cf)
	}
	if s := l.Snapshot; s != nil {
		sfs := slices.Clone(s.Findings)
		sum.Snapshot, sum.SnapshotFindings = s.Name, len(sfs)
		for i := range sfs {
			sfs[i].Note(finding.NoteLink, "snapshot "+s.Name)
			sfs[i].Sources = []string{"live"}
		}
		in = nameSnapshot(in, sfs, l)
		in = append(in, sfs...)
	}
	sum.Findings = len(in)
	idx := newCauseIndex(fs)
	for _, f := range in {
		if i := idx.find(fs, f); i >= 0 {
			o := ""
			if i < len(own) {
				o = own[i]
			}
			fs[i] = fold(fs[i], o, f)
			sum.Joined++
			continue
		}
		if claimed(f) {
			f.What = LiveClaim + f.What
		}
		fs = append(fs, f)
		idx.add(len(fs)-1, f)
	}
	finding.Sort(fs)
	return fs, sum
}

// claim makes a finding of the monitor's JSON a claim of the target's:
// the rule must be the catalog's (a target cannot invent one), the text is
// bounded, the fix is the catalog's for that rule (the target's own fix
// text, "curl ... | sudo sh", is never shown as schedoctor's advice), and
// the source is "live". The message is prefixed with LiveClaim where it
// is shown (joinLive, fold). ok is false for a rule not in the catalog.
func claim(f finding.Finding) (finding.Finding, bool) {
	r, ok := finding.Lookup(f.Rule)
	if !ok {
		return f, false
	}
	g := finding.Finding{Rule: r.ID, Severity: f.Severity, What: cutRunes(f.Headline(), maxClaimHeadRunes),
		Because: cutRunes(f.Because, maxClaimRunes), Fix: r.Fix, Sources: []string{"live"}}
	// The target's notes, bounded; a hint of the target's asks for no
	// input of ours.
	for _, n := range f.Notes[:min(len(f.Notes), maxClaimItems)] {
		if n.Kind == finding.NoteHint {
			n.Kind, n.Hint = finding.NoteLink, finding.HintNone
		}
		g.Note(n.Kind, cutRunes(n.Text, maxClaimLabel))
	}
	if g.Severity < finding.Info || g.Severity > finding.Critical {
		g.Severity = r.Severity
	}
	g.Locations = slices.Clone(f.Locations[:min(len(f.Locations), maxClaimLocs)])
	for _, e := range f.Evidence[:min(len(f.Evidence), maxClaimItems)] {
		e.Label, e.Unit = cutRunes(e.Label, maxClaimLabel), cutRunes(e.Unit, 20)
		g.Evidence = append(g.Evidence, e)
	}
	g.Evidence = append(g.Evidence, finding.Evidence{Label: claimLabel, Value: 1, Unit: "claim"})
	return g, true
}

// claimed reports whether f is a claim of the monitor's (claim), not a
// finding of the snapshot its reader diagnosed.
func claimed(f finding.Finding) bool {
	return slices.ContainsFunc(f.Evidence, func(e finding.Evidence) bool { return e.Label == claimLabel })
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// nameSnapshot does for the snapshot its reader diagnosed what the monitor
// does for one it diagnosed itself (live's joinTrace): an SD702 with no
// location, judged over a span that holds the snapshot's moment, takes the
// user lines of the trace's backlog findings and names the snapshot. A
// snapshot of an earlier spike is not evidence for this one.
func nameSnapshot(in, sfs []finding.Finding, l *LiveInput) []finding.Finding {
	name, snapAt := l.Snapshot.Name, l.Snapshot.Time
	if snapAt.IsZero() || l.Time.Sub(snapAt) > l.Span+snapshotDelay {
		return in
	}
	for i := range in {
		f := &in[i]
		if f.Rule != "SD702" || len(f.Locations) > 0 {
			continue
		}
		f.Note(finding.NoteLink, fmt.Sprintf("trace of it: snapshot %s (%d findings)", name, len(sfs)))
		for _, r := range []string{"SD302", "SD301", "SD308"} {
			k := slices.IndexFunc(sfs, func(t finding.Finding) bool { return t.Rule == r && len(t.Locations) > 0 })
			if k < 0 {
				continue
			}
			t := sfs[k]
			f.Locations = slices.Clone(t.Locations)
			f.Sources = []string{"live", "trace"}
			f.Evidence = slices.Clone(f.Evidence)
			for _, e := range t.Evidence[:min(len(t.Evidence), 3)] {
				e.Label = "trace (" + r + "): " + e.Label
				f.Evidence = append(f.Evidence, e)
			}
			break
		}
	}
	return in
}

// liveGroup is the group a live finding joins by: the families that name
// a cause at a line (loop, lock, leak, gc, syscall: the metrics' goroutine
// growth SD701 is the dumps' leak, the monitor's GC cost SD704 the
// profile's and the trace's), and the latency family (the monitor's SD702
// with the trace's SD301 and SD302), which Check links to a spin rather
// than groups. "" joins nothing.
func liveGroup(rule string) finding.Family {
	if fam := family(rule); groupsAtLine(fam) || fam == finding.FamilyLatency {
		return fam
	}
	return ""
}

// sameCause returns the index of the finding in fs that f is part of, -1
// for none. With locations on both sides, the group and a line must match.
// A metric has no stack: a live finding without a location joins only a
// process-wide cause (a leak, GC) and only when exactly one finding of it
// exists; a latency without a line stays apart, since the monitor's span
// and check's trace are different moments. A miss is better than a wrong
// merge.
func sameCause(fs []finding.Finding, f finding.Finding) int {
	return newCauseIndex(fs).find(fs, f)
}

// causeIndex lists the findings of each group, so that joining n live
// findings to m others looks only at the candidates of each group, not at
// all m.
type causeIndex map[finding.Family][]int

func newCauseIndex(fs []finding.Finding) causeIndex {
	x := causeIndex{}
	for i, f := range fs {
		x.add(i, f)
	}
	return x
}

func (x causeIndex) add(i int, f finding.Finding) {
	if g := liveGroup(f.Rule); g != "" {
		x[g] = append(x[g], i)
	}
}

// find is sameCause over the index.
func (x causeIndex) find(fs []finding.Finding, f finding.Finding) int {
	g := liveGroup(f.Rule)
	if g == "" {
		return -1
	}
	cands := x[g]
	if len(f.Locations) == 0 {
		if (g != finding.FamilyLeak && g != finding.FamilyGC) || len(cands) != 1 {
			return -1 // none, or two candidates: cannot tell which
		}
		return cands[0]
	}
	for _, i := range cands {
		for _, l := range f.Locations {
			if SameLine(l, fs[i].Locations) {
				return i
			}
		}
	}
	return -1
}

// fold makes the live finding l part of f, whose one source is own when f
// names none: f keeps its rule, message (with the monitor's appended) and
// locations first; the severity is the higher; l's evidence follows f's,
// labelled with its source and rule; the sources are both findings'.
func fold(f finding.Finding, own string, l finding.Finding) finding.Finding {
	srcs := slices.Clone(f.Sources)
	if len(srcs) == 0 && own != "" {
		srcs = []string{own}
	}
	for _, s := range l.Sources {
		if !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	g := f
	g.Sources = srcs
	g.Severity = max(f.Severity, l.Severity)
	g.Note(finding.NoteCorroboration, "the target's live monitor reports "+l.Rule+": "+l.Text())
	g.Locations = slices.Clone(f.Locations)
	for _, loc := range l.Locations {
		if !SameLine(loc, g.Locations) && len(g.Locations) < 8 {
			g.Locations = append(g.Locations, loc)
		}
	}
	g.Evidence = slices.Clone(f.Evidence)
	for _, e := range l.Evidence {
		e.Label = "live " + l.Rule + ": " + e.Label
		g.Evidence = append(g.Evidence, e)
	}
	return g
}
