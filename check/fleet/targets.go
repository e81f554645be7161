// Package fleet runs `schedoctor check` on every target of a job that
// Prometheus scrapes: it reads Prometheus's active targets (the HTTP API's
// GET /api/v1/targets, filtered by scrape pool on the server and by job
// and label selector here), derives each target's pprof address from its
// scrape URL, runs the single-target check (check.Run and check.Analyze)
// on each, a bounded number at a time and each under its own deadline,
// and joins the results across targets: the targets that share a cause
// (the same rule at the same line) make one finding, ranked by what the
// cause costs.
//
// Prometheus's answer, and every address in it, is remote input: the
// answer is bounded in size and time like any fetch (internal/httpfetch),
// a target's address must be an http(s) host and port with no
// credentials, and a connection to a link-local, multicast or unspecified
// address (a cloud's metadata service at 169.254.169.254) is refused
// whatever name led to it (TargetClient). A target never redirects the
// check elsewhere (httpfetch.CheckRedirect).
package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/textsafe"
)

// DefaultMaxTargetsBytes bounds Prometheus's answer. A target of a
// Kubernetes pod carries 60 or so discovered labels, 3 to 6 KB of JSON;
// 32 MiB holds several thousand such targets of one scrape pool, which is
// more than any check of a fleet asks (DefaultMaxTargets), and keeps a
// hostile or mistaken answer from filling memory.
const DefaultMaxTargetsBytes = 32 << 20

// DefaultMaxTargets is the most targets one run checks: a job with more
// is narrowed with a selector (a namespace, a version, a pod) rather than
// captured whole, which would cost every pod of it a profile and a trace.
const DefaultMaxTargets = 200

// DefaultTargetsTimeout bounds the read of Prometheus's targets.
const DefaultTargetsTimeout = 30 * time.Second

// Target is one active target of Prometheus, as read, and what the run
// did with it.
type Target struct {
	// Instance is the target's instance label (host:port of its scrape),
	// the name it is reported under; its scrape URL's host when it has none.
	Instance  string            `json:"instance"`
	ScrapeURL string            `json:"scrape_url"`
	Labels    map[string]string `json:"labels"`
	// Health and LastError are Prometheus's view of the last scrape.
	Health    string `json:"health"`
	LastError string `json:"last_error,omitempty"`
	// Pprof is the base URL the check captures from; empty when none
	// could be derived (Reason says why).
	Pprof string `json:"pprof,omitempty"`

	discovered map[string]string
	// unusable says why no pprof address could be derived.
	unusable string
}

// targetsPath is the targets API's path under Prometheus's base URL.
const targetsPath = "/api/v1/targets"

// Prometheus's answer to /api/v1/targets: the documented envelope
// (status, data, errorType, error) and the fields of an active target
// that a check needs.
type targetsAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      *struct {
		ActiveTargets []struct {
			DiscoveredLabels map[string]string `json:"discoveredLabels"`
			Labels           map[string]string `json:"labels"`
			ScrapePool       string            `json:"scrapePool"`
			ScrapeURL        string            `json:"scrapeUrl"`
			LastError        string            `json:"lastError"`
			Health           string            `json:"health"`
		} `json:"activeTargets"`
	} `json:"data"`
}

// Selector is a set of label equalities ("namespace=prod,version=1.4"),
// all of which a target's labels must hold.
type Selector []LabelMatch

// LabelMatch is one "name=value" of a selector.
type LabelMatch struct{ Name, Value string }

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// ParseSelector reads "k=v,k2=v2". A value may not hold a comma; an
// empty value matches a label that is absent or empty, as in PromQL.
func ParseSelector(s string) (Selector, error) {
	var sel Selector
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.TrimSpace(k)
		if !ok || !labelName.MatchString(k) {
			return nil, fmt.Errorf("selector %q: want label=value pairs separated by commas (%q is not one)", s, part)
		}
		sel = append(sel, LabelMatch{Name: k, Value: strings.Trim(strings.TrimSpace(v), `"`)})
	}
	return sel, nil
}

func (s Selector) String() string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = m.Name + "=" + m.Value
	}
	return strings.Join(parts, ",")
}

// Matches reports whether labels hold every equality of s.
func (s Selector) Matches(labels map[string]string) bool {
	for _, m := range s {
		if labels[m.Name] != m.Value {
			return false
		}
	}
	return true
}

