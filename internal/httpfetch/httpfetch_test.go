package httpfetch

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// server answers on loopback; its handlers are the cases below.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	data := bytes.Repeat([]byte("goroutine 1 [running]:\n"), 100) // 2300 bytes, past the peek
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { w.Write(data) })
	mux.HandleFunc("/tiny", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("go")) })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/401", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) })
	mux.HandleFunc("/403", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) })
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "profiling already in progress\nsecond line", 500)
	})
	mux.HandleFunc("/500-escape", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "\x1b[2J\u202egone", 500)
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Sign in - Corp SSO</title></head><body>…</body></html>")
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "  <html>pprof index</html>") // no Content-Type: Go sniffs text/html
	})
	mux.HandleFunc("/mislabelled", func(w http.ResponseWriter, r *http.Request) {
		// A proxy that labels everything text/html: the data is no markup.
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0})
	})
	mux.HandleFunc("/xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "<?xml version=\"1.0\"?><data/>")
	})
	mux.HandleFunc("/length", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		w.Write(make([]byte, 5000))
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Length: the limit must hold while reading.
		for range 5 {
			w.Write(make([]byte, 1000))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Write(data)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	cut := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			// Announce more than is sent, then drop the connection: a
			// target dying mid-body.
			w.Header().Set("Content-Length", "2500") // under the tests' limit
			w.Write(data[:n])
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}
	mux.HandleFunc("/cut-early", cut(100)) // inside the peek
	mux.HandleFunc("/cut-late", cut(2000)) // after it
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func parse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// fetchAll is how a caller uses Get: read the body, map the error.
func fetchAll(ctx context.Context, u *url.URL, opt Options) ([]byte, error) {
	resp, err := Get(ctx, u, opt)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	data, err := io.ReadAll(resp.Body)
	return data, resp.Err(err)
}

func TestOK(t *testing.T) {
	srv := server(t)
	for _, tc := range []struct {
		path string
		want int
	}{{"/ok", 2300}, {"/tiny", 2}, {"/empty", 0}, {"/mislabelled", 6}, {"/xml", 28}} {
		// The peek must not lose bytes, under or over its size.
		data, err := fetchAll(context.Background(), parse(t, srv.URL+tc.path), Options{Limit: 2300, Timeout: 10 * time.Second})
		if err != nil || len(data) != tc.want {
			t.Errorf("%s: %d bytes, %v; want %d bytes", tc.path, len(data), err, tc.want)
		}
	}
	// An answer of exactly the limit is accepted, one byte less is not.
	if _, err := fetchAll(context.Background(), parse(t, srv.URL+"/ok"), Options{Limit: 2299}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2300 bytes at a limit of 2299: %v, want ErrTooLarge", err)
	}
}

func TestErrors(t *testing.T) {
	srv := server(t)
	opt := Options{Limit: 3000, Timeout: 10 * time.Second, Expect: "/debug/pprof/goroutine", What: "a goroutine dump"}
	for _, tc := range []struct {
		path   string
		opt    func(*Options)
		status int
		is     error
		want   []string
	}{
		{"/401", nil, 401, ErrStatus, []string{"server answered 401 Unauthorized: the endpoint needs credentials; schedoctor sends none"}},
		{"/403", nil, 403, ErrStatus, []string{"server answered 403 Forbidden: the endpoint needs credentials"}},
		{"/nosuch", nil, 404, ErrStatus, []string{`server answered 404 Not Found ("404 page not found"); is this a /debug/pprof/goroutine endpoint? does the service mount net/http/pprof at this path?`}},
		{"/500", nil, 500, ErrStatus, []string{`server answered 500 Internal Server Error ("profiling already in progress"); is this a /debug/pprof/goroutine endpoint?`}},
		{"/500", func(o *Options) { o.Expect = "" }, 500, ErrStatus, []string{`Internal Server Error ("profiling already in progress")`}},
		{"/nosuch", func(o *Options) { o.Expect = "" }, 404, ErrStatus, []string{`server answered 404 Not Found ("404 page not found"); does the service mount net/http/pprof at this path?`}},
		// A caller whose endpoint is not pprof's gives its own hint.
		{"/nosuch", func(o *Options) { o.Expect, o.NotFound = "", "is this Prometheus's base URL?" }, 404, ErrStatus, []string{`server answered 404 Not Found ("404 page not found"); is this Prometheus's base URL?`}},
		{"/500-escape", nil, 500, ErrStatus, []string{`("?[2J?gone")`}},
		{"/login", nil, 200, ErrHTML, []string{`answer is an HTML page ("Sign in - Corp SSO"), not a goroutine dump: a login page or a proxy?`}},
		{"/sniffed", func(o *Options) { o.What = "" }, 200, ErrHTML, []string{`answer is an HTML page ("<html>pprof index</html>"), not pprof data`}},
		{"/length", nil, 200, ErrTooLarge, []string{"answer of 5000 bytes is larger than the limit of 3000 bytes"}},
		{"/stream", nil, 200, ErrTooLarge, []string{"answer larger than the limit of 3000 bytes"}},
		{"/slow-headers", func(o *Options) { o.Timeout = 200 * time.Millisecond }, 0, context.DeadlineExceeded, []string{"no answer within 200ms"}},
		{"/slow-body", func(o *Options) { o.Timeout = 2 * time.Second; o.Limit = 0 }, 200, context.DeadlineExceeded, []string{"answer not complete within 2s"}},
		{"/cut-early", nil, 200, ErrCut, []string{"answer cut after 100 bytes (did the target die?)"}},
		{"/cut-late", nil, 200, ErrCut, []string{"answer cut after 2000 bytes (did the target die?)"}},
	} {
		o := opt
		if tc.opt != nil {
			tc.opt(&o)
		}
		u := parse(t, srv.URL+tc.path)
		_, err := fetchAll(context.Background(), u, o)
		if err == nil {
			t.Errorf("%s: no error", tc.path)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, u.String()+": ") {
			t.Errorf("%s: %q does not start with the URL", tc.path, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q\nwant it to say %q", tc.path, msg, w)
			}
		}
		if Status(err) != tc.status || !errors.Is(err, tc.is) {
			t.Errorf("%s: status %d, errors.Is(%v) %v; want %d, true", tc.path, Status(err), tc.is, errors.Is(err, tc.is), tc.status)
		}
		for _, r := range msg {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Errorf("%s: raw control character %U in %q", tc.path, r, msg)
			}
		}
	}
}

