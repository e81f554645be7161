// Package httpfetch is the one HTTP GET behind every pprof endpoint that
// schedoctor reads (/debug/pprof/profile, mutex, block, goroutine, trace,
// and the live monitor's JSON), so that all of them fail with the same
// clear words. A query API that takes a POST (Pyroscope's Connect RPCs)
// goes through it too: Options.Method, Body and Header.
//
// Get sends the request under one deadline (the caller's context and
// Options.Timeout), and hands back the body of a 200 answer for the
// caller's own parser to read under that same deadline. On the way it
// refuses what is plainly not pprof data: a 401/403 (credentials that
// schedoctor does not send), a 404 (no net/http/pprof at this path), any
// other status (with the first line of the server's text), an HTML page
// answered with 200 (a login page or a proxy), and an answer whose
// Content-Length is over the caller's byte limit. The body enforces the
// limit again while it is read, and turns a failed read into "answer not
// complete within T" (the deadline) or "answer cut after N bytes (did the
// target die?)".
//
// Every error is an *Error that names the URL with its password redacted
// (url.URL.Redacted): URLs with credentials end up in logs and saved
// captures. Text that comes from the server (the status line, a page's
// first line) is quoted or cleaned, never printed raw, and credentials it
// echoes (an Authorization header, the URL's password) are replaced
// (Redact).
//
// One rule for redirects holds for every caller (CheckRedirect): a
// redirect is followed only to the same scheme and host:port, at most 5
// times; a target never sends schedoctor to another port, another host or
// off loopback. And one rule for slow answers: besides the whole
// exchange's deadline, once the headers are in, every IdleTimeout must
// bring ProgressBytes more of the body (or its end), so that a target
// trickling a byte a second is dropped after IdleTimeout, not after the
// deadline of a long profile.
//
// The package imports only the standard library, so every source can use
// it. A Response is for one goroutine.
package httpfetch

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Sentinels wrapped by *Error, for callers that branch on the kind of
// failure.
var (
	// ErrStatus: the server answered with another status than 200.
	ErrStatus = errors.New("unexpected HTTP status")
	// ErrHTML: a 200 answer that is an HTML page.
	ErrHTML = errors.New("answer is an HTML page")
	// ErrTooLarge: the answer is larger than Options.Limit.
	ErrTooLarge = errors.New("answer larger than the limit")
	// ErrCut: the connection ended before the answer did.
	ErrCut = errors.New("answer cut")
	// ErrStalled: the body brought less than ProgressBytes in IdleTimeout.
	ErrStalled = errors.New("answer stalled")
	// ErrRedirect: a redirect to another scheme or host:port (CheckRedirect).
	ErrRedirect = errors.New("redirect to another host refused")
)

// DefaultIdleTimeout is Options.IdleTimeout's default: every pprof
// handler writes its answer at once when it is ready (the profile and the
// delta profiles after their window, the dumps as they are formatted), so
// a body that brings less than ProgressBytes in 10 s on loopback or a LAN
// is a stalled or trickling target, not a slow one. A streamed answer
// whose first bytes may take longer (the execution trace, flushed as the
// runtime fills its buffers) sets its own.
const DefaultIdleTimeout = 10 * time.Second

// ProgressBytes is what each IdleTimeout must bring: 1 KiB, about 100
// bytes a second at the default, which any real link passes and a
// trickle (a byte a second) does not.
const ProgressBytes = 1 << 10

// CheckRedirect is the one redirect rule of every fetch (an
// http.Client's CheckRedirect): follow a redirect only to the scheme and
// host:port of the first request, at most 5 times. A target that sends
// schedoctor elsewhere (another port, another host, off loopback) gets
// ErrRedirect: schedoctor contacts only the URL the user gave.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0].URL
	if req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
		return fmt.Errorf("%w (%s)", ErrRedirect, clean(req.URL.Redacted()))
	}
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	return nil
}

// defaultClient is the client of a Get without one: http.DefaultClient's
// transport with the redirect rule.
var defaultClient = &http.Client{CheckRedirect: CheckRedirect}