// Discovery says which targets to check and where their pprof is.
type Discovery struct {
	// Prometheus is the server's base URL (any route prefix included:
	// http://host:9090/prometheus).
	Prometheus string
	Job        string
	Selector   Selector
	// PprofPort is the port of every target's pprof; 0 takes it from
	// PprofPortLabel, or else the scrape URL's own port (a Go service that
	// serves /metrics and /debug/pprof on one listener).
	PprofPort int
	// PprofPortLabel names the label holding the port: a target label, or
	// a discovered one (__meta_kubernetes_pod_annotation_..._port), which
	// Prometheus keeps before relabelling drops it.
	PprofPortLabel string
	// Client sends the request to Prometheus; nil: the default client of
	// httpfetch.
	Client *http.Client
	// MaxBytes bounds Prometheus's answer; 0 means DefaultMaxTargetsBytes.
	MaxBytes int64
	// MaxTargets is the most targets accepted after the filters; 0 means
	// DefaultMaxTargets.
	MaxTargets int
	// Timeout bounds the read; 0 means DefaultTargetsTimeout.
	Timeout time.Duration
}

// TargetsURL is the request Discover sends: the active targets of the
// scrape pool named after the job. The API's only server-side filters are
// state and scrapePool (Prometheus 2.42 and later; web/api/v1/api.go of
// v0.316 reads no other); an older server ignores scrapePool and the job
// filter applied to the answer still holds.
func TargetsURL(base *url.URL, job string) *url.URL {
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + targetsPath
	u.RawPath = ""
	u.RawQuery = url.Values{"state": {"active"}, "scrapePool": {job}}.Encode()
	u.Fragment = ""
	return &u
}

// Unusable says why no pprof address could be derived for the target
// (Pprof is empty then); "" when it has one.
func (t *Target) Unusable() string { return t.unusable }

// Discover reads Prometheus's active targets of the job, keeps those
// whose job label is the job and whose labels match the selector, and
// derives each one's pprof address. The targets come sorted by instance.
// A target whose address cannot be derived comes with Pprof empty and
// Unusable saying why; the caller reports it skipped.
func Discover(ctx context.Context, d Discovery) ([]*Target, error) {
	base, err := httpfetch.ParseURL(d.Prometheus)
	if err != nil {
		return nil, fmt.Errorf("the Prometheus URL: %w", err)
	}
	base.RawQuery, base.Fragment = "", ""
	if d.Job == "" {
		return nil, errors.New("no job given")
	}
	if d.MaxBytes <= 0 {
		d.MaxBytes = DefaultMaxTargetsBytes
	}
	if d.MaxTargets <= 0 {
		d.MaxTargets = DefaultMaxTargets
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTargetsTimeout
	}
	u := TargetsURL(base, d.Job)
	ans, err := readTargets(ctx, base, u, d)
	if err != nil {
		return nil, err
	}
	var out []*Target
	for _, at := range ans.Data.ActiveTargets {
		// The job label is what a user names; the scrape pool is the job's
		// name in the configuration, which relabelling may have renamed.
		if at.Labels["job"] != d.Job || !d.Selector.Matches(at.Labels) {
			continue
		}
		t := &Target{ScrapeURL: at.ScrapeURL, Labels: at.Labels, Health: at.Health, LastError: at.LastError,
			Instance: at.Labels["instance"], discovered: at.DiscoveredLabels}
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		pp, err := pprofBase(t, d)
		if t.Instance == "" {
			t.Instance = t.ScrapeURL
			if su, perr := url.Parse(t.ScrapeURL); perr == nil && su.Host != "" {
				t.Instance = su.Host
			}
		}
		if err != nil {
			t.unusable = err.Error()
		} else {
			t.Pprof = pp
		}
		out = append(out, t)
	}
	if len(out) > d.MaxTargets {
		return nil, finding.WithHint(fmt.Errorf("%s: %d active targets of job %q match%s, more than the limit of %d: narrow them with a label selector or raise the limit",
			u.Redacted(), len(out), d.Job, selectorWords(d.Selector), d.MaxTargets), finding.HintTargetLimit)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Instance < out[j].Instance })
	return out, nil
}

func selectorWords(s Selector) string {
	if len(s) == 0 {
		return ""
	}
	return " the selector " + strconv.Quote(s.String())
}

// promErrors is the transport of the request to Prometheus: an answer
// other than 200 that carries the API's error envelope becomes an error
// that says what Prometheus said (its errorType and error), which
// httpfetch would only quote the first bytes of.
type promErrors struct{ next http.RoundTripper }

// maxErrorBody bounds the error answer read: Prometheus's are one line.
const maxErrorBody = 64 << 10

// PrometheusError is Prometheus's own error answer (status "error").
type PrometheusError struct {
	Status    string // the HTTP status line; "" when it came with 200
	ErrorType string
	Message   string
}

func (e *PrometheusError) Error() string {
	msg := "Prometheus answered an error"
	if e.Status != "" {
		msg = "Prometheus answered " + e.Status
	}
	return textsafe.Cap(msg+": "+e.ErrorType+": "+e.Message, 1024)
}

