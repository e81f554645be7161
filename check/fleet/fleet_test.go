package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/schedoctor/schedoctor/check"
	"github.com/schedoctor/schedoctor/finding"
)

// promTarget is one active target as Prometheus's API lists it.
type promTarget struct {
	DiscoveredLabels map[string]string `json:"discoveredLabels"`
	Labels           map[string]string `json:"labels"`
	ScrapePool       string            `json:"scrapePool"`
	ScrapeURL        string            `json:"scrapeUrl"`
	GlobalURL        string            `json:"globalUrl"`
	LastError        string            `json:"lastError"`
	LastScrape       time.Time         `json:"lastScrape"`
	Health           string            `json:"health"`
	ScrapeInterval   string            `json:"scrapeInterval"`
	ScrapeTimeout    string            `json:"scrapeTimeout"`
}

// target is a target of job job scraped at base (http://host:port).
func target(job, base, health, lastError string, extra ...string) promTarget {
	u, _ := url.Parse(base)
	t := promTarget{
		DiscoveredLabels: map[string]string{"__address__": u.Host, "__scheme__": "http", "__metrics_path__": "/metrics", "job": job},
		Labels:           map[string]string{"instance": u.Host, "job": job},
		ScrapePool:       job, ScrapeURL: base + "/metrics", GlobalURL: base + "/metrics",
		LastError: lastError, Health: health, ScrapeInterval: "1s", ScrapeTimeout: "1s",
		LastScrape: time.Now(),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		t.Labels[extra[i]] = extra[i+1]
	}
	return t
}

