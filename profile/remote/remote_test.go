package remote

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/profile"
	"github.com/schedoctor/schedoctor/profile/remote/remotetest"
)

// raw is a lab profile of the profile package's testdata, decompressed:
// what a pprof message field holds.
func raw(t *testing.T, name string) []byte {
	return remotetest.Decompressed(t, "../testdata/lab/"+name)
}

var (
	until = time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	from  = until.Add(-time.Hour)
	sel   = `{service_name="api"}`
	query = Query{Selector: sel, From: from, Until: until}
)

func TestPyroscopeMerge(t *testing.T) {
	f := remotetest.NewPyroscope(t)
	want := raw(t, "busyselect.pb.gz")
	f.Profiles[sel] = want
	c, err := New(Pyroscope, f.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Merge(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if p.Method != "SelectMergeStacktraces" || p.Fallback != "" || len(p.Filled) != 0 {
		t.Errorf("method %q fallback %q filled %q, want SelectMergeStacktraces alone", p.Method, p.Fallback, p.Filled)
	}
	fromFile, err := pprof.ParseData(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != len(fromFile.Sample) || p.DurationNanos != fromFile.DurationNanos {
		t.Errorf("got %d samples over %d ns, want the file's %d over %d", len(p.Sample), p.DurationNanos, len(fromFile.Sample), fromFile.DurationNanos)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	for n, want := range map[int]string{
		1: "process_cpu:cpu:nanoseconds:cpu:nanoseconds", 2: sel,
		3: strconv.FormatInt(from.UnixMilli(), 10), 4: strconv.FormatInt(until.UnixMilli(), 10), 6: "4",
	} {
		if got := r.Field(n); got != want {
			t.Errorf("field %d = %q, want %q", n, got, want)
		}
	}
	if r.Header.Get("X-Scope-OrgID") != "" || r.Header.Get("Authorization") != "" {
		t.Errorf("a tenant or credentials sent unasked: %v", r.Header)
	}
	if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		t.Errorf("Accept-Encoding %q: the answer is not gzipped, as Pyroscope's is", r.Header.Get("Accept-Encoding"))
	}
}

// TestPyroscopeFallback: a server older than the pprof format answers a
// flame graph; one without the method answers unimplemented; both are
// asked SelectMergeProfile next, with the same fields but the format.
func TestPyroscopeFallback(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(*remotetest.Pyroscope)
		reason string
	}{
		{"legacy", func(f *remotetest.Pyroscope) { f.Legacy = true }, "answered no pprof profile"},
		{"unimplemented", func(f *remotetest.Pyroscope) { f.NoStacktraces = true }, "unimplemented"},
		{"not found", func(f *remotetest.Pyroscope) {
			f.Answer = func(w http.ResponseWriter, r *http.Request, m string) bool {
				if m == "SelectMergeStacktraces" {
					http.NotFound(w, r)
					return true
				}
				return false
			}
		}, "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := remotetest.NewPyroscope(t)
			f.Profiles[sel] = raw(t, "busyselect.pb.gz")
			tc.set(f)
			c, _ := New(Pyroscope, f.URL, Options{})
			p, err := c.Merge(context.Background(), query)
			if err != nil {
				t.Fatal(err)
			}
			if p.Method != "SelectMergeProfile" || !strings.Contains(p.Fallback, tc.reason) {
				t.Errorf("method %q fallback %q, want SelectMergeProfile because %s", p.Method, p.Fallback, tc.reason)
			}
			reqs := f.Requests()
			if len(reqs) != 2 || reqs[0].Method != "SelectMergeStacktraces" || reqs[1].Method != "SelectMergeProfile" {
				t.Fatalf("calls %v, want SelectMergeStacktraces then SelectMergeProfile", reqs)
			}
			for n := 1; n <= 4; n++ {
				if reqs[0].Field(n) != reqs[1].Field(n) {
					t.Errorf("field %d: %q then %q", n, reqs[0].Field(n), reqs[1].Field(n))
				}
			}
		})
	}
}

func TestPyroscopeErrors(t *testing.T) {
	big := raw(t, "busyselect.pb.gz")
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request, m string) bool
		opt    Options
		is     error
		want   []string
		not    []string
	}{{
		name: "unauthenticated",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			remotetest.ConnectError(w, "unauthenticated", "no org id")
			return true
		},
		want: []string{"Pyroscope answered unauthenticated (HTTP 401) to SelectMergeStacktraces", `"no org id"`, "wants credentials"},
	}, {
		name: "proxy 401",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("WWW-Authenticate", `Basic realm="profiles"`)
			http.Error(w, "Unauthorized", 401)
			return true
		},
		is:   httpfetch.ErrStatus,
		want: []string{"server answered 401 Unauthorized to SelectMergeStacktraces: it wants credentials"},
		not:  []string{"localhost-only", "pprof"},
	}, {
		name: "proxy 403 with a token",
		opt:  Options{Token: "abc123"},
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			http.Error(w, "Forbidden", 403)
			return true
		},
		want: []string{"server answered 403 Forbidden to SelectMergeStacktraces: it refused the credentials given"},
	}, {
		name: "token echoed",
		opt:  Options{Token: "s3cr3t-t0ken"},
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			remotetest.ConnectError(w, "permission_denied", "token s3cr3t-t0ken may not read tenant x")
			return true
		},
		want: []string{"permission_denied (HTTP 403)", "token xxxxx may not"},
		not:  []string{"s3cr3t"},
	}, {
		name: "password echoed",
		opt:  Options{Username: "ops", Password: "hunter22"},
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			http.Error(w, "bad login ops:hunter22 "+r.Header.Get("Authorization"), http.StatusBadGateway)
			return true
		},
		want: []string{"502 Bad Gateway"},
		not:  []string{"hunter22", base64.StdEncoding.EncodeToString([]byte("ops:hunter22"))},
	}, {
		name: "invalid argument",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			remotetest.ConnectError(w, "invalid_argument", "parse error at line 1, col 2: unexpected \x1b[31m")
			return true
		},
		want: []string{"invalid_argument (HTTP 400)", `unexpected ?[31m`, "check the selector"},
		not:  []string{"\x1b"},
	}, {
		name: "no route",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			http.NotFound(w, r)
			return true
		},
		want: []string{"404 Not Found to SelectMergeProfile: no Pyroscope query API at this address; is it Pyroscope's HTTP address (port 4040"},
		not:  []string{"net/http/pprof", "after"},
	}, {
		name: "unimplemented twice",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			remotetest.ConnectError(w, "unimplemented", m+" is not implemented")
			return true
		},
		want: []string{"unimplemented (HTTP 501) to SelectMergeProfile", "(after SelectMergeStacktraces: "},
	}, {
		name: "login page",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!doctype html><title>Sign in</title>")
			return true
		},
		is:   httpfetch.ErrHTML,
		want: []string{`HTML page ("Sign in")`},
	}, {
		name: "JSON instead of proto",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"flamegraph":{}}`)
			return true
		},
		want: []string{`Content-Type is "application/json", not application/proto`},
	}, {
		name: "garbage",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/proto")
			w.Write([]byte{0x2a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2})
			return true
		},
		is:   errBadProto,
		want: []string{"runs past"},
	}, {
		name: "oversize",
		opt:  Options{Read: profile.ReadOptions{MaxBytes: 1000}},
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/proto")
			w.Write(append([]byte{0x2a, 0x80, 0x80, 0x04, 0x0a, 0x80, 0x80, 0x04}, big...))
			return true
		},
		is:   httpfetch.ErrTooLarge,
		want: []string{"larger than the limit"}, // the CLI adds its flag (errorHint)
	}, {
		name: "slow",
		opt:  Options{Timeout: 300 * time.Millisecond},
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return true
		},
		is:   context.DeadlineExceeded,
		want: []string{"no answer within 300ms"},
	}, {
		name: "empty range",
		answer: func(w http.ResponseWriter, r *http.Request, m string) bool {
			return false // the fake has no profile for the selector: an empty one
		},
		is:   ErrNoData,
		want: []string{"no process_cpu:cpu:nanoseconds:cpu:nanoseconds samples for {service_name=\"api\"} from 2026-11-27T00:00:00Z"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := remotetest.NewPyroscope(t)
			f.Answer = tc.answer
			c, err := New(Pyroscope, f.URL, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Merge(context.Background(), query)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q holds %q", err, w)
				}
			}
		})
	}
}

func TestPyroscopeAuth(t *testing.T) {
	for _, tc := range []struct {
		opt        Options
		user       string
		tenant, au string
	}{
		{Options{Tenant: "team-a"}, "", "team-a", ""},
		{Options{Username: "ops", Password: "pw"}, "", "", "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:pw"))},
		{Options{Token: "glc_abc"}, "", "", "Bearer glc_abc"},
		{Options{Username: "ops", Password: "pw", Token: "glc_abc"}, "", "", "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:pw"))},
		{Options{Token: "glc_abc"}, "u:p@", "", "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))},
	} {
		f := remotetest.NewPyroscope(t)
		f.Profiles[sel] = raw(t, "busyselect.pb.gz")
		c, err := New(Pyroscope, strings.Replace(f.URL, "http://", "http://"+tc.user, 1), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Merge(context.Background(), query); err != nil {
			t.Fatal(err)
		}
		h := f.Requests()[0].Header
		if h.Get("X-Scope-OrgID") != tc.tenant || h.Get("Authorization") != tc.au {
			t.Errorf("%+v: tenant %q authorization %q, want %q %q", tc.opt, h.Get("X-Scope-OrgID"), h.Get("Authorization"), tc.tenant, tc.au)
		}
	}
}

// TestRedirectKeepsCredentials: a server that redirects to another host
// gets an error, and the other host never sees the token.
func TestRedirectKeepsCredentials(t *testing.T) {
	other := remotetest.NewPyroscope(t)
	f := remotetest.NewPyroscope(t)
	f.Answer = func(w http.ResponseWriter, r *http.Request, m string) bool {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		return true
	}
	c, _ := New(Pyroscope, f.URL, Options{Token: "glc_abc", Tenant: "t"})
	_, err := c.Merge(context.Background(), query)
	if !errors.Is(err, httpfetch.ErrRedirect) {
		t.Errorf("error %v, want a refused redirect", err)
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

func TestSplit(t *testing.T) {
	f := remotetest.NewPyroscope(t)
	f.Values = []string{"pod-c", "pod-a", "pod-b", "pod-a", "", "pod-d"}
	f.Profiles[`{service_name="api", pod="pod-a"}`] = raw(t, "workerpool.pb.gz")
	f.Profiles[`{service_name="api", pod="pod-b"}`] = raw(t, "busyselect.pb.gz")
	f.Profiles[`{service_name="api", pod="pod-c"}`] = raw(t, "workerpool.pb.gz")
	// pod-d: no data in the range.
	c, _ := New(Pyroscope, f.URL, Options{})
	s, err := c.Split(context.Background(), "pod", query, SplitOptions{MaxValues: 3})
	if err != nil {
		t.Fatal(err)
	}
	if s.Values != 4 || s.Cut() != 1 || len(s.Parts) != 3 {
		t.Fatalf("%d values, %d cut, %d parts; want 4, 1, 3", s.Values, s.Cut(), len(s.Parts))
	}
	for i, want := range []string{"pod-a", "pod-b", "pod-c"} {
		if p := s.Parts[i]; p.Value != want || p.Err != nil || p.Profile == nil {
			t.Errorf("part %d: %q %v, want %s with a profile", i, p.Value, p.Err, want)
		}
	}
	lv := f.Requests()[0]
	if lv.Method != "LabelValues" || lv.Field(1) != "pod" ||
		lv.Field(2) != `{service_name="api", __profile_type__="process_cpu:cpu:nanoseconds:cpu:nanoseconds"}` {
		t.Errorf("first call %s name %q matchers %q", lv.Method, lv.Field(1), lv.Field(2))
	}
	s, err = c.Split(context.Background(), "pod", query, SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Parts[3]; d.Value != "pod-d" || !errors.Is(d.Err, ErrNoData) {
		t.Errorf("pod-d: %v, want no data", d.Err)
	}
	if _, err := c.Split(context.Background(), "pod-name", query, SplitOptions{}); err == nil {
		t.Error("a label name with a dash accepted")
	}
}

func TestWithLabel(t *testing.T) {
	for _, tc := range []struct{ sel, label, value, want string }{
		{`{service_name="api"}`, "pod", "a", `{service_name="api", pod="a"}`},
		{`{}`, "pod", "a", `{pod="a"}`},
		{` { } `, "pod", "a", `{ pod="a"}`},
		{`{a="}"}`, "pod", `x"y\`, `{a="}", pod="x\"y\\"}`},
		{`process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta{job="x"}`, "pod", "p", `process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta{job="x", pod="p"}`},
	} {
		got, err := WithLabel(tc.sel, tc.label, tc.value)
		if err != nil || got != tc.want {
			t.Errorf("WithLabel(%q, %q, %q) = %q, %v; want %q", tc.sel, tc.label, tc.value, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ sel, label string }{{`service_name="api"`, "pod"}, {`{a="b"} x`, "pod"}, {`{}`, "1pod"}, {`{}`, `pod="x",a`}} {
		if got, err := WithLabel(tc.sel, tc.label, "v"); err == nil {
			t.Errorf("WithLabel(%q, %q) = %q, want an error", tc.sel, tc.label, got)
		}
	}
}

func TestQueryChecks(t *testing.T) {
	c, _ := New(Pyroscope, "http://127.0.0.1:1", Options{})
	for _, q := range []Query{
		{Selector: "", From: from, Until: until},
		{Selector: `service_name="api"`, From: from, Until: until},
		{Selector: `process_cpu:cpu:nanoseconds:cpu:nanoseconds{a="b"}`, From: from, Until: until},
		{Selector: sel, From: until, Until: from},
		{Selector: sel, Type: "heap", From: from, Until: until},
		{Selector: sel, Type: "a:b", From: from, Until: until},
	} {
		if _, err := c.Merge(context.Background(), q); err == nil || strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("%+v: error %v, want a refusal before any request", q, err)
		}
	}
}

// TestFill: Pyroscope's merged profile has CPU time only, no duration and
// no period; the analysis gets the window as duration and one sample per
// 10 ms, so that a spin of a few merged stacks passes the minimum of
// samples as it does in the process's own profile.
func TestFill(t *testing.T) {
	p, err := pprof.ParseData(raw(t, "busyselect.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string]bool{}
	for _, st := range p.SampleType {
		samples[st.Type] = true
	}
	if !samples["samples"] || !samples["cpu"] {
		t.Fatalf("sample types %v", p.SampleType)
	}
	// As Pyroscope rebuilds it: the cpu value alone.
	ci := 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			ci = i
		}
	}
	var cpu int64
	for _, s := range p.Sample {
		s.Value = []int64{s.Value[ci]}
		cpu += s.Value[0]
	}
	p.SampleType = []*pprof.ValueType{{Type: "cpu", Unit: "nanoseconds"}}
	p.DurationNanos, p.Period = 0, 0
	filled := fill(p, time.Hour)
	if len(filled) != 2 || p.DurationNanos != int64(time.Hour) {
		t.Fatalf("filled %q, duration %d", filled, p.DurationNanos)
	}
	var n int64
	for _, s := range p.Sample {
		n += s.Value[1]
	}
	if want := cpu / int64(10*time.Millisecond); n < want-int64(len(p.Sample)) || n > want+int64(len(p.Sample)) {
		t.Errorf("%d samples for %d ns of CPU, want about %d", n, cpu, want)
	}
	if err := p.CheckValid(); err != nil {
		t.Error(err)
	}
	// A profile that has both is left as it is.
	q, _ := pprof.ParseData(raw(t, "busyselect.pb.gz"))
	if got := fill(q, time.Hour); len(got) != 0 {
		t.Errorf("filled %q in a complete profile", got)
	}
}

func TestGroup(t *testing.T) {
	spin := finding.Finding{Rule: "SD204", Severity: finding.Warning, What: "spin",
		Locations: []finding.Location{{File: "/src/x.go", Line: 37, Function: "main.bad"}},
		Evidence:  []finding.Evidence{{Label: "cores", Value: 0.5, Unit: "cores"}}}
	spinB := spin
	spinB.Evidence = []finding.Evidence{{Label: "cores", Value: 0.9, Unit: "cores"}}
	gc := finding.Finding{Rule: "SD207", Severity: finding.Info, What: "gc"}
	got := Group("pod", 5, []ValueFindings{
		{"pod-a", []finding.Finding{spin, gc}},
		{"pod-b", nil},
		{"pod-c", []finding.Finding{spinB}},
		{"pod-d", []finding.Finding{gc}},
	})
	if len(got) != 2 {
		t.Fatalf("%d findings, want 2", len(got))
	}
	if s := got[0].Text(); !strings.Contains(s, "in 2 of 5 pods: pod-a, pod-c (the figures are pod-c's)") {
		t.Errorf("spin: %s", s)
	}
	if got[0].Evidence[0].Value != 0.9 {
		t.Errorf("spin's figures are not the worst pod's: %v", got[0].Evidence)
	}
	if s := got[1].Text(); !strings.Contains(s, "in 2 of 5 pods: pod-a, pod-d (the figures") {
		t.Errorf("gc: %s", s)
	}
	if len(spin.Notes) != 0 || len(spin.Evidence) != 1 {
		t.Error("Group wrote into its input")
	}
	one := Group("service_name", 3, []ValueFindings{{"api", []finding.Finding{spin}}})
	if s := one[0].Text(); !strings.Contains(s, "in 1 of 3 values of service_name: api") || strings.Contains(s, "figures") {
		t.Errorf("one: %s", s)
	}
}

func TestParca(t *testing.T) {
	f := remotetest.NewParca(t)
	whole := "process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta" + sel
	f.Profiles[whole] = raw(t, "busyselect.pb.gz")
	f.Values = []string{"pod-b", "pod-x"}
	f.Profiles[`process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta{service_name="api", pod="pod-b"}`] = raw(t, "busyselect.pb.gz")
	c, _ := New(Parca, f.URL, Options{Token: "tok"})
	p, err := c.Merge(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if p.Method != "Query" || len(p.Sample) == 0 {
		t.Errorf("method %q, %d samples", p.Method, len(p.Sample))
	}
	r := f.Requests()[0]
	for k, want := range map[string]string{
		"mode": "MODE_MERGE", "report_type": "REPORT_TYPE_PPROF", "merge.query": whole,
		"merge.start": "2026-11-27T00:00:00Z", "merge.end": "2026-11-27T01:00:00Z",
	} {
		if r.Params[k] != want {
			t.Errorf("%s = %q, want %q", k, r.Params[k], want)
		}
	}
	if r.Header.Get("Authorization") != "Bearer tok" {
		t.Errorf("Authorization %q", r.Header.Get("Authorization"))
	}
	s, err := c.Split(context.Background(), "pod", query, SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Parts) != 2 || s.Parts[0].Err != nil || !errors.Is(s.Parts[1].Err, ErrNoData) {
		t.Errorf("parts %+v: want pod-b's profile and no data for pod-x", s.Parts)
	}
	v := f.Requests()[1]
	if v.Method != "Values" || v.Params["label_name"] != "pod" || v.Params["profile_type"] != "process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta" {
		t.Errorf("values request %+v", v)
	}
	// A query with its type, and a type given twice.
	if _, err := c.Merge(context.Background(), Query{Selector: whole, From: from, Until: until}); err != nil {
		t.Error(err)
	}
	if _, err := c.Merge(context.Background(), Query{Selector: whole, Type: "process_cpu", From: from, Until: until}); err == nil {
		t.Error("a type given twice accepted")
	}
}

func TestParcaErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request, m string) bool
		want   string
	}{
		{"unauthenticated", func(w http.ResponseWriter, r *http.Request, m string) bool {
			remotetest.GatewayError(w, 401, 16, "missing token")
			return true
		}, `Parca answered unauthenticated (HTTP 401) to Query: "missing token"`},
		{"no pprof", func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"flamegraph":{},"total":"3"}`)
			return true
		}, "holds no pprof report"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"pprof": 12`)
			return true
		}, "not the JSON of Query's response"},
		{"grpc-web only", func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "ok")
			return true
		}, `Content-Type is "text/plain", not application/json`},
		{"not a profile", func(w http.ResponseWriter, r *http.Request, m string) bool {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"pprof":"`+base64.StdEncoding.EncodeToString([]byte("hello, world"))+`"}`)
			return true
		}, "this is text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := remotetest.NewParca(t)
			f.Answer = tc.answer
			c, _ := New(Parca, f.URL, Options{})
			_, err := c.Merge(context.Background(), query)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	f := remotetest.NewParca(t)
	c, _ := New(Parca, f.URL, Options{})
	if _, err := c.Merge(context.Background(), query); !errors.Is(err, ErrNoData) {
		t.Errorf("no data: %v", err)
	}
	// A path the gateway has no route for is a wrong address, not "no data".
	c, _ = New(Parca, f.URL+"/parca", Options{})
	if _, err := c.Merge(context.Background(), query); errors.Is(err, ErrNoData) || err == nil ||
		!strings.Contains(err.Error(), "no Parca query API at this address; is it Parca's HTTP address (port 7070") {
		t.Errorf("wrong path: %v", err)
	}
}

