package goroutines

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
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
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: not an http(s) URL", rawURL)
	}
	if q := u.Query(); q.Get("debug") == "" {
		q.Set("debug", "2")
		u.RawQuery = q.Encode()
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := u.Redacted()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	client := opt.Client
	if client == nil {
		client = http.DefaultClient
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%s: no answer within %v (raise -timeout)", name, timeout)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	taken := now()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		first, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
		return nil, fmt.Errorf("%s: server answered %s (%s); is this a /debug/pprof/goroutine endpoint?", name, resp.Status, first)
	}
	limit := opt.Read.maxBytes()
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%s: answer of %d bytes is larger than the limit of %d bytes (raise -max-bytes)", name, resp.ContentLength, limit)
	}
	d, err := Read(name, resp.Body, opt.Read)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%s: answer not complete within %v (raise -timeout)", name, timeout)
		}
		return nil, err
	}
	if d.Time.IsZero() {
		d.Time = taken.UTC()
	}
	return d, nil
}