// withRule returns c, or a copy of it with CheckRedirect when c has none:
// a caller's client keeps its own rule (a test's), never none.
func withRule(c *http.Client) *http.Client {
	if c == nil {
		return defaultClient
	}
	if c.CheckRedirect != nil {
		return c
	}
	cc := *c
	cc.CheckRedirect = CheckRedirect
	return &cc
}

// Options say what the caller expects. The zero value is a GET with
// http.DefaultClient's transport and the redirect rule, no deadline but
// the context's and the idle one, and no size limit.
type Options struct {
	// Client sends the request; nil means http.DefaultClient's transport.
	// A client without CheckRedirect gets the package's (CheckRedirect).
	Client *http.Client
	// Timeout bounds the whole exchange, headers and body; 0 leaves only
	// the context's deadline.
	Timeout time.Duration
	// IdleTimeout is how long the body may take to bring its next
	// ProgressBytes (or its end) once the headers are in; 0 means
	// DefaultIdleTimeout, a negative value no idle limit.
	IdleTimeout time.Duration
	// Limit is the largest answer accepted, in bytes (as it travels on the
	// wire, after the transport's own decompression); 0 means no limit.
	Limit int64
	// Expect names the endpoint the caller meant ("/debug/pprof/profile"),
	// for the hint of an unexpected status; empty omits the hint.
	Expect string
	// What names the data the caller expects ("a CPU profile"), for the
	// error of an HTML page; empty means "pprof data".
	What string
	// NotFound is the hint of a 404 for a caller whose endpoint is not
	// net/http/pprof's (Prometheus's API); empty means the pprof hint.
	NotFound string
	// Method is the request's method; empty means GET. Body, when not
	// nil, is the request's body (a POST's), sent again on a redirect
	// that keeps the method (307, 308).
	Method string
	Body   []byte
	// Header is added to the request: a query API's content type, a
	// tenant, credentials. The redirect rule keeps them on the host the
	// user named; an Authorization header's secrets are replaced in the
	// text of errors like the URL's password, and a 401 or 403 then says
	// that the server refused them.
	Header http.Header
}

// Error is the error of Get and of a Response's Body.
type Error struct {
	URL    string // redacted
	Status int    // the HTTP status of the answer; 0 when none came
	Msg    string // what went wrong and what to do, without the URL
	Err    error  // the cause: a sentinel of this package, a context or network error
	// Body is the start (at most ErrorBodySize bytes) of a non-200
	// answer's body, credentials replaced, for a caller whose protocol
	// puts its error there (Connect's {"code":...,"message":...}). It is
	// server text: clean it before printing.
	Body []byte
}

// ErrorBodySize is the most of a non-200 answer's body that Error.Body
// keeps: an RPC error's JSON, not a page.
const ErrorBodySize = 4 << 10

