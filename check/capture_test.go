package check

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// badTarget serves every endpoint with h.
func run(t *testing.T, h http.HandlerFunc, opt Options) *Set {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	if opt.Seconds == 0 {
		opt.Seconds = 1
	}
	s, err := Run(context.Background(), srv.URL, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantAllFailed(t *testing.T, s *Set, substr string) {
	t.Helper()
	if s.Captured() != 0 {
		t.Fatalf("captured %d, want 0", s.Captured())
	}
	for _, c := range s.Captures {
		if c.Kind == KindLeak {
			continue // optional: a 404 there is "absent"
		}
		if c.Skipped != "" {
			// A full dump is not taken when the goroutine profile
			// before it failed: the count is unknown.
			if !strings.Contains(c.Skipped, "count is unknown") {
				t.Errorf("%s: skipped %q; want the unknown count as the reason", c.Kind, c.Skipped)
			}
			continue
		}
		if !strings.Contains(c.Error, substr) || !strings.Contains(c.Error, "/debug/pprof/") {
			t.Errorf("%s: error %q; want it to name the endpoint and say %q", c.Kind, c.Error, substr)
		}
	}
}

func TestBadTargets(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		h          http.HandlerFunc
	}{
		{"404", "404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{"401", "needs credentials", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }},
		{"403", "needs credentials", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) }},
		{"html", "HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>login</body></html>"))
		}},
		{"garbage", "not a pprof answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte("\x00\x01garbage bytes"))
		}},
		{"cut", "answer cut", func(w http.ResponseWriter, r *http.Request) {
			// Announce more than is sent, then drop the connection: a target dying mid-body.
			w.Header().Set("Content-Length", "100000")
			w.Write([]byte("goroutine 1 [running]:\n"))
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := run(t, tc.h, Options{Slack: 5 * time.Second})
			wantAllFailed(t, s, tc.want)
			if tc.name == "404" && !s.Get(KindLeak).Absent {
				t.Error("goroutineleak 404: want Absent")
			}
		})
	}
}

func TestSlowTargetTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	// Seconds is the profile's; the trace, mutex and block windows and the
	// slack bound the others: 7 fetches of at most ~1.2s.
	s, err := Run(context.Background(), srv.URL, Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, Slack: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("took %v; want each fetch bounded", el)
	}
	wantAllFailed(t, s, "no answer within")
}

func TestRedirectToOtherHostRefused(t *testing.T) {
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	s := run(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}, Options{})
	// httptest servers share 127.0.0.1 but not the port: the host differs.
	wantAllFailed(t, s, "redirect to another host refused")
	if n := hits.Load(); n != 0 {
		t.Errorf("the other host was contacted %d times", n)
	}
}

// TestCancelStopsProfile cancels mid-profile and checks that the target's
// CPU profile stopped: a new profile request succeeds at once instead of
// answering "cpu profiling already in use".
func TestCancelStopsProfile(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var profiling atomic.Bool
	done := make(chan *Set)
	go func() {
		s, _ := Run(ctx, srv.URL, Options{Seconds: 30, Log: func(f string, a ...any) {
			if strings.HasPrefix(f, "capturing") && a[0] == KindProfile {
				profiling.Store(true)
			}
		}})
		done <- s
	}()
	for !profiling.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the server is inside its 30s profile
	cancel()
	var s *Set
	select {
	case s = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of the cancel")
	}
	if c := s.Get(KindProfile); c == nil || c.Error == "" {
		t.Fatalf("profile capture: %+v; want an error after the cancel", c)
	}
	if c := s.Get(KindTrace); c == nil || !strings.Contains(c.Error, "not taken") {
		t.Errorf("trace after the cancel: %+v; want not taken", c)
	}
	// The server notices the disconnect and stops; give it a moment, then
	// a 1s profile must start (the runtime allows one CPU profile at a time).
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(srv.URL + "/debug/pprof/profile?seconds=1")
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 200)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("profile still running on the target 5s after the cancel: %s %q", resp.Status, body[:n])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBudgetAcrossCaptures: a target whose every answer is a gzip bomb
// (Content-Encoding: gzip, decoded by the transport to 3 MiB each) costs
// the check at most its byte budget in all, not 3 MiB per capture; what
// was not taken says so.
func TestBudgetAcrossCaptures(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write([]byte{0x1f, 0x8b}) // looks like a gzipped profile once decoded
	zw.Write(make([]byte, 3<<20))
	zw.Close()
	var mu sync.Mutex
	var reqs []string
	s := run(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path == DefaultLivePath {
			io.WriteString(w, `{"source": "live", "findings": [], "summary": {}}`)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	}, Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, Slack: 5 * time.Second, MaxTotalBytes: 3<<20 + 2, LivePath: DefaultLivePath})
	var held int64
	budget := false
	for _, c := range s.Captures {
		held += int64(len(c.Data))
		budget = budget || strings.Contains(c.Skipped, "budget") || strings.Contains(c.Error, "larger than the limit")
	}
	if held > 3<<20+2 {
		t.Errorf("the captures hold %d bytes, over the budget of %d", held, 3<<20+2)
	}
	if !budget {
		t.Errorf("no capture says the budget stopped it: %+v", s.Captures)
	}
	if live := s.Get(KindLive); live != nil && live.OK() {
		t.Errorf("the live monitor's JSON was read past the budget: %d bytes", len(live.Data))
	}
	t.Logf("%d requests, %d bytes held", len(reqs), held)
}