// fakeProm answers /api/v1/targets like Prometheus v3 does (the envelope
// of web/api/v1/api.go), filtering by scrapePool as it does, and fails
// the test if it is asked for the unfiltered list.
func fakeProm(t *testing.T, targets ...promTarget) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/targets" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if q.Get("state") != "active" || q.Get("scrapePool") == "" {
			t.Errorf("asked for %s: want state=active and a scrapePool", r.URL)
		}
		var active []promTarget
		for _, tg := range targets {
			if tg.ScrapePool == q.Get("scrapePool") {
				active = append(active, tg)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
			"activeTargets": active, "droppedTargets": []any{}, "droppedTargetCounts": map[string]int{}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

const labSet = "../../internal/cli/testdata/check/lab"

// labTarget serves the captures of the lab service saved by a real check
// (internal/cli/testdata/check/lab: SD204 at main.go:98, a busy select)
// at its pprof endpoints; the goroutine profile (debug=0), which that
// check predates, is this process's.
func labTarget(t *testing.T) *httptest.Server {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(labSet, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	files := map[string][]byte{}
	for _, n := range []string{"goroutine-start.txt", "goroutine-end.txt", "profile.pb.gz", "trace.out", "mutex.pb.gz", "block.pb.gz"} {
		files[n] = read(n)
	}
	var mu sync.Mutex
	dumps := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/debug/pprof/goroutine":
			if r.URL.Query().Get("debug") == "2" {
				mu.Lock()
				n := map[bool]string{true: "goroutine-start.txt", false: "goroutine-end.txt"}[dumps == 0]
				dumps++
				mu.Unlock()
				w.Write(files[n])
				return
			}
			pprof.Handler("goroutine").ServeHTTP(w, r)
		case "/debug/pprof/profile":
			w.Write(files["profile.pb.gz"])
		case "/debug/pprof/trace":
			w.Write(files["trace.out"])
		case "/debug/pprof/mutex":
			w.Write(files["mutex.pb.gz"])
		case "/debug/pprof/block":
			w.Write(files["block.pb.gz"])
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var (
	quietOnce sync.Once
	quietSet  map[string][]byte
	quietErr  error
)

// quietTarget serves captures of this test process taken once by a real
// check through net/http/pprof, while it idles: a healthy target. They
// are replayed, so that several such targets may be checked at once
// (a process runs one CPU profile at a time).
func quietTarget(t *testing.T) *httptest.Server {
	t.Helper()
	quietOnce.Do(func() {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		srv := httptest.NewServer(mux)
		defer srv.Close()
		set, err := check.Run(context.Background(), srv.URL, check.Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1})
		if err != nil {
			quietErr = err
			return
		}
		quietSet = map[string][]byte{}
		for _, c := range set.Captures {
			u, _ := url.Parse(c.Endpoint)
			if c.OK() && u != nil {
				quietSet[u.Path+"?debug="+u.Query().Get("debug")] = c.Data
			}
		}
	})
	if quietErr != nil {
		t.Fatal(quietErr)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := quietSet[r.URL.Path+"?debug="+r.URL.Query().Get("debug")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fastOptions(prom, job string) Options {
	return Options{
		Discovery: Discovery{Prometheus: prom, Job: job},
		Check:     check.Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1, Slack: 2 * time.Second, IdleTimeout: 2 * time.Second},
	}
}

func byInstance(t *testing.T, s *Summary) map[string]*Checked {
	t.Helper()
	m := map[string]*Checked{}
	for _, c := range s.Targets {
		m[c.Instance] = c
	}
	return m
}

func host(srv *httptest.Server) string { return strings.TrimPrefix(srv.URL, "http://") }

// TestSpinningAndHealthy: the lab's spinning service and two quiet
// targets; the spinning one is named with SD204 at its line, the two
// others clean, and the finding across them says so.
func TestSpinningAndHealthy(t *testing.T) {
	spin, q1, q2 := labTarget(t), quietTarget(t), quietTarget(t)
	prom := fakeProm(t,
		target("lab", spin.URL, "up", ""), target("lab", q1.URL, "up", ""), target("lab", q2.URL, "up", ""),
		target("other", spin.URL, "up", ""))
	res, err := Run(context.Background(), fastOptions(prom.URL, "lab"))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if len(s.Targets) != 3 || s.Checked != 3 || s.Clean != 2 {
		t.Fatalf("targets %d, checked %d, clean %d; want 3, 3, 2:\n%s", len(s.Targets), s.Checked, s.Clean, text(t, s))
	}
	got := byInstance(t, s)
	sp := got[host(spin)]
	if !hasRuleAt(sp.Findings, "SD204", "main.go", 98) {
		t.Errorf("the spinning target's findings %v: want SD204 at main.go:98", rules(sp.Findings))
	}
	for _, q := range []*httptest.Server{q1, q2} {
		if c := got[host(q)]; len(c.Findings) != 0 {
			t.Errorf("quiet target %s: findings %v, want none", host(q), rules(c.Findings))
		}
	}
	var across *finding.Finding
	for i, f := range res.Findings {
		if f.Rule == "SD204" {
			across = &res.Findings[i]
		}
	}
	if across == nil {
		t.Fatalf("no SD204 across the targets: %v", rules(res.Findings))
	}
	want := "1 of 3 targets of job lab at main.go:98 (main.consume), "
	if !strings.HasPrefix(across.What, want) || !strings.HasSuffix(across.What, " cores; the other 2 are clean") {
		t.Errorf("across: %q\nwant %q... cores; the other 2 are clean", across.What, want)
	}
	// The quiet targets idled through a 1s profile: clean, on thin
	// evidence, which the summary says of them and not of the spinner.
	if th := s.ThinEvidence(); !strings.HasPrefix(th, "2 of the 2 clean target(s) were seen too little") ||
		!strings.Contains(th, host(q1)+": ") || strings.Contains(th, host(spin)) {
		t.Errorf("thin evidence %q: want the two quiet targets named", th)
	}
	if len(s.Causes) == 0 || s.Causes[0].Rule != "SD204" || s.Causes[0].Targets[0] != host(spin) {
		t.Errorf("the costliest cause is %+v, want SD204 on %s", s.Causes, host(spin))
	}
}

// TestFailures: every way a target fails is reported with its reason,
// and none stops the others, which are still checked.
func TestFailures(t *testing.T) {
	good := quietTarget(t)
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><html><title>login</title></html>")
	}))
	t.Cleanup(html.Close)
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("\x00\x01 not pprof at all"))
	}))
	t.Cleanup(garbage.Close)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); slow.Close() })
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close() // up in Prometheus's last scrape, gone since

	prom := fakeProm(t,
		target("api", good.URL, "up", ""),
		target("api", notFound.URL, "up", ""),
		target("api", html.URL, "up", ""),
		target("api", garbage.URL, "up", ""),
		target("api", slow.URL, "up", ""),
		target("api", closedURL, "up", ""),
		target("api", "http://10.1.2.3:8080", "down", `Get "http://10.1.2.3:8080/metrics": context deadline exceeded`),
		target("api", "http://10.1.2.4:8080", "unknown", ""),
		target("api", "http://169.254.169.254:80", "up", ""),
	)
	opt := fastOptions(prom.URL, "api")
	opt.TargetTimeout = 3 * time.Second
	start := time.Now()
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("took %v: the slow target's deadline did not hold", d)
	}
	got := byInstance(t, res.Summary)
	for _, tc := range []struct {
		inst, status, reason string
	}{
		{host(good), StatusChecked, ""},
		{host(notFound), StatusFailed, "404"},
		{host(html), StatusFailed, "HTML page"},
		{host(garbage), StatusFailed, "not a pprof answer"},
		{host(slow), StatusFailed, "deadline"},
		{strings.TrimPrefix(closedURL, "http://"), StatusFailed, "connection refused"},
		{"10.1.2.3:8080", StatusSkipped, "Prometheus reports it down: Get"},
		{"10.1.2.4:8080", StatusSkipped, "not scraped it yet"},
		{"169.254.169.254:80", StatusSkipped, "link-local"},
	} {
		c := got[tc.inst]
		if c == nil {
			t.Errorf("%s: not reported", tc.inst)
			continue
		}
		if c.Status != tc.status || !strings.Contains(c.Reason, tc.reason) {
			t.Errorf("%s: %s %q; want %s with %q", tc.inst, c.Status, c.Reason, tc.status, tc.reason)
		}
	}
	s := res.Summary
	if s.Checked != 1 || s.Failed != 5 || s.Skipped != 3 {
		t.Errorf("checked %d, failed %d, skipped %d; want 1, 5, 3", s.Checked, s.Failed, s.Skipped)
	}
}