// TestCredentialsRedacted: a password in the URL is never printed, on any
// path, and a refusal says the credentials were sent.
func TestCredentialsRedacted(t *testing.T) {
	srv := server(t)
	for _, path := range []string{"/401", "/nosuch", "/500", "/login", "/length", "/stream", "/cut-late", "/slow-headers"} {
		u := parse(t, srv.URL+path)
		u.User = url.UserPassword("ops", "s3cret-pw")
		_, err := fetchAll(context.Background(), u, Options{Limit: 3000, Timeout: 300 * time.Millisecond})
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "ops:xxxxx@") {
			t.Errorf("%s: %v; want an error naming the URL with the password redacted", path, err)
		}
		if path == "/401" && !strings.Contains(err.Error(), "it refused the credentials in the URL") {
			t.Errorf("401 with credentials: %v", err)
		}
	}
	// A network error: *url.Error would repeat the URL.
	u := parse(t, "http://ops:s3cret-pw@127.0.0.1:1/debug/pprof/profile")
	_, err := Get(context.Background(), u, Options{Timeout: 5 * time.Second})
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") || strings.Count(err.Error(), "127.0.0.1:1/") != 1 {
		t.Errorf("refused connection: %v; want the redacted URL once", err)
	}
}

// TestCallerCancel: the caller's own cancellation or deadline is not
// reported as Options.Timeout.
func TestCallerCancel(t *testing.T) {
	srv := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := fetchAll(ctx, parse(t, srv.URL+"/slow-headers"), Options{Timeout: time.Hour})
	if err == nil || strings.Contains(err.Error(), "within") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: %v; want context.DeadlineExceeded without our timeout's words", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	resp, err := Get(ctx, parse(t, srv.URL+"/slow-body"), Options{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	cancel()
	_, err = io.ReadAll(resp.Body)
	if err = resp.Err(err); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "cut") {
		t.Errorf("caller's cancel mid-body: %v; want context.Canceled", err)
	}
}

