package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/live"
)

// The live monitor's captures: its JSON (GET <mount>?format=json) and the
// newest flight-recorder snapshot it took and did not diagnose itself.
const (
	KindLive         = "live"
	KindLiveSnapshot = "live-snapshot"
)

// MaxLiveBytes bounds the monitor's JSON: it holds a handful of findings
// and a summary of some KB; 4 MiB is a thousand times that, and far less
// than a hostile target's 40,000 findings would take to decode.
const MaxLiveBytes = 4 << 20

// DefaultLivePath is where check looks for the live monitor: the mount
// point docs/live.md gives (mux.Handle("/debug/schedoctor/", m.Handler())).
const DefaultLivePath = "/debug/schedoctor/"

// captureLive probes the live monitor once, at livePath under base. A 404
// means the service does not mount it: no capture is recorded and nothing
// is said, since most services do not. An answer that is not the
// monitor's JSON (a catch-all page, another program's JSON) is not
// recorded either, with one progress line saying why: the path is a guess
// unless the user gave it. Network errors, 401/403 and 5xx are failed
// captures like any other.
//
// When the monitor lists a snapshot taken since it started whose diagnosis
// is not done (a service that did not wire livetrace.Diagnose, which keeps
// its binary free of the trace reader), the newest such snapshot is
// fetched too, so that check diagnoses it: the trace of the moment the
// monitor caught, which check's own trace, taken now, may not show.
func captureLive(ctx context.Context, r *runner, livePath string) []*Capture {
	base, slack, logf := r.base, r.opt.Slack, r.logf
	mount := *base
	mount.Path = base.Path + "/"
	if p := strings.Trim(livePath, "/"); p != "" {
		mount.Path += p + "/"
	}
	u := mount
	u.RawQuery = url.Values{"format": {"json"}}.Encode()
	c := &Capture{Kind: KindLive, Endpoint: u.Redacted(), Start: time.Now()}
	data, status, err := r.fetchLimit(ctx, &u, slack, r.opt.IdleTimeout, MaxLiveBytes)
	c.Duration = time.Since(c.Start).Seconds()
	if err != nil {
		switch {
		case status == http.StatusNotFound:
			return nil // not mounted: the common case, silent
		case status == http.StatusOK:
			// fetch refuses an HTML page with a 200: not the monitor.
			logf("live: %s does not serve the schedoctor live monitor (%v); give its mount with -live", mount.Redacted(), err)
			return nil
		}
		c.Error = r.redact(err.Error())
		logf("%s: %s", c.Kind, c.Error)
		return []*Capture{c}
	}
	rep, listed, err := parseLive(data)
	if err != nil {
		logf("live: %s: %s; give its mount with -live", c.Endpoint, r.redact(err.Error()))
		return nil
	}
	c.Data, c.Bytes = data, int64(len(data))
	logf("live: monitor at %s: %d finding(s), %d snapshot(s)", mount.Redacted(), listed, len(rep.Summary.Snapshots))
	snap := snapshotToDiagnose(rep)
	if snap == nil {
		return []*Capture{c}
	}
	su := mount
	su.Path = mount.Path + "snapshots/" + snap.Name
	sc := &Capture{Kind: KindLiveSnapshot, Endpoint: su.Redacted(), Start: time.Now()}
	logf("capturing live snapshot %s (%d bytes, trigger %s)", snap.Name, snap.Bytes, snap.Trigger)
	if why := r.skip(step{}); why != "" {
		sc.Skipped = why
		logf("%s: not taken: %s", sc.Kind, why)
		return []*Capture{c, sc}
	}
	data, _, err = r.fetch(ctx, &su, slack, r.opt.IdleTimeout)
	sc.Duration = time.Since(sc.Start).Seconds()
	switch {
	case err != nil:
		sc.Error = r.redact(err.Error())
		logf("%s: %s", sc.Kind, sc.Error)
	case isTrace(data) != nil:
		sc.Error = r.redact(fmt.Sprintf("%s: not a snapshot: %v", sc.Endpoint, isTrace(data)))
		logf("%s: %s", sc.Kind, sc.Error)
	default:
		sc.Data, sc.Bytes = data, int64(len(data))
	}
	return []*Capture{c, sc}
}

