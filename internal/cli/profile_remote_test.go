package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile/remote/remotetest"
)

// labRaw is a lab profile decompressed: what a pprof message field holds.
func labRaw(t *testing.T, name string) []byte {
	return remotetest.Decompressed(t, profileData(name))
}

const apiSel = `{service_name="api"}`

// window is a fixed -from and -until: the fakes check the times' form.
var window = []string{"-from", "2026-11-27T00:00:00Z", "-until", "2026-11-27T01:00:00Z"}

func findingsJSON(t *testing.T, out string) string {
	t.Helper()
	var doc struct {
		Findings json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return string(doc.Findings)
}

// TestProfilePyroscopeSameFindings is the "done when": profile
// -pyroscope against the fake returns the same findings as profile on the
// same pprof file, through the first API and through the fallback.
func TestProfilePyroscopeSameFindings(t *testing.T) {
	for _, name := range []string{"busyselect.pb.gz", "mutex.pb.gz", "gcpressure.pb.gz", "timerloop.pb.gz", "workerpool.pb.gz"} {
		for _, legacy := range []bool{false, true} {
			f := remotetest.NewPyroscope(t)
			f.Legacy = legacy
			f.Profiles[apiSel] = labRaw(t, name)
			wantCode, wantOut, _ := run(t, "", "profile", "-nosrc", "-json", profileData(name))
			args := append([]string{"profile", "-nosrc", "-json", "-pyroscope", f.URL, "-query", apiSel}, window...)
			code, out, errOut := run(t, "", args...)
			if code != wantCode {
				t.Errorf("%s (legacy %v): exit %d, want %d; stderr %s", name, legacy, code, wantCode, errOut)
			}
			if got, want := findingsJSON(t, out), findingsJSON(t, wantOut); got != want {
				t.Errorf("%s (legacy %v): findings differ:\n%s\nwant\n%s", name, legacy, got, want)
			}
			method := "SelectMergeStacktraces"
			if legacy {
				method = "SelectMergeProfile"
			}
			if !strings.Contains(out, `"method": "`+method+`"`) {
				t.Errorf("%s: the summary does not say %s:\n%s", name, method, out)
			}
		}
	}
}

// TestProfilePyroscopeRebuilt: Pyroscope's merge keeps CPU time only,
// with no duration or period; the spin is still found at its line, and
// the report says what was filled in.
func TestProfilePyroscopeRebuilt(t *testing.T) {
	p, err := pprof.ParseData(labRaw(t, "busyselect.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	ci := 0
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			ci = i
		}
	}
	for _, s := range p.Sample {
		s.Value = []int64{s.Value[ci]}
	}
	p.SampleType = []*pprof.ValueType{{Type: "cpu", Unit: "nanoseconds"}}
	p.DefaultSampleType = ""
	p.DurationNanos, p.Period = 0, 0
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	f := remotetest.NewPyroscope(t)
	f.Profiles[apiSel] = b.Bytes()
	// The window the lab profile spans: 2 seconds, so that its cores are
	// the process's (over an hour they would be 0.0005, cheap).
	args := []string{"profile", "-nosrc", "-pyroscope", f.URL, "-query", apiSel, "-from", "2026-11-27T00:00:00Z", "-until", "2026-11-27T00:00:02Z"}
	code, out, errOut := run(t, "", args...)
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"SD204", "main.go:37", "183 samples", "filled in: duration: the query window, 2s",
		"filled in: sample counts: one per Go's default of 10ms", "(SelectMergeStacktraces)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestProfilePyroscopeByPod: three pods, one spinning; the finding names
// that pod alone, and the table has a row per pod.
func TestProfilePyroscopeByPod(t *testing.T) {
	f := remotetest.NewPyroscope(t)
	f.Values = []string{"api-7f9-a", "api-7f9-b", "api-7f9-c"}
	f.Profiles[`{service_name="api", pod="api-7f9-a"}`] = labRaw(t, "workerpool.pb.gz")
	f.Profiles[`{service_name="api", pod="api-7f9-b"}`] = labRaw(t, "busyselect.pb.gz")
	f.Profiles[`{service_name="api", pod="api-7f9-c"}`] = labRaw(t, "workerpool.pb.gz")
	args := append([]string{"profile", "-nosrc", "-pyroscope", f.URL, "-query", apiSel, "-by", "pod"}, window...)
	code, out, errOut := run(t, "", args...)
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	for _, want := range []string{"SD204", "in 1 of 3 pods: api-7f9-b", "split by pod: 3 values",
		"api-7f9-a", "clean", "api-7f9-b                          0.91      183  SD204"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "api-7f9-a, ") || strings.Contains(out, "in 2 of") || strings.Contains(out, "in 3 of") {
		t.Errorf("a healthy pod named with the spin:\n%s", out)
	}
	// The HTML report renders the split's summary too.
	html := filepath.Join(t.TempDir(), "r.html")
	args = append([]string{"profile", "-nosrc", "-html", html, "-pyroscope", f.URL, "-query", apiSel, "-by", "pod"}, window...)
	if code, _, errOut := run(t, "", args...); code != ExitFindings {
		t.Fatalf("-html: exit %d; stderr %s", code, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "in 1 of 3 pods: api-7f9-b") {
		t.Errorf("HTML report: %v", err)
	}
	args = append([]string{"profile", "-nosrc", "-json", "-pyroscope", f.URL, "-query", apiSel, "-by", "pod"}, window...)
	_, out, _ = run(t, "", args...)
	var doc struct {
		Summary struct {
			Label  string `json:"label"`
			Values []struct {
				Value    string   `json:"value"`
				Findings int      `json:"findings"`
				Rules    []string `json:"rules"`
			} `json:"values"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary.Label != "pod" || len(doc.Summary.Values) != 3 || doc.Summary.Values[1].Rules[0] != "SD204" || doc.Summary.Values[0].Findings != 0 {
		t.Errorf("summary %+v", doc.Summary)
	}
}

// TestProfilePyroscopeByPodPartial: one pod failing and one without data
// do not stop the others, and the table says why.
func TestProfilePyroscopeByPodPartial(t *testing.T) {
	f := remotetest.NewPyroscope(t)
	f.Values = []string{"a", "b", "c"}
	f.Profiles[`{service_name="api", pod="a"}`] = labRaw(t, "busyselect.pb.gz")
	f.Profiles[`{service_name="api", pod="b"}`] = []byte("garbage, not a profile")
	args := append([]string{"profile", "-nosrc", "-pyroscope", f.URL, "-query", apiSel, "-by", "pod"}, window...)
	code, out, errOut := run(t, "", args...)
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	for _, want := range []string{"in 1 of 1 pods: a", "error:", "no samples in the range"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// No value diagnosed at all is an error, not a clean report.
	f.Profiles = map[string][]byte{}
	code, _, errOut = run(t, "", args...)
	if code != ExitError || !strings.Contains(errOut, "no value of pod has samples") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

func TestProfileParca(t *testing.T) {
	f := remotetest.NewParca(t)
	f.Profiles["process_cpu:cpu:nanoseconds:cpu:nanoseconds:delta"+apiSel] = labRaw(t, "busyselect.pb.gz")
	_, wantOut, _ := run(t, "", "profile", "-nosrc", "-json", profileData("busyselect.pb.gz"))
	args := append([]string{"profile", "-nosrc", "-json", "-parca", f.URL, "-query", apiSel}, window...)
	code, out, errOut := run(t, "", args...)
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %s", code, errOut)
	}
	if got, want := findingsJSON(t, out), findingsJSON(t, wantOut); got != want {
		t.Errorf("findings differ:\n%s\nwant\n%s", got, want)
	}
}

func TestProfileRemoteCredentials(t *testing.T) {
	f := remotetest.NewPyroscope(t)
	f.Profiles[apiSel] = labRaw(t, "busyselect.pb.gz")
	env := map[string]string{"PYROSCOPE_TENANT_ID": "team-a", "PYROSCOPE_TOKEN": "glc_secret", "PARCA_TOKEN": "wrong"}
	var out, errb bytes.Buffer
	e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	args := append([]string{"profile", "-nosrc", "-pyroscope", f.URL, "-query", apiSel}, window...)
	if code := Run(context.Background(), e, args); code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	h := f.Requests()[0].Header
	if h.Get("X-Scope-OrgID") != "team-a" || h.Get("Authorization") != "Bearer glc_secret" {
		t.Errorf("headers %v", h)
	}
	if strings.Contains(out.String()+errb.String(), "glc_secret") {
		t.Error("the token was printed")
	}
	// -tenant replaces the variable's value; a refusal names no secret.
	f.Answer = func(w http.ResponseWriter, r *http.Request, m string) bool {
		remotetest.ConnectError(w, "permission_denied", "tenant other: token glc_secret refused")
		return true
	}
	out.Reset()
	errb.Reset()
	args = append([]string{"profile", "-pyroscope", f.URL, "-tenant", "other", "-query", apiSel}, window...)
	code := Run(context.Background(), e, args)
	if code != ExitError || strings.Contains(errb.String(), "glc_secret") || !strings.Contains(errb.String(), "permission_denied") {
		t.Errorf("exit %d, stderr %s", code, errb.String())
	}
	if got := f.Requests()[1].Header.Get("X-Scope-OrgID"); got != "other" {
		t.Errorf("tenant %q, want -tenant's", got)
	}
}

func TestProfileRemoteUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-pyroscope", "http://x", "-parca", "http://y", "-query", apiSel}, "not both"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "cpu.pb.gz"}, "give no PROFILE"},
		{[]string{"-pyroscope", "http://x"}, "needs -query"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "-from", "yesterday"}, "-from"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "-from", "now", "-until", "-1h"}, "is not before"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "-by", "pod-name"}, "-by label"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "-by", "pod", "-o", "x.pb.gz"}, "cannot be used with -by"},
		{[]string{"-pyroscope", "http://x", "-query", apiSel, "-seconds", "5"}, "-seconds"},
		{[]string{"-query", apiSel, "cpu.pb.gz"}, "go with -pyroscope or -parca"},
		{[]string{"-pyroscope", "ftp://x", "-query", apiSel}, "not an http(s) URL"},
	} {
		code, _, errOut := run(t, "", append([]string{"profile"}, tc.args...)...)
		if code != ExitError || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}
