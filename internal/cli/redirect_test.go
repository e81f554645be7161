package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestURLRedirectsRefused: every command that fetches a URL follows the
// one redirect rule (internal/httpfetch.CheckRedirect), as check does: a
// target redirecting to another port is refused and the other port never
// contacted (issue 19: profile and goroutines followed it).
func TestURLRedirectsRefused(t *testing.T) {
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer srv.Close()
	for _, args := range [][]string{
		{"profile", "-seconds", "1", srv.URL + "/debug/pprof/profile"},
		{"goroutines", srv.URL + "/debug/pprof/goroutine"},
		{"check", "-q", "-seconds", "1", srv.URL},
	} {
		code, _, stderr := run(t, "", args...)
		if code != ExitError || !strings.Contains(stderr, "redirect to another host refused") {
			t.Errorf("%v: exit %d, stderr %s; want the redirect refused", args, code, stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other port was contacted %d times", n)
	}
}
