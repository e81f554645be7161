// Package check captures every runtime source of one live service that
// mounts net/http/pprof — goroutine dumps, a CPU profile, an execution
// trace, mutex/block/leak profiles, and with a PID the process layer — one
// capture at a time, and keeps the raw bytes so that they can be saved to
// a directory and diagnosed again offline (Load). The join of the sources'
// findings is diagnose.Check's.
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
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
)

// Kinds of capture, in the order Run takes them.
const (
	KindGoroutineStart = "goroutine-start"
	KindProfile        = "profile"
	KindTrace          = "trace"
	KindMutex          = "mutex"
	KindBlock          = "block"
	KindLeak           = "goroutineleak"
	KindGoroutineEnd   = "goroutine-end"
)

// MaxBytes caps every answer: the size cap the readers use (profile.MaxSize,
// goroutines.DefaultMaxBytes), so nothing larger is ever held in memory.
const MaxBytes = 256 << 20

// Capture is one fetch: what, from where, when, how long, and what went
// wrong. Data is the raw answer (nil when it failed or was absent).
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
	// ProcessCPU is the CPU time (user+system) the target's process got
	// during the capture, from /proc/PID/stat; 0 unknown.
	ProcessCPU float64 `json:"process_cpu_seconds,omitempty"`
	Data       []byte  `json:"-"`
}

// OK reports whether the capture holds data.
func (c *Capture) OK() bool { return c != nil && c.Error == "" && !c.Absent && len(c.Data) > 0 }

// Options tune Run.
type Options struct {
	Seconds      int // CPU profile length; 0 means 10
	TraceSeconds int // trace length; 0 means max(1, Seconds/3)
	// DeltaSeconds is the mutex/block delta window; 0 means 2.
	DeltaSeconds int
	PID          int           // the target's process on this machine; 0 none
	Slack        time.Duration // added to each fetch's own length for its timeout; 0 means 15s
	Client       *http.Client  // nil: a client that refuses other hosts
	Log          func(format string, args ...any)
	// LivePath is where the service may mount the live monitor (live.Handler),
	// probed once after the other captures (check/live.go); "" does not look.
	LivePath string
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
// the one given: check contacts only the URL given.
var ErrOtherHost = errors.New("redirect to another host refused")

// Client returns a client for base that follows redirects only within
// base's scheme and host.
func Client(base *url.URL) *http.Client {
	return &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != base.Host || req.URL.Scheme != base.Scheme {
			return fmt.Errorf("%w (%s)", ErrOtherHost, req.URL.Redacted())
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return nil
	}}
}

// ParseBase checks a service URL and returns its base (scheme://host and
// any path prefix before /debug/pprof).
func ParseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: not an http(s) URL", raw)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/debug/pprof")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// Run takes the captures in order, one at a time, and returns whatever it
// got: a failed capture is recorded and the next one taken, unless the
// context ends (Ctrl-C), which cancels the request in flight — the target
// stops its profile or trace when the client goes away — and ends the run.
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
	client := opt.Client
	if client == nil {
		client = Client(base)
	}
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	s := &Set{Target: base.Redacted(), PID: opt.PID, Start: time.Now()}
	steps := []struct {
		kind, path string
		q          url.Values
		secs       int
		optional   bool // a 404 means absent, not an error
		check      func([]byte) error
	}{
		{KindGoroutineStart, "/debug/pprof/goroutine", url.Values{"debug": {"2"}}, 0, false, isDump},
		{KindProfile, "/debug/pprof/profile", url.Values{"seconds": {strconv.Itoa(opt.Seconds)}}, opt.Seconds, false, isGzip},
		{KindTrace, "/debug/pprof/trace", url.Values{"seconds": {strconv.Itoa(opt.TraceSeconds)}}, opt.TraceSeconds, false, isTrace},
		{KindMutex, "/debug/pprof/mutex", url.Values{"seconds": {strconv.Itoa(opt.DeltaSeconds)}}, opt.DeltaSeconds, false, isGzip},
		{KindBlock, "/debug/pprof/block", url.Values{"seconds": {strconv.Itoa(opt.DeltaSeconds)}}, opt.DeltaSeconds, false, isGzip},
		{KindLeak, "/debug/pprof/goroutineleak", url.Values{"debug": {"2"}}, 0, true, isDump},
		{KindGoroutineEnd, "/debug/pprof/goroutine", url.Values{"debug": {"2"}}, 0, false, isDump},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			s.Captures = append(s.Captures, &Capture{Kind: st.kind, Error: "not taken: " + context.Cause(ctx).Error()})
			continue
		}
		u := *base
		u.Path = base.Path + st.path
		u.RawQuery = st.q.Encode()
		c := &Capture{Kind: st.kind, Endpoint: u.Redacted(), Start: time.Now()}
		logf("capturing %s (%s)", st.kind, c.Endpoint)
		cpu0 := procCPU(opt.PID)
		data, status, err := fetch(ctx, client, &u, time.Duration(st.secs)*time.Second+opt.Slack)
		c.Duration = time.Since(c.Start).Seconds()
		if cpu1 := procCPU(opt.PID); cpu0 >= 0 && cpu1 >= cpu0 && err == nil {
			c.ProcessCPU = math.Round((cpu1-cpu0)*1000) / 1000
		}
		switch {
		case err != nil && st.optional && status == http.StatusNotFound:
			c.Absent = true
			c.Error = ""
			logf("%s: absent (404): this Go or build has no %s", st.kind, st.path)
		case err != nil:
			c.Error = err.Error()
			logf("%s: %v", st.kind, err)
		default:
			if cerr := st.check(data); cerr != nil {
				c.Error = fmt.Sprintf("%s: not a pprof answer: %v", c.Endpoint, cerr)
				logf("%s: %s", st.kind, c.Error)
			} else {
				c.Data = data
			}
		}
		s.Captures = append(s.Captures, c)
	}
	if opt.LivePath != "" && ctx.Err() == nil {
		s.Captures = append(s.Captures, captureLive(ctx, client, base, opt.LivePath, opt.Slack, logf)...)
	}
	return s, nil
}

// fetch GETs u with a timeout and MaxBytes (httpfetch says what went
// wrong, naming the endpoint) and returns the HTTP status when there was
// one: a 404 makes an optional endpoint absent, and a 200 with an error
// (an HTML page) tells captureLive that something else answers there.
func fetch(ctx context.Context, client *http.Client, u *url.URL, timeout time.Duration) ([]byte, int, error) {
	resp, err := httpfetch.Get(ctx, u, httpfetch.Options{Client: client, Timeout: timeout, Limit: MaxBytes})
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
// -1 when unknown. USER_HZ is 100 on every Linux the kernel ABI allows
// user space to see (sysconf(_SC_CLK_TCK)).
func procCPU(pid int) float64 {
	if pid <= 0 {
		return -1
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return float64(ut+st) / 100
}