// parseLive reads the monitor's JSON and checks that it is the monitor's.
// Only the first MaxLiveFindings findings are decoded into the report;
// listed is how many the monitor listed, so that a target listing 40,000
// costs a scan, not a decode.
func parseLive(data []byte) (rep *live.Report, listed int, err error) {
	var raw struct {
		Source   string            `json:"source"`
		Findings []json.RawMessage `json:"findings"`
		Summary  live.State        `json:"summary"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, 0, fmt.Errorf("not the live monitor's JSON: %w", err)
	}
	if raw.Source != "live" {
		return nil, 0, fmt.Errorf("not the live monitor's JSON (source %q, want \"live\")", raw.Source)
	}
	rep = &live.Report{Source: raw.Source, Summary: raw.Summary}
	for i, m := range raw.Findings[:min(len(raw.Findings), MaxLiveFindings)] {
		var f finding.Finding
		if err := json.Unmarshal(m, &f); err != nil {
			return nil, 0, fmt.Errorf("not the live monitor's JSON: finding %d: %w", i, err)
		}
		rep.Findings = append(rep.Findings, f)
	}
	return rep, len(raw.Findings), nil
}

// snapshotToDiagnose picks the newest snapshot the monitor took since it
// started and did not diagnose; files an earlier process left in its Dir
// are of another run of the program, not evidence about this one.
func snapshotToDiagnose(rep *live.Report) *live.Snapshot {
	var pick *live.Snapshot
	for i := range rep.Summary.Snapshots {
		s := &rep.Summary.Snapshots[i]
		if s.Diagnosis == "done" || s.Diagnosis == "pending" || s.Time.Before(rep.Summary.Started) || !validSnapshotName(s.Name) {
			continue
		}
		if pick == nil || s.Time.After(pick.Time) {
			pick = s
		}
	}
	return pick
}

// validSnapshotName accepts only the monitor's plain file names: a name
// from the target never makes check fetch another path.
func validSnapshotName(name string) bool {
	return name != "" && path.Base(name) == name && filepath.IsLocal(name) && strings.HasSuffix(name, ".trace") &&
		!strings.ContainsAny(name, "?#%\\")
}

// LiveSummary is what the live monitor added to the check: its own summary
// as it served it, how many findings it gave and how many joined another
// source's finding of the same cause, and the snapshot check diagnosed.
type LiveSummary struct {
	Findings int `json:"findings"`
	Joined   int `json:"joined"`
	// Dropped counts the monitor's findings not read: past
	// MaxLiveFindings, or of a rule the catalog does not have.
	Dropped int `json:"dropped,omitempty"`
	// Snapshot is the snapshot check fetched and diagnosed (the monitor
	// had not), with its findings' count.
	Snapshot         string `json:"snapshot,omitempty"`
	SnapshotFindings int    `json:"snapshot_findings,omitempty"`
	// Monitor is the monitor's summary (live.State) as served.
	Monitor json.RawMessage `json:"monitor"`
}

// Bounds of what the live monitor's JSON may add: the monitor gives a
// handful of findings (SD701-SD704, and those of a snapshot it diagnosed);
// a target that lists 40,000 made the join take 20 s.
const (
	MaxLiveFindings = 100
	maxClaimRunes   = 300 // of a claim's message
	maxClaimLabel   = 120 // of an evidence label
	maxClaimItems   = 16  // evidence per claim
	maxClaimLocs    = 8   // locations per claim
)

// LiveClaim starts the message of a finding the target's live monitor
// made: its words, not schedoctor's.
const LiveClaim = "the target's live monitor reports: "

// joinLive adds the live monitor's findings to the joined ones: each
// becomes part of a finding of the same cause when one exists (see
// sameCause), else a finding of its own; all carry the source "live".
// They are the target's claims (claim): at most MaxLiveFindings are read,
// each marked as the monitor's, with the catalog's fix for its rule, not
// the target's. fail records a capture that could not be read.
func joinLive(ctx context.Context, s *Set, fs []finding.Finding, cpus float64, src diagnose.SourceReader, fail func(string, error)) ([]finding.Finding, *LiveSummary) {
	c := s.Get(KindLive)
	if !c.OK() {
		return fs, nil
	}
	rep, listed, err := parseLive(c.Data)
	if err != nil {
		fail(c.Kind, err)
		return fs, nil
	}
	raw, _ := json.Marshal(rep.Summary)
	sum := &LiveSummary{Monitor: raw}
	var in []finding.Finding
	sum.Dropped = listed - len(rep.Findings) // past MaxLiveFindings
	for _, f := range rep.Findings {
		cf, ok := claim(f)
		if !ok {
			sum.Dropped++
			continue
		}
		in = append(in, cf)
	}
	if sum.Dropped > 0 {
		fail(c.Kind, fmt.Errorf("the monitor listed %d findings; %d dropped (more than %d, or a rule the catalog does not have)",
			listed, sum.Dropped, MaxLiveFindings))
	}
	if sc := s.Get(KindLiveSnapshot); sc.OK() {
		name := path.Base(sc.Endpoint)
		if u, err := url.Parse(sc.Endpoint); err == nil {
			name = path.Base(u.Path)
		}
		sfs, err := diagnoseSnapshot(ctx, sc.Data, cpus, src)
		if err != nil {
			fail(sc.Kind, fmt.Errorf("snapshot %s: %w", name, err))
		} else {
			sum.Snapshot, sum.SnapshotFindings = name, len(sfs)
			for i := range sfs {
				sfs[i].Message += " (snapshot " + name + ")"
				sfs[i].Sources = []string{"live"}
			}
			in = nameSnapshot(in, sfs, name, rep, sc)
			in = append(in, sfs...)
		}
	}
	sum.Findings = len(in)
	idx := newCauseIndex(fs)
	for _, f := range in {
		if i := idx.find(fs, f); i >= 0 {
			fs[i] = fold(fs[i], f)
			sum.Joined++
			continue
		}
		if claimed(f) {
			f.Message = LiveClaim + f.Message
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
	g := finding.Finding{Rule: r.ID, Severity: f.Severity, Message: cutRunes(f.Message, maxClaimRunes), Fix: r.Fix, Sources: []string{"live"}}
	if g.Severity < finding.Info || g.Severity > finding.Critical {
		g.Severity = r.Severity
	}
	g.Locations = slices.Clone(f.Locations[:min(len(f.Locations), maxClaimLocs)])
	for _, e := range f.Evidence[:min(len(f.Evidence), maxClaimItems)] {
		e.Label, e.Unit = cutRunes(e.Label, maxClaimLabel), cutRunes(e.Unit, 20)
		g.Evidence = append(g.Evidence, e)
	}
	g.Evidence = append(g.Evidence, finding.Evidence{Label: "claimed by the target's live monitor", Value: 1, Unit: "claim"})
	return g, true
}

// claimed reports whether f is a claim of the monitor's (claim), not a
// finding check made from the snapshot it fetched.
func claimed(f finding.Finding) bool {
	return slices.ContainsFunc(f.Evidence, func(e finding.Evidence) bool { return e.Label == "claimed by the target's live monitor" })
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// diagnoseSnapshot runs the trace analysis on a snapshot, as `schedoctor
// trace` would.
func diagnoseSnapshot(ctx context.Context, data []byte, cpus float64, src diagnose.SourceReader) ([]finding.Finding, error) {
	topt := exectrace.Options{CPUs: cpus}
	res, err := readTrace(ctx, "snapshot", bytes.NewReader(data), exectrace.ReadOptions{}, topt)
	if err != nil {
		return nil, err
	}
	j, err := diagnose.Trace(res, topt, diagnose.Options{Source: src})
	if err != nil {
		return nil, err
	}
	return j.Findings, nil
}

// nameSnapshot does for the snapshot check diagnosed what the monitor
// does for one it diagnosed itself (live's joinTrace): an SD702 with no
// location, judged over a span that holds the snapshot's moment, takes the
// user lines of the trace's backlog findings and names the snapshot. A
// snapshot of an earlier spike is not evidence for this one.
func nameSnapshot(in, sfs []finding.Finding, name string, rep *live.Report, sc *Capture) []finding.Finding {
	var snapAt time.Time
	for _, s := range rep.Summary.Snapshots {
		if s.Name == name {
			snapAt = s.Time
		}
	}
	span := time.Duration(rep.Summary.Latency.Span*float64(time.Second)) + 5*time.Second // + live's default SnapshotDelay
	if snapAt.IsZero() || rep.Summary.Time.Sub(snapAt) > span {
		return in
	}
	for i := range in {
		f := &in[i]
		if f.Rule != "SD702" || len(f.Locations) > 0 {
			continue
		}
		f.Message += fmt.Sprintf("; trace of it: snapshot %s (%d findings)", name, len(sfs))
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

// causeGroup puts rules that name one kind of cause together, across the
// monitor's rules and the other sources': diagnose.Family's groups (the
// metrics' goroutine growth SD701 is the dumps' leak, the monitor's GC
// cost SD704 the profile's and the trace's), and the monitor's scheduling
// latency (SD702) with the trace's (SD301, SD302), which diagnose.Check
// links to a spin rather than groups.
func causeGroup(rule string) string {
	switch rule {
	case "SD702", "SD301", "SD302":
		return "latency"
	}
	return diagnose.Family(rule)
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

// causeIndex lists the findings of each cause group, so that joining n
// live findings to m others looks only at the candidates of each group,
// not at all m.
type causeIndex map[string][]int

func newCauseIndex(fs []finding.Finding) causeIndex {
	x := causeIndex{}
	for i, f := range fs {
		x.add(i, f)
	}
	return x
}

func (x causeIndex) add(i int, f finding.Finding) {
	if g := causeGroup(f.Rule); g != "" {
		x[g] = append(x[g], i)
	}
}

// find is sameCause over the index.
func (x causeIndex) find(fs []finding.Finding, f finding.Finding) int {
	g := causeGroup(f.Rule)
	if g == "" {
		return -1
	}
	cands := x[g]
	if len(f.Locations) == 0 {
		if (g != "leak" && g != "gc") || len(cands) != 1 {
			return -1 // none, or two candidates: cannot tell which
		}
		return cands[0]
	}
	for _, i := range cands {
		for _, l := range f.Locations {
			if diagnose.SameLine(l, fs[i].Locations) {
				return i
			}
		}
	}
	return -1
}

// ruleSource names the source of a finding that carries no Sources (one
// source made it), by the rule's layer.
func ruleSource(rule string) string {
	switch {
	case rule == "SD701" || rule == "SD309":
		return "goroutines"
	case strings.HasPrefix(rule, "SD1"):
		return "lint"
	case strings.HasPrefix(rule, "SD2"):
		return "profile"
	case strings.HasPrefix(rule, "SD3"):
		return "trace"
	case strings.HasPrefix(rule, "SD4"):
		return "procs"
	case strings.HasPrefix(rule, "SD7"):
		return "live"
	}
	return "check"
}

// fold makes the live finding l part of f: f keeps its rule, message
// (with the monitor's appended) and locations first; the severity is the
// higher; l's evidence follows f's, labelled with its source and rule; the
// sources are both findings'.
func fold(f, l finding.Finding) finding.Finding {
	own := f.Sources
	if len(own) == 0 {
		own = []string{ruleSource(f.Rule)}
	}
	srcs := slices.Clone(own)
	for _, s := range l.Sources {
		if !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	g := f
	g.Sources = srcs
	g.Severity = max(f.Severity, l.Severity)
	g.Message = f.Message + "; the target's live monitor reports " + l.Rule + ": " + l.Message
	g.Locations = slices.Clone(f.Locations)
	for _, loc := range l.Locations {
		if !diagnose.SameLine(loc, g.Locations) && len(g.Locations) < 8 {
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
