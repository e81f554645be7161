package labsvc

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// TestEmbeddedCopy: the embedded copy is the service's source, so that the
// demo builds and judges the service the tests and docs describe.
func TestEmbeddedCopy(t *testing.T) {
	want, err := os.ReadFile("../../lab/service/labservice/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, source) {
		t.Fatal("labservice.go.txt differs from internal/lab/service/labservice/main.go: run go generate ./internal/demo/labsvc")
	}
}

func TestCauses(t *testing.T) {
	cs, err := Causes()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(source), "\n")
	for _, c := range cs {
		if !strings.Contains(lines[c.Line-1], c.Marker) {
			t.Errorf("%s: line %d is %q, want the one marked %q", c.Name, c.Line, lines[c.Line-1], c.Marker)
		}
		if strings.Contains(c.Name, " ") {
			t.Errorf("cause name %q is not one word", c.Name)
		}
	}
}

func at(line int, rule string, sev finding.Severity, sources ...string) finding.Finding {
	return finding.Finding{Rule: rule, Severity: sev, Sources: sources,
		Locations: []finding.Location{{File: "/tmp/x/" + RelPath, Line: line, Function: "main.f"}}}
}

// TestJudge: each cause once with enough sources is OK; a second finding
// at a cause, a lone source where two can see it, a rule of another family
// at the line, and warnings in the healthy handlers are all told apart.
func TestJudge(t *testing.T) {
	cs, err := Causes()
	if err != nil {
		t.Fatal(err)
	}
	line := map[string]int{}
	for _, c := range cs {
		line[c.Name] = c.Line
	}
	good := []finding.Finding{
		at(line["busy-select"], "SD204", finding.Critical, "lint", "profile", "trace"),
		at(line["poll"], "SD307", finding.Warning, "lint", "trace"),
		at(line["leak"], "SD701", finding.Warning), // one source: no Sources
		at(line["poll"], "SD304", finding.Info),    // info, another family: ignored
	}
	v, err := Judge(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Causes {
		if !c.OK() {
			t.Errorf("%s: %s (%+v)", c.Name, c.Problem(), c)
		}
	}
	if len(v.Healthy) != 0 || len(v.Others) != 0 {
		t.Errorf("healthy %v, others %v; want none", v.Healthy, v.Others)
	}

	bad := []finding.Finding{
		at(line["busy-select"], "SD204", finding.Critical, "profile"),
		at(line["busy-select"], "SD308", finding.Warning, "trace"),
		at(line["poll"], "SD307", finding.Warning, "trace"),
		at(line["leak"]+1, "SD701", finding.Warning),
		at(line["leak"], "SD309", finding.Warning, "goroutines"), // a lock finding at the leak's line is not the leak
		{Rule: "SD204", Severity: finding.Warning, Locations: []finding.Location{{File: RelPath, Line: 999, Function: "main.handleHash"}}},
	}
	v, err = Judge(bad)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"busy-select": "2 findings, not one", "poll": "1 source(s), want 2", "leak": "not found"}
	for _, c := range v.Causes {
		if got := c.Problem(); got != want[c.Name] || c.OK() {
			t.Errorf("%s: problem %q, want %q", c.Name, got, want[c.Name])
		}
	}
	if len(v.Healthy) != 1 || v.Healthy[0] != "SD204 at main.handleHash" {
		t.Errorf("healthy = %v; want the SD204 in handleHash", v.Healthy)
	}
	if len(v.Others) != 3 { // the misplaced SD701, the SD309, the handler's SD204
		t.Errorf("others = %v; want 3", v.Others)
	}
}

// TestStartStop starts the service, calls its handlers and pprof, and
// checks that Stop leaves no process behind.
func TestStartStop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab service")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("building the lab service needs the go command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := WriteModule(dir); err != nil {
		t.Fatal(err)
	}
	bin, err := Build(ctx, dir, filepath.Join(dir, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := Start(ctx, bin, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	pid := svc.PID()
	defer svc.Stop()
	resp, err := http.Get(svc.PProf + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("pprof answered %s", resp.Status)
	}
	loadCtx, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	var load Load
	Drive(loadCtx, svc.App, &load)
	if load.Requests.Load() < int64(len(Paths)) || load.Errors.Load() != 0 {
		t.Errorf("drove %d requests with %d errors; want one per path at least and none failing", load.Requests.Load(), load.Errors.Load())
	}
	svc.Stop()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("pid %d still exists after Stop", pid)
	}
}

// TestStartBadBinary: a program that never prints the addresses is an
// error naming what it printed, not a hang.
func TestStartBadBinary(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake")
	if err := os.WriteFile(fake, []byte("#!"+sh+"\necho 'not an address' ; echo oops >&2; exit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), fake, time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not print its addresses") || !strings.Contains(err.Error(), "oops") {
		t.Errorf("err = %v; want one saying the addresses were not printed, with the stderr", err)
	}
}
