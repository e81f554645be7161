package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// goroutinesFixtures is the goroutines package's testdata (recorded dumps,
// testdata/README.md there), absolute: runIn changes directory into it.
var goroutinesFixtures, _ = filepath.Abs(filepath.Join("..", "..", "goroutines", "testdata"))

// TestGoroutinesGolden runs the recorded dumps and profiles in text and
// JSON and compares exit code, stderr and stdout with
// testdata/goroutines/<case>.golden.<format>.
func TestGoroutinesGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		rules []string // in finding.Sort order
	}{
		{"leak-growth", []string{"leak-start.debug2.txt", "leak-end.debug2.txt"}, ExitFindings, []string{"SD701"}},
		{"leak-age", []string{"-window", "1m", "leak-end.debug2.txt"}, ExitFindings, []string{"SD701"}},
		{"leak-young", []string{"leak-end.debug2.txt"}, ExitClean, nil},
		{"leak-proto", []string{"leak-start.pb.gz", "leak-end.pb.gz"}, ExitFindings, []string{"SD701"}},
		{"leakprofile", []string{"leakprof-end.goroutineleak.pb.gz"}, ExitFindings, []string{"SD701"}},
		{"healthy", []string{"-window", "1m", "healthy-start.debug2.txt", "healthy-end.debug2.txt"}, ExitClean, nil},
		{"pool", []string{"-window", "1m", "-top", "5", "pool-start.debug2.txt", "pool-end.debug2.txt"}, ExitClean, nil},
		{"contention", []string{"-duration", "5s", "../../contention/testdata/mutex.mutex.pb.gz", "../../contention/testdata/mutex.block.pb.gz",
			"../../contention/testdata/light.block.pb.gz", "../../contention/testdata/none.mutex.pb.gz"}, ExitFindings, []string{"SD309", "SD309"}},
		{"not-a-dump", []string{"README.md"}, ExitError, nil},
		{"three-dumps", []string{"leak-start.debug2.txt", "leak-end.debug2.txt", "pool-end.debug2.txt"}, ExitError, nil},
		{"window-too-short", []string{"-window", "30s", "leak-end.debug2.txt"}, ExitError, nil},
		{"missing", []string{"nosuch.txt"}, ExitError, nil},
	} {
		for _, format := range []string{"text", "json"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				args := append([]string{"goroutines"}, tc.args...)
				if format == "json" {
					args = append([]string{"goroutines", "-json"}, tc.args...)
				}
				code, stdout, stderr := runIn(t, goroutinesFixtures, args...)
				got := fmt.Sprintf("exit %d\n--- stderr\n%s--- stdout\n%s", code, stderr, stdout)
				checkGolden(t, filepath.Join("goroutines", tc.name+".golden."+format), got)
				if code != tc.code {
					t.Errorf("exit %d, want %d; stderr %s", code, tc.code, stderr)
				}
				if format != "json" || code == ExitError {
					return
				}
				var out struct {
					Source   string            `json:"source"`
					Findings []finding.Finding `json:"findings"`
					Summary  map[string]any    `json:"summary"`
				}
				if err := json.Unmarshal([]byte(stdout), &out); err != nil || out.Source != "goroutines" || len(out.Summary) == 0 {
					t.Fatalf("JSON contract: %v, source %q, summary %v", err, out.Source, out.Summary)
				}
				var rules []string
				for _, f := range out.Findings {
					rules = append(rules, f.Rule)
					if len(f.Locations) == 0 || !finding.UserFunction(f.Locations[0].Function) {
						t.Errorf("%s not at a user frame: %v", f.Rule, f.Locations)
					}
				}
				if strings.Join(rules, ",") != strings.Join(tc.rules, ",") {
					t.Errorf("rules %v, want %v", rules, tc.rules)
				}
			})
		}
	}
}

// TestGoroutinesStdin reads a dump from stdin.
func TestGoroutinesStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(goroutinesFixtures, "leakprof-end.goroutineleak.debug1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, string(data), "goroutines", "-")
	if code != ExitFindings || !strings.Contains(stdout, "1300 goroutines leak parked at main.go:61") {
		t.Errorf("exit %d, stderr %s, stdout %s", code, stderr, stdout)
	}
}