// TestStalledTargetAskedNothingMore: a target that sends its headers and
// then a byte every 100 ms is dropped after the idle timeout, and asked
// nothing more: one request, not nine captures of a minute each.
func TestStalledTargetAskedNothingMore(t *testing.T) {
	var n atomic.Int64
	start := time.Now()
	s := run(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(200)
		for range 600 {
			if _, err := w.Write([]byte{0x1f}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(100 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}, Options{Seconds: 1, Slack: time.Minute, IdleTimeout: 500 * time.Millisecond, LivePath: DefaultLivePath})
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("a trickling target held the check %v", el)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests; want the stalled one only", n.Load())
	}
	first := s.Captures[0]
	if !strings.Contains(first.Error, "stalled") {
		t.Errorf("first capture: %+v; want it stalled", first)
	}
	for _, c := range s.Captures[1:] {
		if !strings.Contains(c.Skipped, "stalled on "+first.Kind) {
			t.Errorf("%s: %+v; want not taken after the stall", c.Kind, c)
		}
	}
}

// TestEchoedCredentialsNotKept: a target that echoes the Authorization
// header schedoctor sent (from the URL's user info) in its error pages
// gets it redacted from the errors, the log and the saved manifest.
func TestEchoedCredentialsNotKept(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("debug") == "0" {
			w.Header().Set("Content-Type", "application/octet-stream")
			fmt.Fprintf(w, "not a profile; you sent Authorization: %s", r.Header.Get("Authorization"))
			return
		}
		http.Error(w, "denied: Authorization: "+r.Header.Get("Authorization"), 500)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://ops:s3cret-pw@", 1)
	var log strings.Builder
	s, err := Run(context.Background(), u, Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, Slack: 5 * time.Second,
		Log: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.Save(dir); err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	secret := base64.StdEncoding.EncodeToString([]byte("ops:s3cret-pw"))
	for name, text := range map[string]string{"log": log.String(), "manifest": string(manifest)} {
		if strings.Contains(text, "s3cret-pw") || strings.Contains(text, secret) {
			t.Errorf("%s holds the credentials:\n%s", name, text)
		}
	}
	if !strings.Contains(string(manifest), "Authorization: xxxxx") {
		t.Errorf("manifest does not show the redacted echo:\n%s", manifest)
	}
}

func TestHasScheme(t *testing.T) {
	for arg, want := range map[string]bool{
		"http://127.0.0.1:6060": true, "http:/127.0.0.1:6060/": true, "https:x": true, "ftp://h": true,
		"svn+ssh://h": true, "/tmp/chk": false, "chk": false, "./http:/x": false, "C:\\chk": false, "": false,
		"127.0.0.1:6060": false, "localhost:6060": true,
	} {
		if got := HasScheme(arg); got != want {
			t.Errorf("HasScheme(%q) = %v, want %v", arg, got, want)
		}
	}
}

// TestPathPrefix: pprof behind a path prefix, as the Kubernetes API
// server's pod proxy serves it (kubectl proxy, then
// /api/v1/namespaces/NS/pods/POD:PORT/proxy/debug/pprof/...): the base URL
// keeps the prefix, given with or without /debug/pprof, and every capture
// is asked under it.
func TestPathPrefix(t *testing.T) {
	const prefix = "/api/v1/namespaces/prod/pods/api-0:6060/proxy"
	pp := http.NewServeMux()
	pp.HandleFunc("/debug/pprof/", pprof.Index)
	pp.HandleFunc("/debug/pprof/profile", pprof.Profile)
	pp.HandleFunc("/debug/pprof/trace", pprof.Trace)
	var outside atomic.Int32
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, pp))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		outside.Add(1)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, base := range []string{srv.URL + prefix, srv.URL + prefix + "/debug/pprof/"} {
		s, err := Run(context.Background(), base, Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{KindProfile, KindTrace, KindGoroutineStartProto, KindMutex} {
			if c := s.Get(k); c == nil || !c.OK() {
				t.Errorf("%s: %s capture %+v; want it taken under the prefix", base, k, c)
			}
		}
	}
	// The live monitor's path is probed too (a guess, under the prefix as
	// well); nothing else is asked outside the prefix.
	if n := outside.Load(); n != 0 {
		t.Errorf("%d requests outside the prefix", n)
	}
}