// TestPrometheusAnswers: what Prometheus (or what stands at its address)
// may answer instead of its targets: each is an error naming the request
// and what was wrong, and nothing is checked.
func TestPrometheusAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h     http.HandlerFunc
		limit int64
		want  []string
	}{
		{"error JSON with 422", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(422)
			fmt.Fprint(w, `{"status":"error","errorType":"execution","error":"query processing would load too many samples"}`)
		}, 0, []string{"422", "execution", "too many samples"}},
		{"error JSON with 200", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"invalid parameter \"state\""}`)
		}, 0, []string{"Prometheus answered an error: bad_data: invalid parameter"}},
		{"503 from a proxy", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "upstream connect error", 503)
		}, 0, []string{"503", "upstream connect error"}},
		{"malformed JSON", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"status":"success","data":{"activeTargets":[{"labels":`)
		}, 0, []string{"not the answer of Prometheus's targets API", "unexpected end of JSON"}},
		{"another API's JSON", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"version":"1.2"}`)
		}, 0, []string{"not the answer of Prometheus's targets API", `status ""`}},
		{"HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>Grafana</body></html>")
		}, 0, []string{"HTML page", "Prometheus's targets"}},
		{"404", http.NotFound, 0, []string{"404", "is this Prometheus's base URL"}},
		{"huge, announced", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			w.Write([]byte(`{"status":"success","data":{"activeTargets":[` + strings.Repeat(" ", 100000-45) + `]}}`))
		}, 4096, []string{"larger than the limit of 4096 bytes"}}, // the CLI names -max-targets-mb (errorHint)
		{"huge, streamed", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"status":"success","data":{"activeTargets":[`))
			for range 100 {
				w.Write([]byte(strings.Repeat(" ", 1000)))
				w.(http.Flusher).Flush()
			}
			w.Write([]byte(`]}}`))
		}, 4096, []string{"limit of 4096 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			opt := fastOptions(srv.URL, "api")
			opt.MaxBytes = tc.limit
			res, err := Run(context.Background(), opt)
			if err == nil {
				t.Fatalf("no error; summary %+v", res.Summary)
			}
			for _, w := range append(tc.want, "/api/v1/targets?scrapePool=api&state=active") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to say %q", err, w)
				}
			}
			// Prometheus is not a pprof endpoint: no pprof advice.
			if strings.Contains(err.Error(), "net/http/pprof") {
				t.Errorf("error %q gives a pprof endpoint's hint", err)
			}
		})
	}
}