func (e *Error) Error() string { return e.URL + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Status is the HTTP status an error of this package came with: 404 for a
// missing endpoint, 200 for an HTML page or a body that failed, 0 when no
// answer came or err is not from this package.
func Status(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// peekSize is how much of a 200 answer is looked at before the caller sees
// it: enough for an HTML page's doctype and title.
const peekSize = 512

// Response is a 200 answer. Read Body (under Context, the request's
// deadline), pass the reader's error through Err, and Close it.
type Response struct {
	Name          string // the URL, redacted: for the caller's own errors
	Status        int
	Header        http.Header
	ContentLength int64 // -1 when unknown
	// Body yields the answer's bytes. Its errors are *Error; it fails with
	// ErrTooLarge on the read that passes Options.Limit, and returns that
	// read's bytes too, so that a reader with its own limit check (which
	// names its own limit) sees the excess and speaks first.
	Body io.Reader

	body   *body
	ctx    context.Context
	cancel context.CancelFunc
	closer io.Closer
	closed bool // Close cancels ctx: that is no deadline
}

// Context is the request's context, with its deadline: parse under it.
func (r *Response) Context() context.Context { return r.ctx }

// Close releases the connection and the deadline's timer.
func (r *Response) Close() error {
	r.closed = true
	err := r.closer.Close()
	r.cancel()
	return err
}

// Err turns the error of the caller's reader into the fetch's own when the
// fetch caused it: a cut connection or the deadline give their *Error, not
// the reader's "unexpected EOF" or "bad gzip data". A limit error of the
// reader's own stays (it names the reader's flag). Other errors, and nil,
// are returned as they are.
func (r *Response) Err(err error) error {
	if err == nil {
		return nil
	}
	if f := r.body.failed; f != nil && (!errors.Is(f, ErrTooLarge) || errors.Is(err, ErrTooLarge)) {
		return f
	}
	if r.ctx.Err() != nil && !r.closed {
		// The reader noticed the deadline between reads, before the body
		// did (profile.Read checks the context itself).
		return r.body.ctxError()
	}
	return err
}

// Get sends a GET for u and returns its 200 answer, or an *Error saying
// why there is none. The Response must be closed.
func Get(ctx context.Context, u *url.URL, opt Options) (*Response, error) {
	name := u.Redacted()
	client := withRule(opt.Client)
	// The deadline is a cause of its own, so that an expired deadline of
	// the caller's context (whose length this package does not know) is
	// not reported as ours.
	own := &deadlineError{d: opt.Timeout}
	var cancelT context.CancelFunc
	if opt.Timeout > 0 {
		ctx, cancelT = context.WithTimeoutCause(ctx, opt.Timeout, own)
	} else {
		ctx, cancelT = context.WithCancel(ctx)
	}
	// The idle watchdog cancels the request with a cause of its own too.
	ctx, cancelC := context.WithCancelCause(ctx)
	cancel := func() { cancelC(nil); cancelT() }
	idle := &idleWatch{d: opt.IdleTimeout, cancel: cancelC}
	if idle.d == 0 {
		idle.d = DefaultIdleTimeout
	}
	fail := func(status int, msg string, err error) (*Response, error) {
		cancel()
		return nil, &Error{URL: name, Status: status, Msg: msg, Err: err}
	}
	method := opt.Method
	if method == "" {
		method = http.MethodGet
	}
	var reqBody io.Reader
	if opt.Body != nil {
		// A *bytes.Reader: net/http sets GetBody, so that a 307 or 308
		// sends the body again.
		reqBody = bytes.NewReader(opt.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), reqBody)
	if err != nil {
		return fail(0, err.Error(), err)
	}
	for k, vs := range opt.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			if context.Cause(ctx) == own {
				return fail(0, "no answer within "+opt.Timeout.String(), context.DeadlineExceeded)
			}
			return fail(0, context.Cause(ctx).Error(), context.Cause(ctx))
		}
		// *url.Error repeats the URL (with only the password starred):
		// this error names it once, redacted.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail(0, err.Error(), err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		// The first bytes of the body: net/http's 404 says "404 page not
		// found", a proxy names itself, an RPC server says its code.
		head, _ := io.ReadAll(io.LimitReader(resp.Body, ErrorBodySize))
		head = redactBytes(head, u, opt.Header)
		cancel()
		return nil, &Error{URL: name, Status: resp.StatusCode, Msg: redactHeader(Redact(statusMessage(u, resp, head, opt), u), opt.Header),
			Err: ErrStatus, Body: head}
	}
	if opt.Limit > 0 && resp.ContentLength > opt.Limit {
		resp.Body.Close()
		return fail(resp.StatusCode, fmt.Sprintf("answer of %d bytes is larger than the limit of %d bytes",
			resp.ContentLength, opt.Limit), ErrTooLarge)
	}
	r := &Response{
		Name: name, Status: resp.StatusCode, Header: resp.Header, ContentLength: resp.ContentLength,
		ctx: ctx, cancel: func() { idle.stop(); cancel() }, closer: resp.Body,
	}
	cr := &wire{Reader: resp.Body, idle: idle}
	b := &body{resp: r, wire: cr, br: bufio.NewReaderSize(cr, peekSize), limit: opt.Limit, own: own, opt: opt}
	r.body, r.Body = b, b
	// Peek without consuming: the caller's parser still reads from byte 0.
	head, err := b.br.Peek(peekSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		ferr := b.readError(err) // before Close cancels the context
		r.Close()
		return nil, ferr
	}
	if isHTML(head, resp.Header.Get("Content-Type")) {
		r.Close()
		what := opt.What
		if what == "" {
			what = "pprof data"
		}
		return fail(resp.StatusCode, fmt.Sprintf("answer is an HTML page (%q), not %s: a login page or a proxy?", excerpt(redactBytes(head, u, opt.Header)), what), ErrHTML)
	}
	return r, nil
}

