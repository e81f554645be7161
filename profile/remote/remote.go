package remote

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/profile"
)

// Server is the kind of continuous profiler asked.
type Server int

const (
	// Pyroscope: Grafana Pyroscope's Connect API (querier.v1.QuerierService).
	Pyroscope Server = iota + 1
	// Parca: Parca's HTTP gateway of parca.query.v1alpha1.QueryService.
	Parca
)

func (s Server) String() string {
	switch s {
	case Pyroscope:
		return "Pyroscope"
	case Parca:
		return "Parca"
	}
	return fmt.Sprintf("Server(%d)", int(s))
}

// DefaultTimeout bounds one request when Options.Timeout is zero: a merge
// over an hour of a large service takes the server seconds to tens of
// seconds; two minutes is a server that will not answer.
const DefaultTimeout = 2 * time.Minute

// DefaultMaxValues is the most label values Split asks for by default:
// each is a merge query of its own.
const DefaultMaxValues = 64

// Options say how to reach the server. The zero value sends no
// credentials, waits DefaultTimeout for each answer and reads profiles
// under profile.ReadOptions' defaults.
type Options struct {
	// Client sends the requests; nil means http.DefaultClient's
	// transport. The redirect rule of internal/httpfetch applies either
	// way: credentials go only to the scheme and host:port given.
	Client *http.Client
	// Timeout bounds each request, headers and body; 0 means
	// DefaultTimeout. The server is told it too (Connect-Timeout-Ms).
	Timeout time.Duration
	// Read bounds the profile an answer holds, as for profile.Read.
	Read profile.ReadOptions
	// Tenant is Pyroscope's tenant, sent as X-Scope-OrgID (multi-tenant
	// Pyroscope and Grafana Cloud need it); empty sends none.
	Tenant string
	// Username and Password are sent as basic auth; else Token, when set,
	// as a bearer token. A user in the URL is net/http's basic auth and
	// takes the place of both. None of them is ever printed: errors
	// replace them with xxxxx.
	Username, Password string
	Token              string
}

// Query says which profiles to merge.
type Query struct {
	// Selector is the label selector: `{service_name="api"}` for
	// Pyroscope; for Parca a selector too, or a whole Parca query that
	// names its profile type (`process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta{job="api"}`).
	Selector string
	// Type is the profile type: "" or "process_cpu" (Go's CPU profile), a
	// Parca "parca_agent" (the eBPF agent's), or a whole type ID
	// (name:type:unit:period_type:period_unit, and :delta for Parca).
	Type string
	// From and Until bound the time of the profiles merged.
	From, Until time.Time
}

// Window is the query's length.
func (q Query) Window() time.Duration { return q.Until.Sub(q.From) }

// The profile types of Go's CPU profile and of Parca's agent, by the name
// -type takes.
var (
	pyroscopeTypes = map[string]string{
		"process_cpu": "process_cpu:cpu:nanoseconds:cpu:nanoseconds",
	}
	parcaTypes = map[string]string{
		"process_cpu": "process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta",
		"parca_agent": "parca_agent:samples:count:cpu:nanoseconds:delta",
	}
)

// typeID is the server's profile type ID for q.Type.
func typeID(s Server, t string) (string, error) {
	if t == "" {
		t = "process_cpu"
	}
	if strings.Contains(t, ":") {
		if n := strings.Count(t, ":"); n < 4 || n > 5 || strings.ContainsAny(t, "{} \"") {
			return "", fmt.Errorf("profile type %q: want name:type:unit:period_type:period_unit", t)
		}
		return t, nil
	}
	names := pyroscopeTypes
	if s == Parca {
		names = parcaTypes
	}
	if id, ok := names[t]; ok {
		return id, nil
	}
	return "", fmt.Errorf("profile type %q: want %s or a whole type ID (name:type:unit:period_type:period_unit)", t, strings.Join(slices.Sorted(maps.Keys(names)), " or "))
}

// labelName is a label name a selector can hold without quoting: what
// Prometheus's selector syntax, which both servers parse, accepts.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// CheckLabel says whether name can be split by.
func CheckLabel(name string) error {
	if !labelName.MatchString(name) {
		return fmt.Errorf("label %q: want a label name (letters, digits and _, not first a digit)", name)
	}
	return nil
}