// TestProtoReader: the walk refuses what is no message, at its byte.
func TestProtoReader(t *testing.T) {
	for _, b := range [][]byte{
		{0x00},             // field 0
		{0x2b},             // field 5, wire type 3 (a group)
		{0x2a, 0x05, 0x01}, // a field longer than the rest
		{0x2a, 0x80},       // a cut length
	} {
		c, _ := New(Pyroscope, "http://x", Options{})
		if _, err := c.readStacktraces(context.Background(), "x", bytes.NewReader(b), int64(len(b))); err == nil || errors.Is(err, errNoPprof) {
			t.Errorf("% x: %v", b, err)
		}
	}
	vs, err := readStrings(bytes.NewReader([]byte{0x0a, 0x01, 'a', 0x10, 0x05, 0x0a, 0x00}), 1, 100)
	if err != nil || len(vs) != 2 || vs[0] != "a" || vs[1] != "" {
		t.Errorf("readStrings: %q %v", vs, err)
	}
}

// FuzzAnswer: no answer body makes the readers panic or read past their
// limit.
func FuzzAnswer(f *testing.F) {
	f.Add([]byte{0x2a, 0x02, 0x0a, 0x00})
	f.Add([]byte{0x0a, 0x03, 'a', 'b', 'c', 0x2a, 0x80})
	f.Add([]byte{0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x00})
	c, _ := New(Pyroscope, "http://x", Options{Read: profile.ReadOptions{MaxBytes: 1 << 16}})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		c.readStacktraces(context.Background(), "x", r, int64(len(b)))
		c.readProfile(context.Background(), "x", bytes.NewReader(b), int64(len(b)))
		readStrings(bytes.NewReader(b), 1, int64(len(b)))
	})
}

func TestSplitSummaryText(t *testing.T) {
	s := &SplitSummary{
		Origin: &Origin{Server: "Pyroscope", URL: "http://p:4040", Query: sel, Type: "process_cpu:cpu:nanoseconds:cpu:nanoseconds", From: from, Until: until},
		Label:  "pod", Listed: 70, Cut: 6,
		Values: []ValueShare{
			{Value: "a", Cores: 1.5, Samples: 900, Findings: 1, Rules: []string{"SD204"}, Filled: []string{"duration: x"}},
			{Value: "b\x1b[31m", Cores: 0.2, Samples: 120, Filled: []string{"duration: x"}},
			{Value: "c", NoData: true},
			{Value: "d", Error: "boom"},
		},
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"split by pod: 70 values, the first 4 asked (6 more not", "SD204", "clean", "no samples in the range",
		"error: boom", "filled in (2 of 4 values): duration: x"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape printed:\n%q", out)
	}
}
