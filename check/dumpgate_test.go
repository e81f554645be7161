package check

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"strings"
	"sync"
	"testing"
)

// pprofService is a real net/http/pprof service on loopback whose every
// request is logged.
type pprofService struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string
}

func newPprofService(t *testing.T) *pprofService {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s := &pprofService{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.URL.RequestURI())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests lists the logged requests to path whose query holds q.
func (s *pprofService) requests(path, q string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.reqs {
		p, query, _ := strings.Cut(r, "?")
		if p == path && strings.Contains(query, q) {
			out = append(out, r)
		}
	}
	return out
}

// park starts n goroutines parked on a receive until the test ends.
func park(t *testing.T, n int) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { <-stop })
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
}

// leakSends is the leak: a goroutine per call that sends on a channel
// nobody receives from, until the test ends.
func leakSends(t *testing.T, n int) {
	t.Helper()
	ch := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			select {
			case ch <- i:
			case <-stop:
			}
		})
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
}

// TestNoFullDumpOfManyGoroutines is issue 19's "done when": a service
// with 50,000 goroutines gets no goroutine?debug=2 request (the server's
// own log says so), the summary says what was not taken and why, and the
// goroutine profiles still find the leak that grew during the check; with
// 500 goroutines the full dumps are taken.
func TestNoFullDumpOfManyGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("parks 50,000 goroutines and runs a check of a few seconds")
	}
	for _, tc := range []struct {
		parked int
		full   bool
	}{{50_000, false}, {500, true}} {
		t.Run(fmt.Sprintf("%d goroutines", tc.parked), func(t *testing.T) {
			srv := newPprofService(t)
			park(t, tc.parked)
			var leaked sync.Once
			opt := Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, Log: func(f string, a ...any) {
				if strings.HasPrefix(f, "capturing") && a[0] == KindProfile {
					// Between the two moments: a leak of 40 goroutines.
					leaked.Do(func() { leakSends(t, 40) })
				}
			}}
			s, err := Run(context.Background(), srv.URL, opt)
			if err != nil {
				t.Fatal(err)
			}
			full := srv.requests("/debug/pprof/goroutine", "debug=2")
			fullLeak := srv.requests("/debug/pprof/goroutineleak", "debug=2")
			if tc.full && len(full) != 2 || !tc.full && len(full)+len(fullLeak) != 0 {
				t.Errorf("%d goroutines: debug=2 requests %q %q", tc.parked, full, fullLeak)
			}
			if n := len(srv.requests("/debug/pprof/goroutine", "debug=0")); n != 2 {
				t.Errorf("%d goroutine profiles (debug=0) requested, want 2", n)
			}
			c := s.Get(KindGoroutineStartProto)
			if !c.OK() || c.Goroutines < tc.parked {
				t.Fatalf("start profile: %+v; want it to count at least %d", c, tc.parked)
			}
			res, err := Analyze(context.Background(), s, AnalyzeOptions{Release: true})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			res.Summary.WriteTextWidth(&text, 0)
			t.Logf("%s", text.String())
			skipped := strings.Contains(text.String(), "goroutine-start       not taken: ") &&
				strings.Contains(text.String(), "at or over the limit of 1000 for a full dump (debug=2)")
			if skipped == tc.full {
				t.Errorf("%d goroutines: the text says skipped=%v", tc.parked, skipped)
			}
			if !tc.full {
				if len(res.Summary.Skipped) < 2 || !strings.Contains(strings.Join(res.Summary.Dumps, " "), KindGoroutineEndProto) {
					t.Errorf("summary skipped %q, dumps compared %q", res.Summary.Skipped, res.Summary.Dumps)
				}
				found := false
				for _, f := range res.Findings {
					if f.Rule == "SD701" && len(f.Locations) > 0 && strings.Contains(f.Locations[0].Function, "leakSends") {
						found = true
					}
				}
				if !found {
					t.Errorf("no SD701 at leakSends from the two goroutine profiles: %+v", res.Findings)
				}
			}
			for _, c := range s.Captures {
				if c.Data != nil {
					t.Errorf("%s: raw bytes kept after Analyze with Release", c.Kind)
				}
			}
		})
	}
}