// WithLabel returns selector narrowed to label=value:
// `{service_name="api"}` becomes `{service_name="api", pod="api-7f9"}`.
// The value is quoted as a Go string, which the selector syntax reads
// back as it was.
func WithLabel(selector, label, value string) (string, error) {
	if err := CheckLabel(label); err != nil {
		return "", err
	}
	s := strings.TrimSpace(selector)
	i := strings.LastIndexByte(s, '}')
	if i < 0 || i != len(s)-1 || !strings.Contains(s, "{") {
		return "", fmt.Errorf("selector %q: want {label=\"value\", ...}", selector)
	}
	inner := strings.TrimSpace(s[strings.IndexByte(s, '{')+1 : i])
	m := label + "=" + strconv.Quote(value)
	if inner != "" {
		m = ", " + m
	}
	return s[:i] + m + "}", nil
}

// checkSelector refuses what is plainly no selector before a server is
// asked: the server's own error would be less clear.
func checkSelector(s Server, sel string) error {
	t := strings.TrimSpace(sel)
	if t == "" {
		return errors.New("empty query: give a label selector such as {service_name=\"api\"}")
	}
	if !strings.HasSuffix(t, "}") || !strings.Contains(t, "{") {
		return fmt.Errorf("query %q: want a label selector such as {service_name=\"api\"}", sel)
	}
	if s == Pyroscope && !strings.HasPrefix(t, "{") {
		return fmt.Errorf("query %q: Pyroscope takes the profile type apart from the selector; give the selector alone, {...}", sel)
	}
	return nil
}

// ErrNoData is wrapped when the server holds no samples for the query.
var ErrNoData = errors.New("no profiles match")

// Profile is a merged profile as a server answered it.
type Profile struct {
	*pprof.Profile
	// Method is the API call that gave it: "SelectMergeStacktraces",
	// "SelectMergeProfile" or "Query".
	Method string
	// Fallback, when not empty, says why Method is not the first choice.
	Fallback string
	// Filled says what was missing from the answer and filled in before
	// the analysis (the duration, the sample counts), so that cores and
	// the thresholds' minimum of samples mean what they mean for a
	// profile taken from the process.
	Filled []string
}

// Client asks one server. It is safe for concurrent use.
type Client struct {
	server Server
	base   *url.URL
	opt    Options
}

// New returns a client of the server at rawURL: Pyroscope's HTTP address
// (http://pyroscope:4040, or a Grafana data source proxy URL) or Parca's
// (http://parca:7070, with its path prefix if it has one).
func New(server Server, rawURL string, opt Options) (*Client, error) {
	if server != Pyroscope && server != Parca {
		return nil, fmt.Errorf("unknown server %v", server)
	}
	u, err := httpfetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opt.Timeout < 0 {
		return nil, fmt.Errorf("timeout %v: must not be negative", opt.Timeout)
	}
	if opt.Timeout == 0 {
		opt.Timeout = DefaultTimeout
	}
	u.RawQuery, u.Fragment = "", ""
	return &Client{server: server, base: u, opt: opt}, nil
}

// Server is the kind of server the client asks.
func (c *Client) Server() Server { return c.server }

// Name is the server's URL with any password replaced.
func (c *Client) Name() string { return c.base.Redacted() }

// check refuses a query that cannot be sent.
func (c *Client) check(q Query) error {
	if err := checkSelector(c.server, q.Selector); err != nil {
		return err
	}
	if !q.Until.After(q.From) {
		return fmt.Errorf("time range %s to %s: the end must come after the start", q.From.Format(time.RFC3339), q.Until.Format(time.RFC3339))
	}
	_, err := typeID(c.server, q.Type)
	return err
}

