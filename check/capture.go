// Package check captures every runtime source of one live service that
// mounts net/http/pprof — goroutine dumps, a CPU profile, an execution
// trace, mutex/block/leak profiles, and with a PID the process layer — one
// capture at a time, and keeps the raw bytes so that they can be saved to
// a directory and diagnosed again offline (Load). It reads each capture
// with its source's analysis and hands every source's findings, the live
// monitor's included, to the one join, diagnose.Check; check joins nothing
// itself.
package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/goroutines"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/internal/procstat"
)

// Kinds of capture, in the order Run takes them. The goroutine profile
// (debug=0) of each moment comes first and gives the goroutine count; the
// full dump (debug=2) of that moment is taken only below
// Options.MaxDumpGoroutines (see DefaultMaxDumpGoroutines).
const (
	KindGoroutineStartProto = "goroutine-start-proto"
	KindGoroutineStart      = "goroutine-start"
	KindProfile             = "profile"
	KindTrace               = "trace"
	KindMutex               = "mutex"
	KindBlock               = "block"
	KindLeak                = "goroutineleak"
	KindGoroutineEndProto   = "goroutine-end-proto"
	KindGoroutineEnd        = "goroutine-end"
)

// MaxBytes caps every answer: the size cap the readers use (profile.MaxSize,
// goroutines.DefaultMaxBytes), so nothing larger is ever held in memory.
const MaxBytes = 256 << 20

// DefaultTotalBytes is the budget of one check for all its answers
// together (Options.MaxTotalBytes): as much as one answer may be, so that
// a target whose every answer is a gzip bomb costs what one would. A real
// check holds far less: a 3 s trace of a busy service is tens of MB, a
// profile and the goroutine profiles a few.
const DefaultTotalBytes = MaxBytes

// DefaultMaxDumpGoroutines is the most goroutines at which Run takes a
// full dump (goroutine?debug=2). runtime.Stack(all) stops the world for
// the whole dump; the goroutine profile (debug=0, and debug=1) stops it
// only to start and records the stacks while the program runs. Measured
// on a shared 2-core AMD EPYC (docs/check.md, internal/lab/dumpstw):
// debug=2 stopped the world 1.8 ms at 1,000 parked goroutines of 2 frames
// and 27 ms with 21 frames, 46 ms and 0.77 s at 10,000, 0.67 s and 13 s
// at 50,000; the profile under 0.1 ms at every count. 1,000 is where a
// full dump's stop stays within a GC's order of magnitude (and Datadog's
// profiler's cut-off, for the same reason).
const DefaultMaxDumpGoroutines = 1000

// Capture is one fetch: what, from where, when, how long, and what went
// wrong. Data is the raw answer (nil when it failed or was absent, or
// once Analyze with Release has read it).
type Capture struct {
	Kind     string    `json:"kind"`
	Endpoint string    `json:"endpoint"`
	File     string    `json:"file,omitempty"`
	Start    time.Time `json:"start"`
	Duration float64   `json:"duration_seconds"`
	// Absent is true when the endpoint does not exist on the target (404
	// on an optional endpoint such as goroutineleak): not an error.
	Absent bool   `json:"absent,omitempty"`
	Error  string `json:"error,omitempty"`
	// Skipped says why Run did not take this capture on purpose (a full
	// dump of too many goroutines, the byte budget spent, a stalled
	// target): not an error.
	Skipped string `json:"skipped,omitempty"`
	// Goroutines is the count a goroutine profile or dump held; 0 unknown.
	Goroutines int `json:"goroutines,omitempty"`
	// Bytes is the size of the answer, kept when Data is released.
	Bytes int64 `json:"bytes,omitempty"`
	// ProcessCPU is the CPU time (user+system) the target's process got
	// during the capture, from /proc/PID/stat; 0 unknown.
	ProcessCPU float64 `json:"process_cpu_seconds,omitempty"`
	Data       []byte  `json:"-"`
}

// OK reports whether the capture holds data.
func (c *Capture) OK() bool { return c != nil && c.Error == "" && !c.Absent && len(c.Data) > 0 }

