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
	"strings"
	"time"

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
			logf("live: %s does not serve the schedoctor live monitor (%v); give the path where the service mounts it", mount.Redacted(), err)
			return nil
		}
		c.Error = r.redact(err.Error())
		logf("%s: %s", c.Kind, c.Error)
		return []*Capture{c}
	}
	rep, listed, err := parseLive(data)
	if err != nil {
		logf("live: %s: %s; give the path where the service mounts it", c.Endpoint, r.redact(err.Error()))
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
// Only the first diagnose.MaxLiveFindings findings are decoded into the report;
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
	for i, m := range raw.Findings[:min(len(raw.Findings), diagnose.MaxLiveFindings)] {
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

// LiveSummary is what the live monitor added to the check: how its
// findings joined (diagnose.LiveSummary: how many it gave, how many joined
// another source's finding of the same cause, how many were dropped, the
// snapshot check diagnosed) and its own summary as it served it.
type LiveSummary struct {
	diagnose.LiveSummary
	// Monitor is the monitor's summary (live.State) as served.
	Monitor json.RawMessage `json:"monitor"`
}

// liveRead is the live monitor's captures as read for the join.
type liveRead struct {
	in      *diagnose.LiveInput
	monitor json.RawMessage // its summary as served
	snapErr error           // the snapshot could not be diagnosed
}

// readLive reads the live monitor's captures of s for diagnose.Check: its
// findings (parseLive decodes at most diagnose.MaxLiveFindings) and the
// snapshot check fetched, diagnosed here as `schedoctor trace` would. nil
// when there is no live capture, or it could not be read (fail says why).
func readLive(ctx context.Context, s *Set, cpus float64, src diagnose.SourceReader, fail func(string, error)) *liveRead {
	c := s.Get(KindLive)
	if !c.OK() {
		return nil
	}
	rep, listed, err := parseLive(c.Data)
	if err != nil {
		fail(c.Kind, err)
		return nil
	}
	raw, _ := json.Marshal(rep.Summary)
	r := &liveRead{monitor: raw, in: &diagnose.LiveInput{Findings: rep.Findings, Listed: listed,
		Time: rep.Summary.Time, Span: time.Duration(rep.Summary.Latency.Span * float64(time.Second))}}
	if sc := s.Get(KindLiveSnapshot); sc.OK() {
		name := path.Base(sc.Endpoint)
		if u, err := url.Parse(sc.Endpoint); err == nil {
			name = path.Base(u.Path)
		}
		sfs, err := diagnoseSnapshot(ctx, sc.Data, cpus, src)
		if err != nil {
			r.snapErr = fmt.Errorf("snapshot %s: %w", name, err)
			return r
		}
		snap := &diagnose.LiveSnapshot{Name: name, Findings: sfs}
		for _, s := range rep.Summary.Snapshots {
			if s.Name == name {
				snap.Time = s.Time
			}
		}
		r.in.Snapshot = snap
	}
	return r
}

// summary is the live part of check's summary once joined (js: how the
// join went), and records what the join dropped and a snapshot that could
// not be read as failed captures.
func (r *liveRead) summary(js *diagnose.LiveSummary, fail func(string, error)) *LiveSummary {
	sum := &LiveSummary{Monitor: r.monitor}
	if js != nil {
		sum.LiveSummary = *js
	}
	if sum.Dropped > 0 {
		fail(KindLive, fmt.Errorf("the monitor listed %d findings; %d dropped (more than %d, or a rule the catalog does not have)",
			max(r.in.Listed, len(r.in.Findings)), sum.Dropped, diagnose.MaxLiveFindings))
	}
	if r.snapErr != nil {
		fail(KindLiveSnapshot, r.snapErr)
	}
	return sum
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