// Merge asks the server for the profiles that q selects merged into one,
// and returns it read (under Options.Read's limits) and filled in where
// the server leaves out what the analysis needs (Profile.Filled).
func (c *Client) Merge(ctx context.Context, q Query) (*Profile, error) {
	if err := c.check(q); err != nil {
		return nil, err
	}
	var p *Profile
	var err error
	if c.server == Pyroscope {
		p, err = c.pyroscopeMerge(ctx, q)
	} else {
		p, err = c.parcaMerge(ctx, q)
	}
	if errors.Is(err, profile.ErrEmpty) || errors.Is(err, ErrNoData) {
		return nil, c.noData(q)
	}
	if err != nil {
		return nil, err
	}
	p.Filled = fill(p.Profile, q.Window())
	return p, nil
}

// noData is the error of a query that matched nothing.
func (c *Client) noData(q Query) error {
	t, _ := typeID(c.server, q.Type)
	return fmt.Errorf("%s: %w: no %s samples for %s from %s to %s (check the selector's labels and the time range)",
		c.Name(), ErrNoData, t, q.Selector, q.From.UTC().Format(time.RFC3339), q.Until.UTC().Format(time.RFC3339))
}

// LabelValues lists the values of label among the profiles of q's type
// and time range (Pyroscope also filters by q's selector; Parca's API
// takes no selector for this), as the server orders them.
func (c *Client) LabelValues(ctx context.Context, label string, q Query) ([]string, error) {
	if err := CheckLabel(label); err != nil {
		return nil, err
	}
	if err := c.check(q); err != nil {
		return nil, err
	}
	var vs []string
	var err error
	if c.server == Pyroscope {
		vs, err = c.pyroscopeValues(ctx, label, q)
	} else {
		vs, err = c.parcaValues(ctx, label, q)
	}
	if err != nil {
		return nil, err
	}
	// Deduplicated, and the empty value (the label unset) left out: it
	// cannot be selected by label="".
	slices.Sort(vs)
	vs = slices.Compact(vs)
	vs = slices.DeleteFunc(vs, func(v string) bool { return v == "" })
	return vs, nil
}

// Part is the merged profile of one label value, or why there is none.
type Part struct {
	Value   string
	Profile *Profile // nil when Err is set
	Err     error    // wraps ErrNoData when the value has no samples
}

// Split is the profiles of q, one per value of a label.
type Split struct {
	Label  string
	Values int    // values the server listed
	Parts  []Part // the first MaxValues of them, in the server's order (sorted)
}

// Cut is how many values were listed but not asked for.
func (s *Split) Cut() int { return s.Values - len(s.Parts) }

// SplitOptions bound a Split.
type SplitOptions struct {
	// MaxValues is the most values asked for; 0 means DefaultMaxValues.
	MaxValues int
	// Concurrency is how many merges run at once; 0 means 4.
	Concurrency int
	// Each, when set, is given each value's Part as its merge ends, one
	// call at a time, and the profile is not kept in Split.Parts: a
	// caller that diagnoses each value there holds a few merged profiles
	// at once, not one per value.
	Each func(Part)
}

// Split lists the values of label (LabelValues), then merges q's profiles
// for each of the first MaxValues values apart. One value failing does
// not stop the others: its Part carries the error. An error is returned
// only when the values cannot be listed.
func (c *Client) Split(ctx context.Context, label string, q Query, opt SplitOptions) (*Split, error) {
	if opt.MaxValues <= 0 {
		opt.MaxValues = DefaultMaxValues
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = 4
	}
	vs, err := c.LabelValues(ctx, label, q)
	if err != nil {
		return nil, err
	}
	out := &Split{Label: label, Values: len(vs)}
	vs = vs[:min(len(vs), opt.MaxValues)]
	out.Parts = make([]Part, len(vs))
	sem := make(chan struct{}, opt.Concurrency)
	var wg sync.WaitGroup
	var each sync.Mutex
	for i, v := range vs {
		out.Parts[i].Value = v
		sel, err := WithLabel(q.Selector, label, v)
		if err != nil {
			out.Parts[i].Err = err
			if opt.Each != nil {
				opt.Each(out.Parts[i]) // before any goroutine: no lock needed
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out.Parts[i].Err = context.Cause(ctx)
				return
			}
			defer func() { <-sem }()
			qv := q
			qv.Selector = sel
			p, err := c.Merge(ctx, qv)
			out.Parts[i].Err = err
			if opt.Each == nil {
				out.Parts[i].Profile = p
				return
			}
			each.Lock()
			defer each.Unlock()
			opt.Each(Part{Value: v, Profile: p, Err: err})
		}()
	}
	wg.Wait()
	return out, nil
}