// ParseURL parses an http or https URL with a host, the only kind Get is
// for. Its error names the URL with any password replaced, even when the
// URL does not parse (url.Parse's own error repeats it whole).
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: not an http(s) URL", clean(redactRaw(raw)))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := u.Redacted()
		if u.Host == "" || u.User == nil {
			// Without a host, url.Parse leaves user info in the path or
			// the opaque part, where Redacted does not look.
			shown = redactRaw(shown)
		}
		return nil, fmt.Errorf("%s: not an http(s) URL", clean(shown))
	}
	return u, nil
}

// redactRaw hides the user info of a URL that url.Parse refused, that has
// no scheme or no host: whatever precedes the last '@' (before any query
// or fragment) back to the previous '/'. "ops:pw@host:6060/x" typed
// without "http://", "http:/ops:pw@host/" with one slash and
// "unix:///ops:pw@x" all hold a password where url.URL.Redacted does not
// look.
func redactRaw(raw string) string {
	end := len(raw)
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		end = i
	}
	j := strings.LastIndexByte(raw[:end], '@')
	if j < 0 {
		return raw
	}
	i := strings.LastIndexByte(raw[:j], '/')
	return raw[:i+1] + "xxxxx" + raw[j:]
}

// statusMessage words a non-200 answer: the two statuses with a known
// cause get that cause, the others the server's own first line and the
// caller's hint.
func statusMessage(u *url.URL, resp *http.Response, head []byte, opt Options) string {
	status := clean(resp.Status)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if opt.Header.Get("Authorization") != "" {
			return "server answered " + status + ": it refused the credentials given"
		}
		if u.User != nil {
			// net/http sends the URL's user info as basic auth.
			return "server answered " + status + ": it refused the credentials in the URL"
		}
		return "server answered " + status + ": the endpoint needs credentials; schedoctor sends none (expose pprof on a localhost-only listener instead)"
	}
	msg := "server answered " + status
	if s := excerpt(head); s != "" {
		msg += fmt.Sprintf(" (%q)", s)
	}
	var hints []string
	if opt.Expect != "" {
		hints = append(hints, "is this a "+opt.Expect+" endpoint?")
	}
	if resp.StatusCode == http.StatusNotFound {
		hints = append(hints, cmp.Or(opt.NotFound, "does the service mount net/http/pprof at this path?"))
	}
	if len(hints) > 0 {
		msg += "; " + strings.Join(hints, " ")
	}
	return msg
}

// isHTML tells a page from pprof data by its first bytes. Every answer of
// net/http/pprof (gzip, protobuf, "goroutine ...", "go 1.x trace", JSON)
// starts with something else than '<', so markup is never data; a page
// is recognised by a Content-Type of HTML with markup, or by an HTML
// opening tag whatever the Content-Type says (Go sniffs one without it).
// A text/html label on data that is no markup is not refused: the parser
// judges the data.
func isHTML(head []byte, contentType string) bool {
	s := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	s = bytes.TrimLeft(s, " \t\r\n")
	if len(s) == 0 || s[0] != '<' {
		return false
	}
	ct := strings.ToLower(contentType)
	if strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml") {
		return true
	}
	lower := bytes.ToLower(s[:min(len(s), 16)])
	for _, tag := range []string{"<!doctype html", "<html", "<head", "<body", "<title", "<!--"} {
		if bytes.HasPrefix(lower, []byte(tag)) {
			return true
		}
	}
	return false
}

