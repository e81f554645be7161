package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
)

// TestPprofRedirectRefused: -pprof follows the one redirect rule of every
// fetch (issue 19): a redirect to another port is refused and the other
// port never contacted.
func TestPprofRedirectRefused(t *testing.T) {
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer srv.Close()
	_, err := get(context.Background(), srv.URL+"/debug/pprof/heap?debug=1")
	if !errors.Is(err, httpfetch.ErrRedirect) {
		t.Errorf("get: %v; want the redirect refused", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the other port was contacted %d times", hits.Load())
	}
}
