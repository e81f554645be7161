package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
)

// labPprof serves the lab service's saved captures (testdata/check/lab)
// at the pprof endpoints, the goroutine profile (debug=0) being this
// process's.
func labPprof(t *testing.T) *httptest.Server {
	t.Helper()
	files := map[string]string{
		"/debug/pprof/profile": "profile.pb.gz", "/debug/pprof/trace": "trace.out",
		"/debug/pprof/mutex": "mutex.pb.gz", "/debug/pprof/block": "block.pb.gz",
	}
	dumps := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := files[r.URL.Path]
		if r.URL.Path == "/debug/pprof/goroutine" {
			if r.URL.Query().Get("debug") == "0" {
				pprof.Lookup("goroutine").WriteTo(w, 0)
				return
			}
			name = map[bool]string{true: "goroutine-start.txt", false: "goroutine-end.txt"}[dumps == 0]
			dumps++
		}
		if name == "" {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata/check/lab", name))
		if err != nil {
			t.Error(err)
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// promWith answers /api/v1/targets with the targets given as JSON objects.
func promWith(t *testing.T, targets ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/targets" || r.URL.Query().Get("scrapePool") == "" {
			http.Error(w, `{"status":"error","errorType":"bad_data","error":"test: unfiltered"}`, 400)
			return
		}
		fmt.Fprintf(w, `{"status":"success","data":{"activeTargets":[%s],"droppedTargets":[]}}`, strings.Join(targets, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func promTargetJSON(job, base, health, lastError string) string {
	host := strings.TrimPrefix(base, "http://")
	return fmt.Sprintf(`{"discoveredLabels":{"__address__":%q,"job":%q},"labels":{"instance":%q,"job":%q},"scrapePool":%q,"scrapeUrl":%q,"globalUrl":%q,"lastError":%q,"lastScrape":"2026-11-27T00:00:00Z","lastScrapeDuration":0.001,"health":%q,"scrapeInterval":"1s","scrapeTimeout":"1s"}`,
		host, job, host, job, job, base+"/metrics", base+"/metrics", lastError, health)
}

// TestCheckPrometheus: one command checks the job's targets; -json gives
// one object whose summary lists every target with its own findings, and
// the findings across targets name the one that spins.
func TestCheckPrometheus(t *testing.T) {
	lab := labPprof(t)
	prom := promWith(t,
		promTargetJSON("svc", lab.URL, "up", ""),
		promTargetJSON("svc", "http://10.9.9.9:8080", "down", "connection refused"))
	code, stdout, stderr := run(t, "", "check", "-q", "-json", "-src", "../..", "-seconds", "1",
		"-prometheus", prom.URL, "-job", "svc")
	if code != ExitFindings {
		t.Fatalf("code %d\nstderr %s", code, stderr)
	}
	var r struct {
		Source   string `json:"source"`
		Findings []struct {
			Rule string `json:"rule"`
			What string `json:"what"`
		} `json:"findings"`
		Summary struct {
			Job     string `json:"job"`
			Checked int    `json:"checked"`
			Skipped int    `json:"skipped"`
			Targets []struct {
				Instance string `json:"instance"`
				Status   string `json:"status"`
				Reason   string `json:"reason"`
				Pprof    string `json:"pprof"`
				Findings []struct {
					Rule string `json:"rule"`
				} `json:"findings"`
				Check *struct {
					Target string `json:"target"`
				} `json:"check"`
			} `json:"targets"`
			Causes []struct {
				Rule    string   `json:"rule"`
				Targets []string `json:"targets"`
			} `json:"causes"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	s := r.Summary
	if r.Source != "check" || s.Job != "svc" || s.Checked != 1 || s.Skipped != 1 || len(s.Targets) != 2 {
		t.Fatalf("source %q, summary %+v", r.Source, s)
	}
	host := strings.TrimPrefix(lab.URL, "http://")
	var checked, skipped = s.Targets[0], s.Targets[1]
	if checked.Instance != host {
		checked, skipped = skipped, checked
	}
	if checked.Status != "checked" || checked.Pprof != lab.URL || checked.Check == nil || len(checked.Findings) == 0 {
		t.Errorf("the lab target: %+v", checked)
	}
	if skipped.Status != "skipped" || !strings.Contains(skipped.Reason, "down: connection refused") || skipped.Findings == nil {
		t.Errorf("the down target: %+v (findings must be [], not null)", skipped)
	}
	found := false
	for _, f := range r.Findings {
		if f.Rule == "SD204" && strings.HasPrefix(f.What, "the one target of job svc at main.go:97 (main.consume), ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no SD204 across the targets at main.go:97: %+v", r.Findings)
	}
	if len(s.Causes) == 0 || s.Causes[0].Rule != "SD204" || s.Causes[0].Targets[0] != host {
		t.Errorf("causes %+v: want SD204 on %s first", s.Causes, host)
	}

	// The text form: every target on a line, the causes by cost; and the
	// HTML report with the finding across targets.
	html := filepath.Join(t.TempDir(), "fleet.html")
	code, stdout, _ = run(t, "", "check", "-q", "-wide", "-src", "../..", "-seconds", "1", "-html", html, "-prometheus", prom.URL, "-job", "svc")
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "the one target of job svc at main.go:97") {
		t.Errorf("-html: %v; the finding across targets not in the page", err)
	}
	for _, want := range []string{
		"check of job svc through Prometheus " + prom.URL + ": 2 target(s), 1 checked (0 clean), 1 skipped, 0 failed",
		"  10.9.9.9:8080   skipped: Prometheus reports it down: connection refused",
		"  " + host + " 2 finding(s): SD204 (critical), SD307",
		"causes, most costly first:\n  CRITICAL SD204 at main.go:97: 1 of 1 target(s), ",
		"SD204 runtime-busy-wait: the one target of job svc at main.go:97\n    (main.consume), ",
		"note: targets: " + host,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text: no %q in\n%s", want, stdout)
		}
	}
	if code != ExitFindings {
		t.Errorf("text: code %d", code)
	}
}

func TestCheckPrometheusErrors(t *testing.T) {
	empty := promWith(t)
	down := promWith(t, promTargetJSON("svc", "http://10.9.9.9:8080", "down", "refused"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-job", "svc", "http://127.0.0.1:1"}, "-job applies to a check through Prometheus"},
		{[]string{"-prometheus", empty.URL}, "-prometheus needs -job JOB"},
		{[]string{"-prometheus", empty.URL, "-job", "svc", "http://127.0.0.1:1"}, "give no URL or directory"},
		{[]string{"-prometheus", empty.URL, "-job", "svc", "-pid", "1"}, "-pid and -save apply to one target"},
		{[]string{"-prometheus", empty.URL, "-job", "svc", "-pprof-port", "6060", "-pprof-port-label", "x"}, "cannot be used together"},
		{[]string{"-prometheus", empty.URL, "-job", "svc", "-selector", "novalue"}, "-selector: selector \"novalue\": want label=value"},
		{[]string{"-prometheus", empty.URL, "-job", "svc", "-concurrency", "0"}, "-concurrency 0"},
		{[]string{"-prometheus", empty.URL, "-job", "svc"}, "lists no active target of job \"svc\""},
		{[]string{"-prometheus", down.URL, "-job", "svc"}, "none of the 1 target(s) of job \"svc\" could be checked: 1 skipped, 0 failed"},
		{[]string{"-prometheus", "ftp://x", "-job", "svc"}, "the Prometheus URL: ftp://x: not an http(s) URL"},
	} {
		code, _, stderr := run(t, "", append([]string{"check", "-q"}, tc.args...)...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