func (p promErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	var env struct {
		Status, ErrorType, Error string
	}
	if rerr == nil && json.Unmarshal(body, &env) == nil && env.Status == "error" {
		return nil, &PrometheusError{Status: resp.Status, ErrorType: env.ErrorType, Message: env.Error}
	}
	// Not the envelope: httpfetch words the status from what was read.
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

func promClient(c *http.Client) *http.Client {
	cc := http.Client{CheckRedirect: httpfetch.CheckRedirect}
	if c != nil {
		cc = *c
	}
	next := cc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cc.Transport = promErrors{next: next}
	return &cc
}

// readTargets fetches and decodes the answer, refusing what is not the
// targets API's success.
func readTargets(ctx context.Context, base, u *url.URL, d Discovery) (*targetsAnswer, error) {
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{Client: promClient(d.Client), Timeout: d.Timeout, Limit: d.MaxBytes,
		What:     "Prometheus's targets (JSON)",
		NotFound: "is this Prometheus's base URL (its API answers at " + targetsPath + ")?"})
	if err != nil {
		// A Prometheus error comes with a status of 400, 422 or 5xx and
		// its JSON body, which httpfetch quotes (the first 200 bytes).
		return nil, fmt.Errorf("reading Prometheus's targets: %w", err)
	}
	defer resp.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading Prometheus's targets: %w", resp.Err(err))
	}
	var ans targetsAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("%s: not the answer of Prometheus's targets API (is %s Prometheus's base URL?): %v", u.Redacted(), base.Redacted(), err)
	}
	switch {
	case ans.Status == "error":
		return nil, fmt.Errorf("%s: %w", u.Redacted(), &PrometheusError{ErrorType: ans.ErrorType, Message: ans.Error})
	case ans.Status != "success" || ans.Data == nil:
		return nil, fmt.Errorf("%s: not the answer of Prometheus's targets API (status %q, want \"success\" with data; is %s Prometheus's base URL?)",
			u.Redacted(), textsafe.Cap(ans.Status, 40), base.Redacted())
	}
	return &ans, nil
}

// pprofBase derives a target's pprof base URL: the scrape URL's scheme
// and host, with the port from the flag, the label, or the scrape URL.
func pprofBase(t *Target, d Discovery) (string, error) {
	su, err := url.Parse(t.ScrapeURL)
	if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Hostname() == "" {
		return "", fmt.Errorf("scrape URL %q is not an http(s) URL with a host", t.ScrapeURL)
	}
	port := su.Port()
	switch {
	case d.PprofPort > 0:
		port = strconv.Itoa(d.PprofPort)
	case d.PprofPortLabel != "":
		v, ok := t.Labels[d.PprofPortLabel]
		if !ok {
			v, ok = t.discovered[d.PprofPortLabel]
		}
		if !ok || v == "" {
			return "", fmt.Errorf("no label %s (the pprof port) on this target", d.PprofPortLabel)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("label %s is %q, not a port", d.PprofPortLabel, v)
		}
		port = strconv.Itoa(n)
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[su.Scheme]
	}
	host := su.Hostname()
	if err := allowedHost(host); err != nil {
		return "", err
	}
	b := url.URL{Scheme: su.Scheme, Host: net.JoinHostPort(host, port)}
	return b.String(), nil
}

// allowedHost applies allowedIP to a host that is an IP address (with
// or without an IPv6 zone); a name is judged when it is dialled.
func allowedHost(host string) error {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return nil
	}
	return allowedIP(net.IP(a.WithZone("").Unmap().AsSlice()))
}

// allowedIP refuses the addresses a target never has and a request forged
// through Prometheus's answer would aim at: link-local (the cloud metadata
// service, 169.254.169.254 and fe80::/10), multicast and unspecified.
func allowedIP(ip net.IP) error {
	switch {
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return fmt.Errorf("address %s is link-local (a cloud's metadata service lives there): refused", ip)
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return fmt.Errorf("address %s is multicast: refused", ip)
	case ip.IsUnspecified():
		return fmt.Errorf("address %s is unspecified: refused", ip)
	}
	return nil
}

// TargetClient is the client of every target's check: it follows
// redirects only within the target (httpfetch.CheckRedirect) and refuses
// to connect to an address allowedIP refuses, whatever name resolved to
// it, since the target's name came from Prometheus's answer.
func TargetClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		return allowedHost(host)
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a target is reached directly, as Prometheus reached it
	tr.DialContext = dialer.DialContext
	return &http.Client{Transport: tr, CheckRedirect: httpfetch.CheckRedirect}
}