// TestErrMapping: Response.Err keeps a reader's own limit error, and
// replaces a reader's words for a cut answer with the fetch's.
func TestErrMapping(t *testing.T) {
	srv := server(t)
	resp, err := Get(context.Background(), parse(t, srv.URL+"/stream"), Options{Limit: 3000})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	// A reader with its own check reads limit+1 bytes and says so itself.
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, 3001))
	own := fmt.Errorf("over the bytes limit of 3000")
	if len(data) != 3001 || !errors.Is(rerr, ErrTooLarge) || resp.Err(own) != own {
		t.Errorf("read %d bytes, %v; Err(own) = %v; want 3001 bytes, ErrTooLarge, and the reader's error kept", len(data), rerr, resp.Err(own))
	}
	if got := resp.Err(fmt.Errorf("reading: %w", rerr)); got.Error() != rerr.Error() {
		t.Errorf("Err of a wrapped limit error = %q, want the fetch's %q", got, rerr)
	}

	resp, err = Get(context.Background(), parse(t, srv.URL+"/cut-late"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	_, rerr = io.ReadAll(resp.Body)
	if got := resp.Err(errors.New("truncated gzip data")); !errors.Is(got, ErrCut) || got.Error() != rerr.Error() {
		t.Errorf("Err after a cut = %v, want %v", got, rerr)
	}
	if resp.Err(nil) != nil {
		t.Error("Err(nil) != nil")
	}
}

func TestIsHTML(t *testing.T) {
	for _, tc := range []struct {
		head, ct string
		want     bool
	}{
		{"<!DOCTYPE html><html>", "", true},
		{"\xef\xbb\xbf\n <HTML>", "", true},
		{"<title>x</title>", "text/plain", true},
		{"<div>x</div>", "text/html; charset=utf-8", true},
		{"<div>x</div>", "text/plain", false}, // markup of no page, no HTML label: the parser judges
		{"\x1f\x8b\x08", "text/html", false},
		{"goroutine 1 [running]:", "text/html", false},
		{"go 1.26 trace\x00", "application/octet-stream", false},
		{`{"source":"live"}`, "text/html", false},
		{"", "text/html", false},
	} {
		if got := isHTML([]byte(tc.head), tc.ct); got != tc.want {
			t.Errorf("isHTML(%q, %q) = %v, want %v", tc.head, tc.ct, got, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"http://127.0.0.1:6060/debug/pprof/profile", ""},
		{"https://h/x", ""},
		{"ftp://u:pw@h/x", "ftp://u:xxxxx@h/x: not an http(s) URL"},
		{"http:///nohost", "not an http(s) URL"},
		{"http://u:pw@h:bad port/x", "http://xxxxx@h:bad port/x: not an http(s) URL"},
		{"localhost:6060", "not an http(s) URL"},
		// User info where url.URL.Redacted does not look (issue 19).
		{"http:/ops:pw@127.0.0.1:6060/", "http:/xxxxx@127.0.0.1:6060/: not an http(s) URL"},
		{"unix:///ops:pw@x", "unix:///xxxxx@x: not an http(s) URL"},
		{"gopher:ops:pw@h", "xxxxx@h: not an http(s) URL"},
	} {
		_, err := ParseURL(tc.raw)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "pw")) {
			t.Errorf("ParseURL(%q) = %v, want %q", tc.raw, err, tc.want)
		}
	}
}

