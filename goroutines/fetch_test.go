package goroutines

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			if r.URL.Query().Get("debug") != "2" {
				http.Error(w, "want debug=2", http.StatusBadRequest)
				return
			}
			w.Write([]byte(handDump))
		case "/big":
			w.Header().Set("Content-Length", "1000")
			w.Write(make([]byte, 1000))
		case "/html":
			w.Write([]byte("<html>pprof index</html>"))
		case "/slow":
			<-block
		default:
			http.NotFound(w, r)
		}
	}))
	// Close waits for the handlers: release the slow one first.
	defer srv.Close()
	defer close(block)
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d, err := Fetch(ctx, srv.URL+"/ok", FetchOptions{Now: func() time.Time { return now }})
	if err != nil || d.Total != 6 || !d.Time.Equal(now) {
		t.Fatalf("ok: %v, %+v", err, d)
	}
	for _, tc := range []struct {
		path string
		opt  FetchOptions
		want string
	}{
		{"/big", FetchOptions{Read: ReadOptions{MaxBytes: 100}}, "larger than the limit of 100 bytes"},
		{"/html", FetchOptions{}, "not a goroutine dump"},
		{"/missing", FetchOptions{}, "server answered 404"},
		{"/slow", FetchOptions{Timeout: 100 * time.Millisecond}, "no answer within 100ms"},
	} {
		_, err := Fetch(ctx, srv.URL+tc.path, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: %v, want %q naming the URL", tc.path, err, tc.want)
		}
	}
	if _, err := Fetch(ctx, "ftp://x/y", FetchOptions{}); err == nil {
		t.Error("ftp URL accepted")
	}
}