// TestDiscoverFilters: the job label (relabelling may give a target of
// the pool another job), the selector, the port from a flag or a label
// (target or discovered), and the addresses refused.
func TestDiscoverFilters(t *testing.T) {
	a := target("api", "http://10.0.0.1:9100", "up", "", "namespace", "prod")
	a.DiscoveredLabels["__meta_kubernetes_pod_annotation_profiles_grafana_com_cpu_port"] = "6060"
	b := target("api", "http://10.0.0.2:9100", "up", "", "namespace", "staging")
	b.DiscoveredLabels["__meta_kubernetes_pod_annotation_profiles_grafana_com_cpu_port"] = "6061"
	c := target("api", "http://10.0.0.3:9100", "up", "", "namespace", "prod")
	c.Labels["job"] = "api-canary" // relabelled: another job
	d := target("api", "http://10.0.0.4:9100", "up", "", "namespace", "prod", "pprof_port", "70000")
	e := target("api", "https://[fe80::1]:9100", "up", "", "namespace", "prod")
	f := target("api", "http://[2001:db8::5]:9100", "up", "", "namespace", "prod", "pprof_port", "7070")
	prom := fakeProm(t, a, b, c, d, e, f)

	discover := func(d Discovery) ([]*Target, map[string]string) {
		t.Helper()
		d.Prometheus, d.Job = prom.URL, "api"
		ts, err := Discover(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		why := map[string]string{}
		for _, t := range ts {
			why[t.Instance] = t.Unusable()
		}
		return ts, why
	}
	pprofs := func(ts []*Target) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Instance+"="+t.Pprof)
		}
		return strings.Join(out, " ")
	}
	sel, _ := ParseSelector("namespace=prod")
	ts, why := discover(Discovery{Selector: sel})
	if got, want := pprofs(ts), "10.0.0.1:9100=http://10.0.0.1:9100 10.0.0.4:9100=http://10.0.0.4:9100 [2001:db8::5]:9100=http://[2001:db8::5]:9100 [fe80::1]:9100="; got != want {
		t.Errorf("namespace=prod, scrape port:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(why["[fe80::1]:9100"], "link-local") {
		t.Errorf("fe80::1: %q, want link-local refused", why["[fe80::1]:9100"])
	}
	ts, _ = discover(Discovery{PprofPort: 6060})
	if got, want := pprofs(ts), "10.0.0.1:9100=http://10.0.0.1:6060 10.0.0.2:9100=http://10.0.0.2:6060 10.0.0.4:9100=http://10.0.0.4:6060 [2001:db8::5]:9100=http://[2001:db8::5]:6060 [fe80::1]:9100="; got != want {
		t.Errorf("-pprof-port 6060:\n got %s\nwant %s", got, want)
	}
	ts, why = discover(Discovery{PprofPortLabel: "__meta_kubernetes_pod_annotation_profiles_grafana_com_cpu_port"})
	if got, want := pprofs(ts), "10.0.0.1:9100=http://10.0.0.1:6060 10.0.0.2:9100=http://10.0.0.2:6061 10.0.0.4:9100= [2001:db8::5]:9100= [fe80::1]:9100="; got != want {
		t.Errorf("port from the discovered label:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(why["10.0.0.4:9100"], "no label __meta_kubernetes_pod_annotation_profiles_grafana_com_cpu_port") {
		t.Errorf("10.0.0.4: %q, want the missing label named", why["10.0.0.4:9100"])
	}
	ts, why = discover(Discovery{PprofPortLabel: "pprof_port"})
	if got, want := pprofs(ts), "10.0.0.1:9100= 10.0.0.2:9100= 10.0.0.4:9100= [2001:db8::5]:9100=http://[2001:db8::5]:7070 [fe80::1]:9100="; got != want {
		t.Errorf("port from a target label:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(why["10.0.0.4:9100"], `"70000", not a port`) {
		t.Errorf("10.0.0.4: %q, want 70000 refused", why["10.0.0.4:9100"])
	}
	_, err := Discover(context.Background(), Discovery{Prometheus: prom.URL, Job: "api", MaxTargets: 2})
	if err == nil || !strings.Contains(err.Error(), "5 active targets of job \"api\" match, more than the limit of 2") {
		t.Errorf("MaxTargets 2: %v", err)
	}
}

func TestParseSelector(t *testing.T) {
	s, err := ParseSelector(` namespace=prod, version="1.4" ,empty=`)
	if err != nil || s.String() != "namespace=prod,version=1.4,empty=" {
		t.Fatalf("%v %v", s, err)
	}
	if !s.Matches(map[string]string{"namespace": "prod", "version": "1.4"}) || s.Matches(map[string]string{"namespace": "prod", "version": "1.5"}) {
		t.Error("Matches")
	}
	for _, bad := range []string{"namespace", "=x", "a=b,,c=d", "1x=y", "a b=c"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestTargetClientRefusesLinkLocal: a name that resolves to the metadata
// address is refused at connect time, whatever the name.
func TestTargetClientRefusesLinkLocal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fe80::1%25lo]:80/", "http://0.0.0.0:1/"} {
		req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
		_, err := TargetClient().Do(req)
		if err != nil && strings.Contains(err.Error(), "address family not supported") {
			continue // no IPv6 here: the socket is not even made
		}
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: %v, want refused", u, err)
		}
	}
}

