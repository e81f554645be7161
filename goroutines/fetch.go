package goroutines

import (
	"context"
	"net/http"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
)

// DefaultFetchTimeout bounds one dump's download: debug=2 stops the world
// only while the stacks are copied, and 100k goroutines take well under a
// second, so a slow answer is a stuck target.
const DefaultFetchTimeout = 30 * time.Second

// FetchOptions tune Fetch. The zero value fetches debug=2 with
// DefaultFetchTimeout and the default size cap.
type FetchOptions struct {
	Timeout time.Duration // 0 means DefaultFetchTimeout
	Client  *http.Client  // nil means http.DefaultClient
	Read    ReadOptions
	// Now stamps the dump; nil means time.Now. Tests inject it.
	Now func() time.Time
}

// Fetch downloads a dump from a /debug/pprof/goroutine (or goroutineleak)
// URL, asking for debug=2 unless the URL names a debug level, and stamps it
// with the time of the answer so that two fetched dumps give the window.
func Fetch(ctx context.Context, rawURL string, opt FetchOptions) (*Dump, error) {
	u, err := httpfetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if q := u.Query(); q.Get("debug") == "" {
		q.Set("debug", "2")
		u.RawQuery = q.Encode()
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{
		Client: opt.Client, Timeout: timeout, Limit: opt.Read.maxBytes(),
		Expect: "/debug/pprof/goroutine", What: "a goroutine dump",
	})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	// The server wrote the dump when it sent the headers; Get has read
	// at most the first bytes since.
	taken := now()
	d, err := Read(resp.Context(), resp.Name, resp.Body, opt.Read)
	if err != nil {
		return nil, resp.Err(err)
	}
	if d.Time.IsZero() {
		d.Time = taken.UTC()
	}
	return d, nil
}
