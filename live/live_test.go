package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/livetrace"
)

// liveGoroutines counts goroutines running the monitor's code.
func liveGoroutines() int {
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, 2)
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		// A goroutine not yet run shows only its creator.
		if strings.Contains(g, "schedoctor/live.(*Monitor)") || strings.Contains(g, "created by github.com/schedoctor/schedoctor/live.Start") {
			n++
		}
	}
	return n
}

// busy returns why the machine is too loaded for a timing assertion to
// mean anything (load average above the CPUs), or "".
func busy() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil || load <= float64(runtime.NumCPU()) {
		return ""
	}
	return fmt.Sprintf("load average %.1f on %d CPUs", load, runtime.NumCPU())
}

// failOrSkip fails, unless the machine is too busy for the measurement to
// hold, when it skips naming the load.
func failOrSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	if why := busy(); why != "" {
		t.Skipf("%s; not failing: %s", fmt.Sprintf(format, args...), why)
	}
	t.Fatalf(format, args...)
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func hasRule(fs []finding.Finding, rule string) bool {
	return slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.Rule == rule })
}

// TestSpikeSnapshot is the end-to-end test: quiet, then 100× more
// runnable goroutines than Ps for a second; a snapshot is written,
// diagnosed with the trace analysis (backlog found), and SD702 is among
// the findings.
func TestSpikeSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scheduler hard for a second")
	}
	dir := t.TempDir()
	m, err := live.Start(t.Context(), live.Options{
		Interval:          100 * time.Millisecond,
		Window:            5 * time.Second,
		LatencySpan:       time.Second,
		FlightRecorderAge: time.Second,
		SnapshotDelay:     3 * time.Second,
		Dir:               dir,
		Diagnose:          livetrace.Diagnose,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	if st := m.State(); st.FlightRecorder != "recording" {
		t.Fatalf("flight recorder: %s", st.FlightRecorder)
	}
	time.Sleep(500 * time.Millisecond) // quiet
	labtest.Spike(100*runtime.GOMAXPROCS(0), 2*time.Second)

	var st live.State
	deadline := time.Now().Add(30 * time.Second)
	for {
		st = m.State()
		if len(st.Snapshots) > 0 && st.Snapshots[0].Diagnosis != "pending" {
			break
		}
		if time.Now().After(deadline) {
			// On a crowded machine the spike may not queue, or the
			// recorder's memory budget may have paused it (the triggers
			// then fire and are skipped): the state says which.
			var tr []string
			for _, x := range st.Triggers {
				tr = append(tr, fmt.Sprintf("%s fired %d skipped %d", x.Kind, x.Fired, x.Skipped))
			}
			failOrSkip(t, "after 30s: no diagnosed snapshot (%s; recorder %q, paused %d times)", strings.Join(tr, ", "), st.FlightRecorder, st.RecorderPauses)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := st.Snapshots[0]
	t.Logf("snapshot %s (%d bytes, trigger %s: %s): %s", s.Name, s.Bytes, s.Trigger, s.Why, s.Diagnosis)
	if s.Diagnosis != "done" {
		t.Fatalf("diagnosis: %s; errors %v", s.Diagnosis, st.Errors)
	}
	info, err := os.Stat(filepath.Join(dir, s.Name))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 || info.Size() != s.Bytes {
		t.Errorf("snapshot mode %v size %d, want 0600 and %d", info.Mode().Perm(), info.Size(), s.Bytes)
	}
	if s.Trigger != "runnable" && s.Trigger != "latency" {
		t.Errorf("trigger %q, want runnable or latency", s.Trigger)
	}
	var rules []string
	for _, f := range s.Findings {
		rules = append(rules, f.Rule)
		if !strings.Contains(f.Text(), s.Name) {
			t.Errorf("snapshot finding does not name the snapshot: %q", f.Text())
		}
	}
	t.Logf("snapshot findings: %v", rules)
	if !hasRule(s.Findings, "SD302") && !hasRule(s.Findings, "SD301") {
		failOrSkip(t, "the trace analysis of the snapshot found no backlog (SD301/SD302): %v", rules)
	}
	// While the spike is in the latency span, SD702 rests on the metrics
	// and the snapshot's trace: it carries the trace's user lines.
	for _, f := range m.Findings() {
		if f.Rule != "SD702" {
			continue
		}
		t.Logf("SD702: %s at %v", f.Text(), f.Locations)
		if !strings.Contains(f.Text(), s.Name) || !slices.Equal(f.Sources, []string{"live", "trace"}) || len(f.Locations) == 0 {
			t.Errorf("SD702 not joined with the snapshot: sources %v, %d locations, %q", f.Sources, len(f.Locations), f.Text())
		}
		for _, l := range f.Locations {
			if !finding.UserFunction(l.Function) {
				t.Errorf("SD702 located at a non-user frame %v", l)
			}
		}
	}
	// SD702 is judged over the last LatencySpan: read it while the spike
	// is still in that span, or from the latency trigger's firing.
	fired := false
	for _, tr := range st.Triggers {
		if tr.Kind == "latency" && tr.Fired > 0 {
			fired = true
		}
	}
	if !fired {
		failOrSkip(t, "latency trigger never fired: %+v", st.Triggers)
	}
}

// TestSD702Online checks Findings() carries SD702 while a spike lasts.
func TestSD702Online(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scheduler hard")
	}
	m, err := live.Start(t.Context(), live.Options{Interval: 100 * time.Millisecond, LatencySpan: time.Second, NoFlightRecorder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	var seen atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !seen.Load() {
			if hasRule(m.Findings(), "SD702") {
				seen.Store(true)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !seen.Load() && time.Now().Before(deadline) {
		labtest.Spike(100*runtime.GOMAXPROCS(0), time.Second)
	}
	seen.Store(true)
	<-done
	if !hasRule(m.Findings(), "SD702") && !slices.ContainsFunc(m.State().Triggers, func(tr live.Trigger) bool { return tr.Kind == "latency" && tr.Fired > 0 }) {
		failOrSkip(t, "no SD702 during a spike: %+v", m.State().Latency)
	}
}

func TestStopLeavesNoGoroutine(t *testing.T) {
	before := liveGoroutines()
	m, err := live.Start(context.Background(), live.Options{Interval: 10 * time.Millisecond, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := liveGoroutines(); n != before+2 {
		t.Errorf("%d monitor goroutines running, want 2", n-before)
	}
	time.Sleep(50 * time.Millisecond)
	m.Stop()
	m.Stop() // idempotent
	if n := liveGoroutines(); n != before {
		t.Errorf("%d monitor goroutines left after Stop", n-before)
	}
	if st := m.State(); st.FlightRecorder != "stopped" {
		t.Errorf("flight recorder %q after Stop", st.FlightRecorder)
	}
	// The flight recorder is free again.
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
	if err := fr.Start(); err != nil {
		t.Errorf("flight recorder still held after Stop: %v", err)
	}
	fr.Stop()

	// Cancelling Start's context stops the goroutines too; Stop still works.
	ctx, cancel := context.WithCancel(context.Background())
	m, err = live.Start(ctx, live.Options{Interval: 10 * time.Millisecond, NoFlightRecorder: true})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	m.Stop()
	if n := liveGoroutines(); n != before {
		t.Errorf("%d monitor goroutines left after cancel and Stop", n-before)
	}
}

func TestFlightRecorderOwnedElsewhere(t *testing.T) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
	if err := fr.Start(); err != nil {
		t.Skipf("cannot start a flight recorder here: %v", err)
	}
	defer fr.Stop()
	m, err := live.Start(t.Context(), live.Options{Interval: 20 * time.Millisecond, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	st := m.State()
	if !strings.HasPrefix(st.FlightRecorder, "not recording") || !strings.Contains(st.FlightRecorder, "metrics keep running") {
		t.Errorf("flight recorder state %q", st.FlightRecorder)
	}
	r0 := st.Readings
	waitFor(t, 5*time.Second, "metrics stopped without a flight recorder", func() bool { return m.State().Readings > r0 })
	if !fr.Enabled() {
		t.Error("the monitor stopped the program's own flight recorder")
	}
}

func TestUnwritableDir(t *testing.T) {
	// Dir accepted at Start, then removed: every write fails (a removed
	// directory takes no new file, even through its descriptor).
	f := filepath.Join(t.TempDir(), "dir")
	m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, LatencySpan: 500 * time.Millisecond,
		Dir: f, SnapshotGap: time.Millisecond})
	if err != nil {
		t.Fatalf("Start failed on an unwritable Dir: %v", err)
	}
	defer m.Stop()
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	labtest.Spike(100*runtime.GOMAXPROCS(0), 500*time.Millisecond)
	waitFor(t, 10*time.Second, "no error for the unwritable dir", func() bool {
		st := m.State()
		return slices.ContainsFunc(st.Errors, func(e live.TimedError) bool { return strings.Contains(e.Error, "writing snapshot") })
	})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/schedoctor/", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "writing snapshot") {
		t.Errorf("handler %d does not show the error", rec.Code)
	}
}

func TestHandler(t *testing.T) {
	dir := t.TempDir()
	evil := `<script>alert(1)</script>`
	m, err := live.Start(t.Context(), live.Options{
		Interval: 50 * time.Millisecond, LatencySpan: 500 * time.Millisecond, Dir: dir,
		Diagnose: func(ctx context.Context, path string) ([]finding.Finding, error) {
			return []finding.Finding{{Rule: "SD302", Severity: finding.Warning, Message: "3 runnable " + evil + " because x"}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	// A file in Dir that is not a snapshot must never be served.
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("TOPSECRET-CONTENT"), 0o600)
	labtest.Spike(100*runtime.GOMAXPROCS(0), 500*time.Millisecond)
	waitFor(t, 20*time.Second, "no diagnosed snapshot", func() bool {
		st := m.State()
		return len(st.Snapshots) > 0 && st.Snapshots[0].Diagnosis == "done"
	})
	mux := http.NewServeMux()
	mux.Handle("/debug/schedoctor/", m.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/debug/schedoctor/")
	if code != 200 || strings.Contains(body, evil) || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("page %d does not escape the finding", code)
	}
	code, body = get("/debug/schedoctor/?format=json")
	var rep live.Report
	if err := json.Unmarshal([]byte(body), &rep); err != nil || code != 200 {
		t.Fatalf("json %d: %v", code, err)
	}
	if rep.Source != "live" || len(rep.Summary.Snapshots) == 0 || !hasRule(rep.Findings, "SD302") || rep.Summary.GOMAXPROCS < 1 {
		t.Errorf("json report: source %q, %d snapshots, findings %v", rep.Source, len(rep.Summary.Snapshots), rep.Findings)
	}
	name := rep.Summary.Snapshots[0].Name
	if !strings.Contains(body, `href="snapshots/`+name) && !strings.Contains(get1(t, srv.URL+"/debug/schedoctor/"), `href="snapshots/`+name) {
		t.Errorf("page has no link to %s", name)
	}
	code, body = get("/debug/schedoctor/snapshots/" + name)
	want, _ := os.ReadFile(filepath.Join(dir, name))
	if code != 200 || body != string(want) {
		t.Errorf("snapshot download: %d, %d bytes, want %d", code, len(body), len(want))
	}
	for _, p := range []string{"snapshots/secret.txt", "snapshots/../secret.txt", "snapshots/%2e%2e%2fsecret.txt",
		"snapshots/" + name + "/../secret.txt", "snapshots/..%2f..%2fetc%2fpasswd", "snapshots/"} {
		if _, body := get("/debug/schedoctor/" + p); strings.Contains(body, "TOPSECRET") || strings.Contains(body, "root:") {
			t.Errorf("%s served %q", p, body)
		}
	}
	if resp, err := http.Post(srv.URL+"/debug/schedoctor/", "text/plain", nil); err == nil {
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST: %d", resp.StatusCode)
		}
		resp.Body.Close()
	}
}

func get1(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestSnapshotBounds fires the trigger again and again: the directory
// keeps at most MaxSnapshots files and MaxSnapshotBytes bytes.
func TestSnapshotBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scheduler hard")
	}
	for _, c := range []struct {
		files int
		bytes int64
	}{{2, 100 << 20}, {10, 150_000}} {
		dir := t.TempDir()
		m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, LatencySpan: 200 * time.Millisecond,
			Dir: dir, SnapshotGap: 100 * time.Millisecond, SnapshotDelay: -1, MaxSnapshots: c.files, MaxSnapshotBytes: c.bytes,
			FlightRecorderBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			labtest.Spike(100*runtime.GOMAXPROCS(0), 300*time.Millisecond)
			time.Sleep(300 * time.Millisecond)
		}
		m.Stop()
		st := m.State()
		ents, _ := os.ReadDir(dir)
		var total int64
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				total += info.Size()
			}
		}
		t.Logf("bounds %d files %d bytes: %d written, %d files of %d bytes kept, %d errors", c.files, c.bytes,
			st.SnapshotsWritten, len(ents), total, st.ErrorCount)
		if len(ents) > c.files || len(st.Snapshots) > c.files || total > c.bytes {
			t.Errorf("%d files (%d listed), %d bytes in Dir: beyond %d files, %d bytes", len(ents), len(st.Snapshots), total, c.files, c.bytes)
		}
		if st.SnapshotsWritten+st.ErrorCount < 3 {
			failOrSkip(t, "only %d snapshots attempted: the spikes did not fire the triggers", st.SnapshotsWritten+st.ErrorCount)
		}
	}
}

// A Diagnose hook that panics fails that diagnosis, not the program.
func TestDiagnosePanics(t *testing.T) {
	m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, Dir: t.TempDir(), SnapshotDelay: -1,
		Diagnose: func(context.Context, string) ([]finding.Finding, error) { panic("boom") }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	labtest.Spike(100*runtime.GOMAXPROCS(0), 500*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st := m.State()
		if len(st.Snapshots) > 0 && st.Snapshots[0].Diagnosis != "pending" {
			if d := st.Snapshots[0].Diagnosis; !strings.Contains(d, "failed: diagnosis panicked: boom") {
				t.Errorf("diagnosis %q", d)
			}
			r := st.Readings
			waitFor(t, 5*time.Second, "sampling stopped after the panic", func() bool { return m.State().Readings > r })
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	failOrSkip(t, "no snapshot diagnosed: %+v", m.State().Triggers)
}

// TestGoroutineGrowth leaks goroutines steadily: SD701 is found online,
// the goroutines trigger fires and its snapshot is written at once.
func TestGoroutineGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("takes seconds")
	}
	m, err := live.Start(t.Context(), live.Options{Interval: 50 * time.Millisecond, Window: 2 * time.Second,
		Dir: t.TempDir(), SnapshotGap: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	block := make(chan struct{})
	defer close(block) // the "leaked" goroutines end with the test
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) && !hasRule(m.Findings(), "SD701") {
		for range 10 {
			go func() { <-block }()
		}
		time.Sleep(50 * time.Millisecond)
	}
	fs := m.Findings()
	if !hasRule(fs, "SD701") {
		failOrSkip(t, "no SD701 after leaking %d goroutines: %+v", m.State().Goroutines.Waiting, m.State().Goroutines)
	}
	for _, f := range fs {
		if f.Rule == "SD701" {
			t.Logf("%s", f.Text())
			if len(f.Locations) != 0 {
				t.Errorf("SD701 from counts has locations: %v", f.Locations)
			}
		}
	}
	waitFor(t, 10*time.Second, "no snapshot for the goroutines trigger", func() bool {
		st := m.State()
		return slices.ContainsFunc(st.Snapshots, func(s live.Snapshot) bool { return s.Trigger == "goroutines" })
	})
	// Healthy now: the count stays flat, and once the window has moved
	// past the growth SD701 clears.
	waitFor(t, 10*time.Second, "SD701 stayed after the growth stopped", func() bool { return !hasRule(m.Findings(), "SD701") })
}