// TestAcross: targets sharing a cause make one finding, ranked by cost;
// the headline counts them, gives the CPU range and says the others are
// clean (or not).
func TestAcross(t *testing.T) {
	loc := finding.Location{File: "/src/api/outbox/relay.go", Line: 37, Function: "github.com/acme/api/outbox.(*outbox).relay"}
	spin := func(cores float64) finding.Finding {
		return finding.Finding{Rule: "SD204", Severity: finding.Critical, What: fmt.Sprintf("busy-waits (%.2f cores)", cores),
			Because: "select with a default", Locations: []finding.Location{loc}, Fix: "remove the default",
			Evidence: []finding.Evidence{{Label: "profile SD204: cores", Value: cores, Unit: "cores"}}}
	}
	lock := finding.Finding{Rule: "SD301", Severity: finding.Critical, What: "latency", Locations: []finding.Location{{File: "/src/api/cache.go", Line: 9}},
		Evidence: []finding.Evidence{{Label: "x", Value: 0.2, Unit: "cores"}}}
	warn := finding.Finding{Rule: "SD307", Severity: finding.Warning, What: "sleeps", Locations: []finding.Location{{File: "/src/api/poll.go", Line: 5}}}
	var ts []*Checked
	add := func(inst, status string, fs ...finding.Finding) {
		ts = append(ts, &Checked{Target: &Target{Instance: inst}, Status: status, Findings: fs, Clean: status == StatusChecked && IsClean(fs)})
	}
	add("p1", StatusChecked, spin(0.9), warn)
	add("p2", StatusChecked, spin(1.1))
	add("p3", StatusChecked, lock)
	add("p4", StatusChecked)
	add("p5", StatusChecked)
	add("p6", StatusFailed)
	fs, groups := Across(ts, "api")
	if len(fs) != 3 || len(groups) != 3 {
		t.Fatalf("%d findings, %d groups; want 3 causes", len(fs), len(groups))
	}
	if g := groups[0]; g.Rule != "SD204" || strings.Join(g.Targets, ",") != "p2,p1" || g.Of != 5 {
		t.Errorf("first cause %+v, want SD204 on p2,p1 of 5", g)
	}
	if g := groups[1]; g.Rule != "SD301" {
		t.Errorf("second cause %+v, want SD301 (critical, 0.2 cores)", g)
	}
	if g := groups[2]; g.Rule != "SD307" || len(g.Cores) != 0 {
		t.Errorf("third cause %+v, want SD307 with no CPU", g)
	}
	want := "2 of 5 targets of job api at relay.go:37 (outbox.(*outbox).relay), 0.90–1.10 cores each; not on the other 3"
	if fs[0].What != want {
		t.Errorf("headline\n got %q\nwant %q", fs[0].What, want)
	}
	if fs[0].Because != "select with a default" || fs[0].Fix != "remove the default" || fs[0].Locations[0] != loc {
		t.Errorf("cause, fix or location not the costliest target's: %+v", fs[0])
	}
	if n := fs[0].Notes; len(n) != 2 || n[0].Text != "on p2: busy-waits (1.10 cores)" || n[1].Text != "targets: p2, p1" {
		t.Errorf("notes %+v", n)
	}
	// All clean but one: "the other N are clean".
	fs, _ = Across(ts[1:2:2], "api")
	if fs[0].What != "the one target of job api at relay.go:37 (outbox.(*outbox).relay), 1.10 cores" {
		t.Errorf("one target: %q", fs[0].What)
	}
	fs, _ = Across([]*Checked{ts[1], ts[3], ts[4]}, "api")
	if !strings.HasSuffix(fs[0].What, "1.10 cores; the other 2 are clean") {
		t.Errorf("others clean: %q", fs[0].What)
	}
	// A target whose only finding is info is clean: the others of a cause
	// it does not have are "clean"; its own info finding is a cause of its
	// own, whose others are not all clean.
	info := &Checked{Target: &Target{Instance: "p7"}, Status: StatusChecked, Clean: true, Findings: []finding.Finding{
		{Rule: "SD301", Severity: finding.Info, What: "latency", Locations: []finding.Location{{File: "/src/api/pool.go", Line: 40}}}}}
	fs, _ = Across([]*Checked{ts[1], info, ts[3]}, "api")
	if len(fs) != 2 || !strings.HasSuffix(fs[0].What, "1.10 cores; the other 2 are clean") || !strings.HasSuffix(fs[1].What, "; not on the other 2") {
		t.Errorf("an info finding's target is clean: %q, %q", fs[0].What, fs[1].What)
	}
	fs, _ = Across([]*Checked{ts[0], ts[1]}, "api")
	if !strings.HasPrefix(fs[0].What, "all 2 targets of job api at relay.go:37") {
		t.Errorf("all: %q", fs[0].What)
	}
	for _, f := range fs {
		if len(f.Headline()) > finding.MaxHeadline {
			t.Errorf("headline over %d: %q", finding.MaxHeadline, f.Headline())
		}
	}
}