// excerpt is what a page or an error body says in one short line: an HTML
// title when there is one (a login page's doctype line says nothing), else
// the first non-empty line, at most 80 runes, cleaned of control
// characters.
func excerpt(b []byte) string {
	s := string(b)
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<title>"); i >= 0 {
		rest := s[i+len("<title>"):]
		if j := strings.Index(strings.ToLower(rest), "</title>"); j >= 0 {
			if t := strings.TrimSpace(rest[:j]); t != "" {
				s = t
			}
		}
	}
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, "\n")
	s = clean(strings.TrimSpace(s))
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:80]) + "…"
	}
	return s
}

// clean replaces what a terminal would interpret (control characters,
// bidi controls, invalid UTF-8) with '?': server text reaches messages.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return '?'
		}
		return r
	}, s)
}

// deadlineError is the cause of the deadline Get sets.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string { return "no complete answer within " + e.d.String() }
func (e *deadlineError) Unwrap() error { return context.DeadlineExceeded }

// wire counts the bytes that arrived, for "cut after N bytes", and feeds
// the idle watchdog.
type wire struct {
	io.Reader
	n    int64
	idle *idleWatch
}

func (w *wire) Read(p []byte) (n int, err error) {
	w.idle.begin()
	n, err = w.Reader.Read(p)
	w.idle.end(n)
	w.n += int64(n)
	return n, err
}

// idleWatch is the idle deadline. It counts only the time spent waiting
// for the network inside reads since the body last brought
// ProgressBytes: a caller that works between reads (a trace reader going
// through a generation) is not the target's slowness. When the wait
// passes d, it cancels the request with itself as the cause, so its Error
// says what happened.
type idleWatch struct {
	d      time.Duration // <= 0: no idle limit
	cancel func(error)
	t      *time.Timer
	start  time.Time
	waited time.Duration // in reads since the last ProgressBytes
	got    int           // bytes since then
}

func (w *idleWatch) Error() string {
	return fmt.Sprintf("less than %d bytes in %s", ProgressBytes, w.d)
}
func (w *idleWatch) Unwrap() error { return ErrStalled }

func (w *idleWatch) begin() {
	if w.d <= 0 {
		return
	}
	left := max(w.d-w.waited, time.Nanosecond)
	w.start = time.Now()
	if w.t == nil {
		w.t = time.AfterFunc(left, func() { w.cancel(w) })
	} else {
		w.t.Reset(left)
	}
}

func (w *idleWatch) end(n int) {
	if w.d <= 0 {
		return
	}
	w.t.Stop()
	w.waited += time.Since(w.start)
	w.got += n
	if w.got >= ProgressBytes {
		w.got, w.waited = 0, 0
	}
}

func (w *idleWatch) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

// body is a Response's Body: the peeked reader, the limit, and the first
// failure, kept so that Response.Err can name it.
type body struct {
	resp   *Response
	wire   *wire
	br     *bufio.Reader
	limit  int64
	n      int64 // bytes given to the caller
	own    *deadlineError
	opt    Options
	failed error
}

func (b *body) Read(p []byte) (int, error) {
	if b.failed != nil {
		return 0, b.failed
	}
	if b.limit > 0 && int64(len(p)) > b.limit+1-b.n {
		// Never more than one byte past the limit: enough to tell.
		p = p[:b.limit+1-b.n]
	}
	n, err := b.br.Read(p)
	b.n += int64(n)
	if b.limit > 0 && b.n > b.limit {
		b.failed = &Error{URL: b.resp.Name, Status: b.resp.Status,
			Msg: fmt.Sprintf("answer larger than the limit of %d bytes", b.limit), Err: ErrTooLarge}
		return n, b.failed
	}
	if err != nil && err != io.EOF {
		b.failed = b.readError(err)
		return n, b.failed
	}
	return n, err
}