// Size is the answer's size in bytes, whether or not Data is still held.
func (c *Capture) Size() int64 {
	if c.Bytes > 0 {
		return c.Bytes
	}
	return int64(len(c.Data))
}

// Options tune Run. The zero value gives the defaults.
type Options struct {
	Seconds      int // CPU profile length; 0 means 10
	TraceSeconds int // trace length; 0 means max(1, Seconds/3)
	// DeltaSeconds is the mutex/block delta window; 0 means 2.
	DeltaSeconds int
	PID          int           // the target's process on this machine; 0 none
	Slack        time.Duration // added to each fetch's own length for its timeout; 0 means 15s
	// IdleTimeout is how long an answer's body may bring less than
	// httpfetch.ProgressBytes; 0 means httpfetch.DefaultIdleTimeout. The
	// trace, streamed as the runtime fills its buffers, gets its length
	// plus Slack.
	IdleTimeout time.Duration
	Client      *http.Client // nil: a client that refuses other hosts
	Log         func(format string, args ...any)
	// LivePath is where the service may mount the live monitor (live.Handler),
	// probed once after the other captures (check/live.go); "" does not look.
	LivePath string
	// MaxDumpGoroutines is the most goroutines at which a full dump
	// (debug=2) is taken; 0 means DefaultMaxDumpGoroutines, a negative
	// value never takes one.
	MaxDumpGoroutines int
	// MaxTotalBytes bounds all the answers of the check together; 0 means
	// DefaultTotalBytes. Each answer is also bounded by MaxBytes.
	MaxTotalBytes int64
}

func (o Options) maxDump() int {
	switch {
	case o.MaxDumpGoroutines < 0:
		return -1
	case o.MaxDumpGoroutines == 0:
		return DefaultMaxDumpGoroutines
	}
	return o.MaxDumpGoroutines
}

// Set is every capture of one check.
type Set struct {
	Target   string     `json:"target"`
	PID      int        `json:"pid,omitempty"`
	Tool     string     `json:"tool_version,omitempty"`
	Start    time.Time  `json:"start"`
	Captures []*Capture `json:"captures"`
	// Procs is the procs layer's summary (JSON), read with -pid.
	Procs []byte `json:"-"`
}

// Get returns the capture of a kind, nil if none.
func (s *Set) Get(kind string) *Capture {
	for _, c := range s.Captures {
		if c.Kind == kind {
			return c
		}
	}
	return nil
}

// Failed lists the captures that went wrong, one line each.
func (s *Set) Failed() []string {
	var out []string
	for _, c := range s.Captures {
		if c.Error != "" {
			out = append(out, fmt.Sprintf("%s: %s", c.Kind, c.Error))
		}
	}
	return out
}

// Skipped lists the captures not taken on purpose, one line each.
func (s *Set) Skipped() []string {
	var out []string
	for _, c := range s.Captures {
		if c.Skipped != "" {
			out = append(out, fmt.Sprintf("%s: %s", c.Kind, c.Skipped))
		}
	}
	return out
}

// CaptureError is the error of a check that captured nothing, naming
// every capture that failed; nil when something was captured. Both front
// ends (one target, and each target of a fleet) stop there with it.
func (s *Set) CaptureError() error {
	if s.Captured() > 0 {
		return nil
	}
	msg := "nothing could be captured"
	if f := s.Failed(); len(f) > 0 {
		msg += ":\n  " + strings.Join(f, "\n  ")
	}
	return errors.New(msg)
}

// Captured counts the captures that hold data.
func (s *Set) Captured() int {
	n := 0
	for _, c := range s.Captures {
		if c.OK() {
			n++
		}
	}
	return n
}

// ErrOtherHost is returned when the target redirects to a host other than
// the one given: check contacts only the URL given. It is httpfetch's one
// rule for every fetch.
var ErrOtherHost = httpfetch.ErrRedirect

// Client returns a client for base that follows redirects only within
// base's scheme and host (httpfetch.CheckRedirect: within the first
// request's, which is base's).
func Client(base *url.URL) *http.Client {
	return &http.Client{CheckRedirect: httpfetch.CheckRedirect}
}