// TestAcrossOneCauseTwoHeads: the same busy select headed by the
// profile's SD204 on one target and the trace's SD308 on a busier one is
// one cause; a latency finding at the same line is another.
func TestAcrossOneCauseTwoHeads(t *testing.T) {
	loc := []finding.Location{{File: "/src/busyselect/main.go", Line: 36, Function: "main.bad"}}
	cpu := func(c float64) []finding.Evidence {
		return []finding.Evidence{{Label: "cores", Value: c, Unit: "cores"}}
	}
	ts := []*Checked{
		{Target: &Target{Instance: "a"}, Status: StatusChecked, Findings: []finding.Finding{
			{Rule: "SD204", Severity: finding.Critical, What: "spins", Locations: loc, Evidence: cpu(1),
				Notes: []finding.Note{{Kind: finding.NoteCorroboration, Text: "3 sources agree: lint, profile, trace (rules SD204, SD308)"}}}}},
		{Target: &Target{Instance: "b"}, Status: StatusChecked, Findings: []finding.Finding{
			{Rule: "SD308", Severity: finding.Critical, What: "never blocks", Locations: loc, Evidence: cpu(0.4)},
			{Rule: "SD301", Severity: finding.Warning, What: "latency", Locations: loc}}},
	}
	fs, groups := Across(ts, "lab")
	if len(groups) != 2 || groups[0].Rule != "SD204" || strings.Join(groups[0].Rules, ",") != "SD204,SD308" ||
		strings.Join(groups[0].Targets, ",") != "a,b" || groups[1].Rule != "SD301" {
		t.Fatalf("groups %+v; want SD204/SD308 on a,b, then SD301", groups)
	}
	if !strings.HasPrefix(fs[0].What, "all 2 targets of job lab at main.go:36 (main.bad), 0.40–1.00 cores each") {
		t.Errorf("headline %q", fs[0].What)
	}
	var notes []string
	for _, n := range fs[0].Notes {
		notes = append(notes, n.Text)
	}
	if want := "on a: spins|targets: a, b|headed by SD204 or SD308 as each target's sources weighed it: one cause|3 sources agree: lint, profile, trace (rules SD204, SD308)"; strings.Join(notes, "|") != want {
		t.Errorf("notes\n got %q\nwant %q", strings.Join(notes, "|"), want)
	}
}