// readError classifies a failed read of the body: the deadline, the
// caller's cancellation, or a connection that ended early.
func (b *body) readError(err error) error {
	if b.resp.ctx.Err() != nil {
		return b.ctxError()
	}
	return &Error{URL: b.resp.Name, Status: b.resp.Status,
		Msg: fmt.Sprintf("answer cut after %d bytes (did the target die?): %v", b.wire.n, err),
		Err: errors.Join(ErrCut, err)}
}

// ctxError is the error once the request's context is done.
func (b *body) ctxError() error {
	cause := context.Cause(b.resp.ctx)
	if w, ok := cause.(*idleWatch); ok {
		return &Error{URL: b.resp.Name, Status: b.resp.Status,
			Msg: fmt.Sprintf("answer stalled after %d bytes: %v (a trickling or hung target)", b.wire.n, w), Err: ErrStalled}
	}
	if cause == b.own {
		return &Error{URL: b.resp.Name, Status: b.resp.Status,
			Msg: "answer not complete within " + b.own.d.String(), Err: context.DeadlineExceeded}
	}
	return &Error{URL: b.resp.Name, Status: b.resp.Status, Msg: cause.Error(), Err: cause}
}

// Credentials a target may echo back in its text: a header line that
// carries them (what the rest of the line says is replaced) and a scheme
// token ("Basic dXNlcjpwdw==", "Bearer eyJ...").
var (
	echoedHeader = regexp.MustCompile(`(?i)\b(proxy-authorization|authorization|cookie|set-cookie|x-api-key|x-auth-token)(["']?\s*[:=]\s*)[^\r\n]*`)
	echoedToken  = regexp.MustCompile(`(?i)\b(basic|bearer|digest|token)(\s+)[A-Za-z0-9+/=._~-]{6,}`)
)

// Redact replaces in s, text that quotes what a target answered, the
// credentials it may echo: the password of u in every form net/http sends
// it (plain, "user:password", its base64 in a Basic Authorization
// header), and any Authorization, Cookie or API-key header line or
// Basic/Bearer token whatever the URL held. u may be nil.
func Redact(s string, u *url.URL) string {
	if u != nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			pair := u.User.Username() + ":" + pw
			for _, secret := range []string{
				base64.StdEncoding.EncodeToString([]byte(pair)),
				base64.RawStdEncoding.EncodeToString([]byte(pair)),
				pair, url.QueryEscape(pw), pw,
			} {
				// A password of one or two characters would star every
				// such letter of the text; its header form is still caught.
				if len(secret) >= 3 {
					s = strings.ReplaceAll(s, secret, "xxxxx")
				}
			}
		}
	}
	s = echoedHeader.ReplaceAllString(s, "${1}${2}xxxxx")
	s = echoedToken.ReplaceAllString(s, "${1}${2}xxxxx")
	return s
}

func redactBytes(b []byte, u *url.URL, h http.Header) []byte {
	return []byte(redactHeader(Redact(string(b), u), h))
}

// redactHeader replaces in s the secrets of h's Authorization header: a
// bearer token, and a basic pair in its base64 and plain forms and its
// password alone, as Redact does for the URL's.
func redactHeader(s string, h http.Header) string {
	auth := h.Get("Authorization")
	if auth == "" {
		return s
	}
	scheme, cred, _ := strings.Cut(auth, " ")
	secrets := []string{cred}
	if strings.EqualFold(scheme, "basic") {
		if pair, err := base64.StdEncoding.DecodeString(cred); err == nil {
			_, pw, _ := strings.Cut(string(pair), ":")
			secrets = append(secrets, string(pair), url.QueryEscape(pw), pw)
		}
	}
	for _, secret := range secrets {
		if len(secret) >= 3 {
			s = strings.ReplaceAll(s, secret, "xxxxx")
		}
	}
	return s
}
