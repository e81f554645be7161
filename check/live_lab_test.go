//go:build unix

package check

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/internal/labtest"
)

// TestLiveLabService runs the lab service with the live monitor mounted
// (internal/lab/service/labservice/live.go), asks it for a burst of
// 100×GOMAXPROCS runnable goroutines, waits for the monitor's snapshot,
// then checks the service: the monitor's JSON is read, the snapshot it did
// not diagnose is fetched and diagnosed, its findings name it, and -save
// keeps both.
func TestLiveLabService(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the lab service")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if _, err := lab.Build(ctx, "..", dir, "service/labservice"); err != nil {
		t.Fatal(err)
	}
	m := labtest.StartMeter()
	liveDir := filepath.Join(dir, "live")
	cmd := exec.Command(filepath.Join(dir, "labservice"), "-duration", "90s", "-live-dir", liveDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	addrs := map[string]string{}
	for len(addrs) < 2 && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		addrs[k] = v
	}
	go io.Copy(io.Discard, stdout)
	if addrs["pprof"] == "" || addrs["app"] == "" {
		t.Fatalf("the service printed %v", addrs)
	}
	// Two readings of quiet first, so the trigger sees the burst start.
	time.Sleep(2 * time.Second)
	resp, err := http.Get(addrs["app"] + "/burst?ms=2500")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The snapshot waits for the backlog to drain (at most 5s), then is
	// written: poll the monitor's JSON for it.
	var snaps int
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && snaps == 0; time.Sleep(500 * time.Millisecond) {
		resp, err := http.Get(addrs["pprof"] + DefaultLivePath + "?format=json")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		rep, _, err := parseLive(b)
		if err != nil {
			t.Fatal(err)
		}
		snaps = len(rep.Summary.Snapshots)
	}
	if snaps == 0 {
		m.SkipIfBusy(t, "no snapshot within 30s of the burst")
		t.Fatal("no snapshot within 30s of a burst of 100×GOMAXPROCS runnable goroutines")
	}
	s, err := Run(ctx, addrs["pprof"], Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, LivePath: DefaultLivePath,
		Log: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Get(KindLive).OK() || !s.Get(KindLiveSnapshot).OK() {
		t.Fatalf("live captures missing: %v", s.Failed())
	}
	res, err := Analyze(ctx, s, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Summary.Live
	if lv == nil || lv.Snapshot == "" {
		t.Fatalf("live summary %+v: no snapshot diagnosed (failed: %v)", lv, res.Summary.Failed)
	}
	named := 0
	for _, f := range res.Findings {
		if strings.Contains(f.Text(), "snapshot "+lv.Snapshot) {
			named++
			t.Logf("%s %s: %.200s", f.Rule, f.Sources, f.Text())
		}
	}
	if lv.SnapshotFindings > 0 && named == 0 {
		t.Errorf("%d snapshot findings, none in the report", lv.SnapshotFindings)
	}
	// The snapshot is of a backlog: the trace analysis says so (SD302 or
	// SD301) unless the host withheld the CPU from the whole burst.
	backlog := false
	for _, f := range res.Findings {
		if (f.Rule == "SD302" || f.Rule == "SD301" || f.Rule == "SD702") && strings.Contains(f.Text(), lv.Snapshot) {
			backlog = true
		}
	}
	if !backlog {
		m.SkipIfBusy(t, "the snapshot's diagnosis shows no backlog")
		t.Errorf("snapshot %s diagnosed with %d findings, none a backlog", lv.Snapshot, lv.SnapshotFindings)
	}
	save := filepath.Join(dir, "saved")
	if err := s.Save(save); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(save)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := Analyze(ctx, loaded, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Summary.Live == nil || res2.Summary.Live.Snapshot != lv.Snapshot {
		t.Errorf("offline: live summary %+v, want snapshot %s", res2.Summary.Live, lv.Snapshot)
	}
	var mon struct {
		SnapshotsWritten int `json:"snapshots_written"`
	}
	if err := json.Unmarshal(lv.Monitor, &mon); err != nil || mon.SnapshotsWritten == 0 {
		t.Errorf("monitor summary: %v, snapshots written %d", err, mon.SnapshotsWritten)
	}
}