// auth is the header of every request: the tenant and the credentials.
func (c *Client) auth(h http.Header) {
	if c.opt.Tenant != "" {
		h.Set("X-Scope-OrgID", c.opt.Tenant)
	}
	switch {
	case c.base.User != nil:
		// net/http sends the URL's user info as basic auth.
	case c.opt.Username != "" || c.opt.Password != "":
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(c.opt.Username+":"+c.opt.Password)))
	case c.opt.Token != "":
		h.Set("Authorization", "Bearer "+c.opt.Token)
	}
}

// limits are the profile's read limits, with the defaults filled in.
func (c *Client) limits() profile.ReadOptions {
	l := c.opt.Read
	if l.MaxBytes <= 0 {
		l.MaxBytes = profile.DefaultMaxBytes
	}
	return l
}

// fetchOptions are httpfetch's options for an answer of at most limit
// bytes.
func (c *Client) fetchOptions(limit int64, h http.Header) httpfetch.Options {
	return httpfetch.Options{
		Client: c.opt.Client, Timeout: c.opt.Timeout, Limit: limit, Header: h,
		What: "a " + c.server.String() + " answer",
	}
}

// RPCError is an error the server answered in its API's own form: a
// Connect error (Pyroscope) or a gRPC status (Parca's gateway).
type RPCError struct {
	URL     string // redacted
	Server  Server
	Method  string
	Status  int    // HTTP status
	Code    string // "unimplemented", "unauthenticated", ... (gRPC codes in Connect's lower-case names)
	Message string // the server's, cleaned of control characters
}

func (e *RPCError) Error() string {
	msg := fmt.Sprintf("%s: %s answered %s (HTTP %d) to %s", e.URL, e.Server, e.Code, e.Status, e.Method)
	if e.Message != "" {
		msg += fmt.Sprintf(": %q", e.Message)
	}
	if h := codeHints[e.Code]; h != "" {
		msg += "; " + h
	}
	return msg
}

var codeHints = map[string]string{
	"unauthenticated":   "the server wants credentials: a tenant, a user and password, or a token",
	"permission_denied": "the credentials given may not read these profiles",
	"invalid_argument":  "check the selector, the profile type and the time range",
	"unimplemented":     "is this URL the server's query API?",
	"resource_exhausted": "the query is too large for the server's limits: " +
		"query a shorter time range or a narrower selector",
}

// grpcCodes are the gRPC status codes by number, in Connect's names (the
// gateway answers the number).
var grpcCodes = []string{"ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found",
	"already_exists", "permission_denied", "resource_exhausted", "failed_precondition", "aborted",
	"out_of_range", "unimplemented", "internal", "unavailable", "data_loss", "unauthenticated"}

// rpcError turns a fetch's error into an *RPCError when the answer's body
// is the API's error (Connect's {"code":"...","message":"..."}, the
// gateway's {"code":N,"message":"..."}); other errors stay as they are.
func (c *Client) rpcError(method string, err error) error {
	var fe *httpfetch.Error
	if !errors.As(err, &fe) || fe.Status == 0 || fe.Status == http.StatusOK {
		return err
	}
	var body struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(fe.Body, &body) != nil || len(body.Code) == 0 {
		switch fe.Status {
		case http.StatusNotFound:
			return &apiNotFound{fe: fe, server: c.server, method: method}
		case http.StatusUnauthorized, http.StatusForbidden:
			// A proxy in front of the server (no API error): httpfetch's
			// own words are about pprof endpoints, which take none.
			what := "it wants credentials: a tenant, a user and password, or a token"
			if c.opt.Username != "" || c.opt.Password != "" || c.opt.Token != "" || c.base.User != nil {
				what = "it refused the credentials given"
			}
			return fmt.Errorf("%s: server answered %d %s to %s: %s: %w", fe.URL, fe.Status, http.StatusText(fe.Status), method, what, httpfetch.ErrStatus)
		}
		return err
	}
	var code string
	var n int
	if json.Unmarshal(body.Code, &code) != nil {
		if json.Unmarshal(body.Code, &n) != nil || n < 0 || n >= len(grpcCodes) {
			return err
		}
		code = grpcCodes[n]
	}
	if code == "" || len(code) > 40 {
		return err
	}
	if code == "not_found" && body.Message == "Not Found" {
		// grpc-gateway's answer to a path it has no route for: not the
		// method's own NotFound (Parca's "No data found for the query").
		return &apiNotFound{fe: fe, server: c.server, method: method}
	}
	return &RPCError{URL: fe.URL, Server: c.server, Method: method, Status: fe.Status,
		Code: clean(code), Message: clean(truncate(body.Message, 300))}
}