// FuzzParseURL: no input panics, and a password given where a URL's user
// info goes (after "//", or at the start without a scheme, before the
// first "/") never appears in the error.
func FuzzParseURL(f *testing.F) {
	f.Add("http://ops:s3cret@127.0.0.1:6060/debug/pprof/profile")
	f.Add("http://ops:s3cret@[::1/x")
	f.Add("ftp://ops:s3cret@host/")
	f.Fuzz(func(t *testing.T, raw string) {
		_, err := ParseURL(raw)
		auth := raw
		if i := strings.Index(auth, "//"); i >= 0 {
			auth = auth[i+2:]
		}
		auth, _, _ = strings.Cut(auth, "/")
		if err == nil || !strings.Contains(auth, ":s3cret@") {
			return
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("ParseURL(%q): the password is in the error %q", raw, err)
		}
	})
}

// TestTrickleStalls: a target that sends its headers and then a byte a
// second is dropped after the idle timeout, long before the deadline, and
// said to stall; a body that keeps bringing ProgressBytes per idle
// timeout is read whole however long it takes.
func TestTrickleStalls(t *testing.T) {
	trickle := func(chunk int, every time.Duration, n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(200)
			for range n {
				if _, err := w.Write(bytes.Repeat([]byte("g"), chunk)); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(every):
				case <-r.Context().Done():
					return
				}
			}
		}
	}
	slow := httptest.NewServer(trickle(1, 50*time.Millisecond, 1000))
	defer slow.Close()
	start := time.Now()
	_, err := fetchAll(context.Background(), parse(t, slow.URL), Options{Timeout: time.Minute, IdleTimeout: 500 * time.Millisecond})
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("a trickle held the fetch %v; want about the idle timeout", el)
	}
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "stalled") {
		t.Errorf("trickle: %v; want ErrStalled", err)
	}
	// 1 KiB every 100ms for 1.5s: slower than the idle timeout in total,
	// but never idle.
	steady := httptest.NewServer(trickle(ProgressBytes, 100*time.Millisecond, 15))
	defer steady.Close()
	data, err := fetchAll(context.Background(), parse(t, steady.URL), Options{Timeout: time.Minute, IdleTimeout: 500 * time.Millisecond})
	if err != nil || len(data) != 15*ProgressBytes {
		t.Errorf("steady body: %d bytes, %v; want it whole", len(data), err)
	}
	// A caller that works between reads longer than the idle timeout:
	// the target sent everything, nothing stalled.
	resp, err := Get(context.Background(), parse(t, steady.URL), Options{Timeout: time.Minute, IdleTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	n := 0
	buf := make([]byte, 512)
	for {
		k, err := resp.Body.Read(buf)
		n += k
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("slow caller after %d bytes: %v", n, resp.Err(err))
		}
		if n < 3*ProgressBytes {
			time.Sleep(400 * time.Millisecond) // the caller's own work
		}
	}
	if n != 15*ProgressBytes {
		t.Errorf("slow caller read %d bytes", n)
	}
}

// TestRedirectRule: every Get, with no client or a client without its
// own rule, follows a redirect on the same host:port and refuses one to
// another port (another httptest server on 127.0.0.1), which is never
// contacted.
func TestRedirectRule(t *testing.T) {
	var hits int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/x", http.StatusFound) })
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/data", http.StatusFound) })
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "goroutine 1 [running]:\n") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, c := range []*http.Client{nil, {Timeout: time.Minute}} {
		_, err := fetchAll(context.Background(), parse(t, srv.URL+"/away"), Options{Client: c})
		if !errors.Is(err, ErrRedirect) {
			t.Errorf("redirect to another port: %v; want ErrRedirect", err)
		}
		if data, err := fetchAll(context.Background(), parse(t, srv.URL+"/here"), Options{Client: c}); err != nil || len(data) == 0 {
			t.Errorf("redirect on the same host: %q, %v", data, err)
		}
	}
	if hits != 0 {
		t.Errorf("the other port was contacted %d times", hits)
	}
}