// ParseBase checks a service URL and returns its base (scheme://host and
// any path prefix before /debug/pprof). Its error never shows a password.
func ParseBase(raw string) (*url.URL, error) {
	u, err := httpfetch.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/debug/pprof")
	u.RawPath = ""
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// HasScheme reports whether arg starts like a URL ("http:", "https:",
// "ftp:", any RFC 3986 scheme of two letters or more): such an argument is
// always a URL, never a directory that happens to be named "http:".
func HasScheme(arg string) bool {
	i := strings.IndexByte(arg, ':')
	if i < 2 { // "C:" is a drive, "" no scheme
		return false
	}
	for k, r := range arg[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || k > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// step is one capture Run may take.
type step struct {
	kind, path string
	q          url.Values
	secs       int
	optional   bool // a 404 means absent, not an error
	check      func([]byte) error
	// full is a debug=2 dump: taken only below the goroutine limit.
	full bool
	// count parses the answer for its goroutine count.
	count bool
}

// runner holds what every capture of a Run shares: the byte budget left,
// the goroutine count last read, and the capture that stalled.
type runner struct {
	opt     Options
	base    *url.URL
	client  *http.Client
	logf    func(string, ...any)
	left    int64 // bytes of the budget not yet used
	total   int64
	count   int    // goroutines at the last goroutine profile; -1 unknown
	stalled string // the kind whose answer stalled; "" none
}

// Run takes the captures in order, one at a time, and returns whatever it
// got: a failed capture is recorded and the next one taken, unless the
// context ends (Ctrl-C), which cancels the request in flight — the target
// stops its profile or trace when the client goes away — and ends the run.
//
// The target is never harmed: a full goroutine dump, which stops its
// world for as long as it takes, is taken only when the goroutine profile
// just before it counted fewer than Options.MaxDumpGoroutines; all the
// answers share one byte budget (Options.MaxTotalBytes); and once an
// answer stalls (httpfetch.ErrStalled) the target is asked nothing more.
// What was not taken says why (Capture.Skipped).
func Run(ctx context.Context, rawBase string, opt Options) (*Set, error) {
	base, err := ParseBase(rawBase)
	if err != nil {
		return nil, err
	}
	if opt.Seconds <= 0 {
		opt.Seconds = 10
	}
	if opt.TraceSeconds <= 0 {
		opt.TraceSeconds = max(1, opt.Seconds/3)
	}
	if opt.DeltaSeconds <= 0 {
		opt.DeltaSeconds = 2
	}
	if opt.Slack <= 0 {
		opt.Slack = 15 * time.Second
	}
	if opt.MaxTotalBytes <= 0 {
		opt.MaxTotalBytes = DefaultTotalBytes
	}
	r := &runner{opt: opt, base: base, client: opt.Client, logf: opt.Log, left: opt.MaxTotalBytes, total: opt.MaxTotalBytes, count: -1}
	if r.client == nil {
		r.client = Client(base)
	}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	s := &Set{Target: base.Redacted(), PID: opt.PID, Start: time.Now()}
	proto := url.Values{"debug": {"0"}}
	full := url.Values{"debug": {"2"}}
	steps := []step{
		{kind: KindGoroutineStartProto, path: "/debug/pprof/goroutine", q: proto, check: isGzip, count: true},
		{kind: KindGoroutineStart, path: "/debug/pprof/goroutine", q: full, check: isDump, full: true},
		{kind: KindProfile, path: "/debug/pprof/profile", q: url.Values{"seconds": {strconv.Itoa(opt.Seconds)}}, secs: opt.Seconds, check: isGzip},
		{kind: KindTrace, path: "/debug/pprof/trace", q: url.Values{"seconds": {strconv.Itoa(opt.TraceSeconds)}}, secs: opt.TraceSeconds, check: isTrace},
		{kind: KindMutex, path: "/debug/pprof/mutex", q: url.Values{"seconds": {strconv.Itoa(opt.DeltaSeconds)}}, secs: opt.DeltaSeconds, check: isGzip},
		{kind: KindBlock, path: "/debug/pprof/block", q: url.Values{"seconds": {strconv.Itoa(opt.DeltaSeconds)}}, secs: opt.DeltaSeconds, check: isGzip},
		// goroutineleak?debug=2 is a full dump with the leaked marked
		// (Go 1.26's writeGoroutineLeak): taken below the limit like the
		// others, else its profile, which lists only the leaked.
		{kind: KindLeak, path: "/debug/pprof/goroutineleak", q: full, optional: true, check: isDump, full: true},
		{kind: KindGoroutineEndProto, path: "/debug/pprof/goroutine", q: proto, check: isGzip, count: true},
		{kind: KindGoroutineEnd, path: "/debug/pprof/goroutine", q: full, check: isDump, full: true},
	}
	for _, st := range steps {
		if c := r.take(ctx, st); c != nil {
			s.Captures = append(s.Captures, c)
		}
	}
	if opt.LivePath != "" && ctx.Err() == nil && r.stalled == "" {
		s.Captures = append(s.Captures, captureLive(ctx, r, opt.LivePath)...)
	}
	return s, nil
}

// take takes one step, or records why not.
func (r *runner) take(ctx context.Context, st step) *Capture {
	if err := ctx.Err(); err != nil {
		return &Capture{Kind: st.kind, Error: "not taken: " + context.Cause(ctx).Error()}
	}
	if st.full && st.kind == KindLeak && !r.fullAllowed() {
		// Not a full dump then, but the leak profile proper.
		st.q, st.check, st.full = url.Values{"debug": {"0"}}, isGzip, false
	}
	if why := r.skip(st); why != "" {
		r.logf("%s: not taken: %s", st.kind, why)
		return &Capture{Kind: st.kind, Skipped: why}
	}
	u := *r.base
	u.Path = r.base.Path + st.path
	u.RawQuery = st.q.Encode()
	c := &Capture{Kind: st.kind, Endpoint: u.Redacted(), Start: time.Now()}
	r.logf("capturing %s (%s)", st.kind, c.Endpoint)
	cpu0 := procCPU(r.opt.PID)
	idle := r.opt.IdleTimeout
	if st.kind == KindTrace {
		idle = time.Duration(st.secs)*time.Second + r.opt.Slack
	}
	data, status, err := r.fetch(ctx, &u, time.Duration(st.secs)*time.Second+r.opt.Slack, idle)
	c.Duration = time.Since(c.Start).Seconds()
	if cpu1 := procCPU(r.opt.PID); cpu0 >= 0 && cpu1 >= cpu0 && err == nil {
		c.ProcessCPU = math.Round((cpu1-cpu0)*1000) / 1000
	}
	switch {
	case err != nil && st.optional && status == http.StatusNotFound:
		c.Absent = true
		r.logf("%s: absent (404): this Go or build has no %s", st.kind, st.path)
	case err != nil:
		c.Error = r.redact(err.Error())
		r.logf("%s: %s", st.kind, c.Error)
		if errors.Is(err, httpfetch.ErrStalled) {
			r.stalled = st.kind
		}
	default:
		if cerr := st.check(data); cerr != nil {
			c.Error = r.redact(fmt.Sprintf("%s: not a pprof answer: %v", c.Endpoint, cerr))
			r.logf("%s: %s", st.kind, c.Error)
			break
		}
		c.Data, c.Bytes = data, int64(len(data))
		if st.count || st.full {
			c.Goroutines = r.countOf(ctx, c)
		}
	}
	if st.count && c.Goroutines == 0 {
		r.count = -1 // this moment's count is unknown: no full dump
	}
	return c
}

// fullAllowed says whether a full dump may be taken now: the goroutine
// profile just before counted fewer than the limit.
func (r *runner) fullAllowed() bool {
	return r.count >= 0 && r.count < r.opt.maxDump()
}

// skip says why st is not taken, "" to take it.
func (r *runner) skip(st step) string {
	switch {
	case r.stalled != "":
		return fmt.Sprintf("the target stalled on %s: it is asked nothing more", r.stalled)
	case r.left <= 0:
		return fmt.Sprintf("the check's budget of %d bytes for all answers is spent", r.total)
	case st.full && r.opt.maxDump() < 0:
		return "full goroutine dumps (debug=2) are off; the goroutine profile (debug=0) stands in"
	case st.full && r.count < 0:
		return "the goroutine count is unknown (its goroutine profile failed): a full dump (debug=2) stops the target's world for as long as it takes"
	case st.full && r.count >= r.opt.maxDump():
		return fmt.Sprintf("%d goroutines, at or over the limit of %d for a full dump (debug=2), which stops the target's world for as long as it takes; the goroutine profile (debug=0) stands in",
			r.count, r.opt.maxDump())
	}
	return ""
}

// countOf reads a goroutine profile's or dump's count, and keeps it for
// the gate of the next full dump. 0 when it cannot be read.
func (r *runner) countOf(ctx context.Context, c *Capture) int {
	d, err := goroutines.Read(ctx, c.Endpoint, bytes.NewReader(c.Data), goroutines.ReadOptions{})
	if err != nil {
		return 0
	}
	n := d.Total
	if d.Declared > n {
		n = d.Declared
	}
	if c.Kind == KindGoroutineStartProto || c.Kind == KindGoroutineEndProto {
		r.count = n
		r.logf("%s: %d goroutines", c.Kind, n)
	}
	return n
}

func (r *runner) redact(s string) string { return httpfetch.Redact(s, r.base) }

// fetch takes one answer within the budget left and charges it.
func (r *runner) fetch(ctx context.Context, u *url.URL, timeout, idle time.Duration) ([]byte, int, error) {
	return r.fetchLimit(ctx, u, timeout, idle, MaxBytes)
}

func (r *runner) fetchLimit(ctx context.Context, u *url.URL, timeout, idle time.Duration, limit int64) ([]byte, int, error) {
	limit = min(limit, r.left)
	if limit <= 0 {
		// httpfetch reads a zero limit as none: never ask then.
		return nil, 0, fmt.Errorf("%s: not taken: the check's budget of %d bytes for all answers is spent", u.Redacted(), r.total)
	}
	data, status, err := fetch(ctx, r.client, u, timeout, idle, limit)
	r.left -= int64(len(data))
	return data, status, err
}

// fetch GETs u with a timeout, an idle timeout and a limit (httpfetch says what went
// wrong, naming the endpoint) and returns the HTTP status when there was
// one: a 404 makes an optional endpoint absent, and a 200 with an error
// (an HTML page) tells captureLive that something else answers there.
func fetch(ctx context.Context, client *http.Client, u *url.URL, timeout, idle time.Duration, limit int64) ([]byte, int, error) {
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{Client: client, Timeout: timeout, IdleTimeout: idle, Limit: limit})
	if err != nil {
		return nil, httpfetch.Status(err), err
	}
	defer resp.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, resp.Status, resp.Err(err)
	}
	return data, resp.Status, nil
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// The checks below only tell pprof answers from pages and garbage; the
// readers judge the content.
func isGzip(b []byte) error {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return fmt.Errorf("not a gzipped profile (starts %q)", firstLine(b[:min(len(b), 40)]))
	}
	return nil
}

func isTrace(b []byte) error {
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		return fmt.Errorf("not a Go execution trace (starts %q)", firstLine(b[:min(len(b), 40)]))
	}
	return nil
}

func isDump(b []byte) error {
	if !bytes.HasPrefix(b, []byte("goroutine ")) && !bytes.HasPrefix(b, []byte("goroutine profile:")) &&
		!bytes.HasPrefix(b, []byte("goroutineleak profile:")) {
		return fmt.Errorf("not a goroutine dump (starts %q)", firstLine(b[:min(len(b), 40)]))
	}
	return nil
}

// procCPU returns the user+system CPU seconds of pid from /proc/PID/stat,
// -1 when unknown.
func procCPU(pid int) float64 {
	if pid <= 0 {
		return -1
	}
	st, err := procstat.Read(pid)
	if err != nil {
		return -1
	}
	return st.CPU().Seconds()
}