// TestGoroutinesURLs fetches two dumps and a mutex profile over loopback:
// the dumps are asked for with debug=2 and stamped, the mutex profile as a
// delta, and a 404 names the endpoint.
func TestGoroutinesURLs(t *testing.T) {
	start, _ := os.ReadFile(filepath.Join(goroutinesFixtures, "leak-start.debug2.txt"))
	end, _ := os.ReadFile(filepath.Join(goroutinesFixtures, "leak-end.debug2.txt"))
	mutex, _ := os.ReadFile(filepath.Join("..", "..", "contention", "testdata", "mutex.mutex.pb.gz"))
	n := 0
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.Path+"?"+r.URL.RawQuery)
		switch r.URL.Path {
		case "/debug/pprof/goroutine":
			n++
			if n == 1 {
				w.Write(start)
			} else {
				w.Write(end)
			}
		case "/debug/pprof/mutex":
			w.Write(mutex)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	u := srv.URL + "/debug/pprof/goroutine"
	code, stdout, stderr := run(t, "", "goroutines", "-json", "-seconds", "3", "-interval", "1s", u, u, srv.URL+"/debug/pprof/mutex")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"/debug/pprof/goroutine?debug=2", "/debug/pprof/goroutine?debug=2", "/debug/pprof/mutex?seconds=3"}
	if strings.Join(queries, " ") != strings.Join(want, " ") {
		t.Errorf("requests %v, want %v", queries, want)
	}
	if !strings.Contains(stdout, `"rule": "SD701"`) || !strings.Contains(stdout, `"between_seconds"`) {
		t.Errorf("stdout: %.2000s", stdout)
	}
	code, _, stderr = run(t, "", "goroutines", srv.URL+"/debug/pprof/goroutineleak")
	if code != ExitError || !strings.Contains(stderr, "/debug/pprof/goroutineleak?debug=2: server answered 404") {
		t.Errorf("404: exit %d, %s", code, stderr)
	}
}

// Two dump URLs are taken -interval apart (they were taken at once, and
// showed no growth whatever leaked); dumps that show no gap are said to.
func TestGoroutinesInterval(t *testing.T) {
	start, _ := os.ReadFile(filepath.Join(goroutinesFixtures, "leak-start.debug2.txt"))
	end, _ := os.ReadFile(filepath.Join(goroutinesFixtures, "leak-end.debug2.txt"))
	var mu sync.Mutex
	var times []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		n := len(times)
		mu.Unlock()
		if r.URL.Path == "/debug/pprof/goroutineleak" {
			http.NotFound(w, r)
			return
		}
		if n == 1 {
			w.Write(start)
		} else {
			w.Write(end)
		}
	}))
	defer srv.Close()
	u := srv.URL + "/debug/pprof/goroutine"
	gap := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		defer func() { times = nil }()
		if len(times) != 2 {
			t.Fatalf("%d requests, want 2", len(times))
		}
		return times[1].Sub(times[0])
	}

	code, stdout, stderr := run(t, "", "goroutines", "-interval", "1200ms", u, u)
	if g := gap(); g < 1200*time.Millisecond {
		t.Errorf("-interval 1200ms: the dumps were asked for %v apart", g)
	}
	if code != ExitFindings || !strings.Contains(stdout, "SD701") || !strings.Contains(stderr, "taking the second dump in 1s (-interval)") || strings.Contains(stderr, "growth needs time, so") {
		t.Errorf("-interval 1200ms: exit %d, stderr %q", code, stderr)
	}

	_, _, stderr = run(t, "", "goroutines", "-interval", "0", u, u)
	gap()
	if !strings.Contains(stderr, "apart: growth needs time") {
		t.Errorf("-interval 0: no word on the missing gap; stderr %q", stderr)
	}

	// Files: the same dump twice, or proto dumps that record one moment.
	f := filepath.Join(goroutinesFixtures, "leak-end.debug2.txt")
	_, _, stderr = run(t, "", "goroutines", f, f)
	if !strings.Contains(stderr, "hold the same dump: growth needs time") {
		t.Errorf("one file twice: stderr %q", stderr)
	}
	p := filepath.Join(goroutinesFixtures, "leak-end.pb.gz")
	_, _, stderr = run(t, "", "goroutines", p, p)
	if !strings.Contains(stderr, "taken 0s apart: growth needs time") {
		t.Errorf("one proto twice: stderr %q", stderr)
	}
	// Close negatives: two dumps of a real window say nothing of it.
	for _, pair := range [][2]string{{"leak-start.debug2.txt", "leak-end.debug2.txt"}, {"leak-start.pb.gz", "leak-end.pb.gz"}} {
		_, _, stderr = run(t, "", "goroutines", filepath.Join(goroutinesFixtures, pair[0]), filepath.Join(goroutinesFixtures, pair[1]))
		if strings.Contains(stderr, "growth needs time") {
			t.Errorf("%v: %q", pair, stderr)
		}
	}
	// The leak profile needs no second moment: no wait before or after it.
	t0 := time.Now()
	run(t, "", "goroutines", u, srv.URL+"/debug/pprof/goroutineleak")
	if el := time.Since(t0); el > 5*time.Second {
		t.Errorf("a dump and the leak profile took %v: waited for an interval", el)
	}
	times = nil
	if code, _, stderr := run(t, "", "goroutines", "-interval", "-1s", u); code != ExitError || !strings.Contains(stderr, "-interval") {
		t.Errorf("-interval -1s: exit %d, %q", code, stderr)
	}
}