// apiNotFound is a 404 without an API error: no route for the method,
// so most likely not the server's address (httpfetch's own words for a
// 404 are about net/http/pprof).
type apiNotFound struct {
	fe     *httpfetch.Error
	server Server
	method string
}

func (e *apiNotFound) Error() string {
	port := "4040"
	if e.server == Parca {
		port = "7070"
	}
	return fmt.Sprintf("%s: server answered 404 Not Found to %s: no %s query API at this address; is it %s's HTTP address (port %s by default, with the path prefix of any proxy in front of it)?",
		e.fe.URL, e.method, e.server, e.server, port)
}

func (e *apiNotFound) Unwrap() error { return e.fe }

// unimplemented is whether err says the server has no such method: a
// Connect "unimplemented", or a 404 without an API error (the route does
// not exist), which connect-go's own client reads as unimplemented too.
func unimplemented(err error) bool {
	var re *RPCError
	if errors.As(err, &re) {
		return re.Code == "unimplemented"
	}
	return httpfetch.Status(err) == http.StatusNotFound
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// clean replaces control characters and invalid UTF-8: server text
// reaches messages.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\uFFFD' || r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return '?'
		}
		return r
	}, s)
}

// defaultPeriod is Go's CPU profiling period (runtime/pprof's 100 Hz),
// which Pyroscope's Go SDK and Alloy's pprof scrapes keep.
const defaultPeriod = 10 * time.Millisecond

// fill adds what a merged profile lacks that the analysis needs, and says
// what it added:
//
//   - a duration: Pyroscope's merge sets none (pprof.SetProfileMetadata
//     with the query's end as the time), so cores would read as 1; the
//     query window is the span the samples were taken in, and CPU over it
//     is the average cores of all the matched series together;
//   - sample counts: Pyroscope's merged process_cpu profile has only the
//     cpu/nanoseconds value, so each distinct stack would count as one
//     sample and a spin merged into a few stacks would fall under the
//     thresholds' minimum of samples; one sample per period of CPU (the
//     profile's period, else Go's 10 ms) is what the runtime recorded.
func fill(p *pprof.Profile, window time.Duration) []string {
	var filled []string
	if p.DurationNanos <= 0 && window > 0 {
		p.DurationNanos = window.Nanoseconds()
		filled = append(filled, fmt.Sprintf("duration: the query window, %s (the server's profile has none)", window))
	}
	cpu, count := -1, -1
	for i, st := range p.SampleType {
		switch {
		case st.Type == "cpu" && st.Unit == "nanoseconds":
			cpu = i
		case st.Type == "samples" && st.Unit == "count":
			count = i
		}
	}
	if cpu < 0 || count >= 0 {
		return filled
	}
	period := int64(defaultPeriod)
	from := "Go's default of 10ms"
	if p.PeriodType != nil && p.PeriodType.Type == "cpu" && p.PeriodType.Unit == "nanoseconds" && p.Period > 0 {
		period, from = p.Period, "the profile's period of "+time.Duration(p.Period).String()
	}
	p.SampleType = append(p.SampleType, &pprof.ValueType{Type: "samples", Unit: "count"})
	for _, s := range p.Sample {
		v := s.Value[cpu]
		n := int64(0)
		if v > 0 {
			n = max(1, int64(math.Round(float64(v)/float64(period))))
		}
		s.Value = append(s.Value, n)
	}
	filled = append(filled, "sample counts: one per "+from+" of CPU (the server's profile has CPU time only)")
	return filled
}