// TestCoresIsTheCausesCPU: a preemption finding's cost is the CPU the
// preemptions take, its first figure in cores, not the process's rate
// that follows it.
func TestCoresIsTheCausesCPU(t *testing.T) {
	f := finding.Finding{Rule: "SD208", Evidence: []finding.Evidence{
		{Label: "share of the profile's CPU time", Value: 9, Unit: "%"},
		{Label: "cores (CPU time / profile duration)", Value: 0.022, Unit: "cores"},
		{Label: "process CPU rate over the profile", Value: 0.25, Unit: "cores"}}}
	if c := cores(f); c != 0.022 {
		t.Errorf("cores %v, want 0.022", c)
	}
}

// TestAcrossHeadlineFits: a long function name and a long job name keep
// the headline within finding.MaxHeadline.
func TestAcrossHeadlineFits(t *testing.T) {
	long := finding.Location{File: "/src/x/relay.go", Line: 37,
		Function: "github.com/acme/api/outbox.(*Relay[" + strings.Repeat("go.shape.struct { A int; B string }", 4) + "]).run"}
	f := finding.Finding{Rule: "SD204", Severity: finding.Warning, What: "spins", Locations: []finding.Location{long}}
	for _, job := range []string{"api", strings.Repeat("very-long-job-name-", 10)} {
		fs, _ := Across([]*Checked{{Target: &Target{Instance: "a"}, Status: StatusChecked, Findings: []finding.Finding{f}},
			{Target: &Target{Instance: "b"}, Status: StatusChecked, Clean: true}}, job)
		h := fs[0].Headline()
		if utf8.RuneCountInString(h) > finding.MaxHeadline || !strings.Contains(h, "at relay.go:37") || !strings.HasSuffix(h, "; the other 1 is clean") {
			t.Errorf("job %.10s...: headline of %d characters: %q", job, utf8.RuneCountInString(h), h)
		}
	}
}

func TestCaptureTime(t *testing.T) {
	for _, tc := range []struct {
		o    check.Options
		want time.Duration
	}{
		{check.Options{}, 17 * time.Second},
		{check.Options{Seconds: 6}, 12 * time.Second},
		{check.Options{Seconds: 1, TraceSeconds: 1, DeltaSeconds: 1}, 4 * time.Second},
	} {
		if got := CaptureTime(tc.o); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.o, got, tc.want)
		}
	}
}

func hasRuleAt(fs []finding.Finding, rule, base string, line int) bool {
	for _, f := range fs {
		if f.Rule == rule && len(f.Locations) > 0 && filepath.Base(f.Locations[0].File) == base && f.Locations[0].Line == line {
			return true
		}
	}
	return false
}

func rules(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		l := ""
		if len(f.Locations) > 0 {
			l = fmt.Sprintf("@%s:%d", filepath.Base(f.Locations[0].File), f.Locations[0].Line)
		}
		out = append(out, f.Rule+l)
	}
	return out
}

func text(t *testing.T, s *Summary) string {
	var b strings.Builder
	if err := s.WriteTextWidth(&b, 0); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPrometheusPasswordNotShown: a password in -prometheus's URL is in
// no error and not in the summary.
func TestPrometheusPasswordNotShown(t *testing.T) {
	for _, body := range []string{`{"version":"1"}`, `{"status":"succ`, `{"status":"error","errorType":"bad_data","error":"x"}`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		u := strings.Replace(srv.URL, "http://", "http://ops:s3cretpw@", 1)
		_, err := Run(context.Background(), fastOptions(u, "api"))
		srv.Close()
		if err == nil || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("%s: error %v: want one, without the password", body, err)
		}
	}
	prom := fakeProm(t)
	res, err := Run(context.Background(), fastOptions(strings.Replace(prom.URL, "http://", "http://ops:s3cretpw@", 1), "api"))
	if err != nil || strings.Contains(res.Summary.Prometheus, "s3cretpw") {
		t.Errorf("summary %q, %v", res.Summary.Prometheus, err)
	}
}