// TestEchoedCredentialsRedacted: a target that echoes the request's
// Authorization header (or the password) in its error body or login page
// gets it redacted from the error.
func TestEchoedCredentialsRedacted(t *testing.T) {
	echo := func(code int, ct string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(code)
			pw, _ := r.URL.User.Password()
			fmt.Fprintf(w, "<title>bad request: Authorization: %s pw=%s</title>\n", r.Header.Get("Authorization"), pw)
		}
	}
	for _, tc := range []struct {
		code int
		ct   string
	}{{500, "text/plain"}, {400, "text/plain"}, {200, "text/html"}} {
		srv := httptest.NewServer(echo(tc.code, tc.ct))
		u := parse(t, srv.URL+"/debug/pprof/goroutine")
		u.User = url.UserPassword("ops", "s3cret-pw")
		_, err := fetchAll(context.Background(), u, Options{})
		srv.Close()
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") || strings.Contains(err.Error(), "b3BzOnMzY3JldC1wdw") {
			t.Errorf("%d: %v; want the echoed credentials redacted", tc.code, err)
		}
	}
	for in, want := range map[string]string{
		"Authorization: Basic dXNlcjpwdw== sent":    "Authorization: xxxxx",
		"proxy said: Bearer eyJhbGciOiJIUzI1NiJ9.x": "proxy said: Bearer xxxxx",
		"cookie=session=abc123":                     "cookie=xxxxx",
		"no secret here: basic plan":                "no secret here: basic plan",
	} {
		if got := Redact(in, nil); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPost: a POST API's request goes out with its method, body and
// headers, also after a 307 to the same host; its error body is kept for
// the caller, with the Authorization header's secrets replaced there and
// in the message.
func TestPost(t *testing.T) {
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/rpc", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Scope-OrgID")+" "+string(b))
		w.Write([]byte("answer"))
	})
	mux.HandleFunc("/denied", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		fmt.Fprintf(w, `{"code":"permission_denied","message":"%s is not allowed"}`, r.Header.Get("Authorization"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		_, pw, _ := r.BasicAuth()
		http.Error(w, "user with password "+pw+" unknown", 500)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h := http.Header{"Content-Type": {"application/proto"}, "X-Scope-Orgid": {"team-a"}, "Authorization": {"Bearer tok-12345"}}
	for _, path := range []string{"/rpc", "/moved"} {
		u, _ := url.Parse(srv.URL + path)
		resp, err := Get(context.Background(), u, Options{Method: http.MethodPost, Body: []byte("\x0a\x01x"), Header: h})
		if err != nil {
			t.Fatal(err)
		}
		resp.Close()
	}
	if want := "POST application/proto team-a \x0a\x01x"; len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("requests %q, want twice %q", got, want)
	}
	u, _ := url.Parse(srv.URL + "/denied")
	_, err := Get(context.Background(), u, Options{Method: http.MethodPost, Header: h})
	var fe *Error
	if !errors.As(err, &fe) || fe.Status != 403 {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(err.Error(), "refused the credentials given") || strings.Contains(err.Error()+string(fe.Body), "tok-12345") ||
		!strings.Contains(string(fe.Body), `"code":"permission_denied"`) {
		t.Errorf("error %q, body %q", err, fe.Body)
	}
	u, _ = url.Parse(srv.URL + "/echo")
	basic := http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("ops:s3cret!"))}}
	_, err = Get(context.Background(), u, Options{Header: basic})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "password xxxxx unknown") {
		t.Errorf("error %v", err)
	}
}
