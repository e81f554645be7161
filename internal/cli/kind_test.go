package cli

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each reading command given another command's input says what the input
// is and which command reads it, exit 2, before its parser fails on it
// ("field 12 has wire type 7" was profile on a trace).
func TestWrongKindNamesTheCommand(t *testing.T) {
	const (
		trace    = traceFixtures + "gosched.trace"
		cpu      = "../../profile/testdata/lab/busyselect.pb.gz"
		dump2    = "../../goroutines/testdata/leak-end.debug2.txt"
		dump1    = "../../goroutines/testdata/leak-end.debug1.txt"
		sched    = "../../schedtrace/testdata/fanout.txt"
		report   = "testdata/profile/busyselect.json"
		liveJSON = "testdata/hostile/check-live-escapes/saved/live.json"
	)
	dir := t.TempDir()
	html := filepath.Join(dir, "index.html")
	os.WriteFile(html, []byte("<!DOCTYPE html>\n<html><title>/debug/pprof/</title>"), 0o644)
	gzTrace := filepath.Join(dir, "my trace.gz")
	writeGzip(t, gzTrace, trace)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", trace}, trace + " is a Go execution trace: read it with `schedoctor trace " + trace + "`"},
		{[]string{"profile", dump2}, "is a goroutine dump: read it with `schedoctor goroutines " + dump2 + "`"},
		{[]string{"profile", sched}, "is GODEBUG=schedtrace output: read it with `schedoctor schedtrace " + sched + "`"},
		{[]string{"profile", html}, "is an HTML page, not a CPU profile"},
		{[]string{"profile", report}, "is a schedoctor JSON report: schedoctor's own output"},
		{[]string{"profile", liveJSON}, "is the live monitor's JSON: `schedoctor check URL`"},
		{[]string{"trace", cpu}, "is a gzip-compressed pprof profile, not an execution trace: read a CPU profile with `schedoctor profile " + cpu + "`"},
		{[]string{"trace", dump1}, "is a goroutine dump: read it with `schedoctor goroutines " + dump1 + "`"},
		{[]string{"trace", sched}, "read it with `schedoctor schedtrace "},
		{[]string{"trace", gzTrace}, "is a gzip-compressed Go execution trace: decompress it first, as in `gunzip -c '" + gzTrace + "' | schedoctor trace -`"},
		{[]string{"goroutines", trace}, "is a Go execution trace: read it with `schedoctor trace "},
		{[]string{"goroutines", sched}, "read it with `schedoctor schedtrace "},
		{[]string{"goroutines", html}, "is an HTML page"},
		{[]string{"schedtrace", trace}, "read it with `schedoctor trace "},
		{[]string{"schedtrace", dump2}, "read it with `schedoctor goroutines "},
		{[]string{"schedtrace", cpu}, "read a CPU profile with `schedoctor profile "},
	} {
		code, _, stderr := run(t, "", tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr\n%s\nwant exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	// stdin: the command to rerun reads - again.
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, string(data), "profile", "-")
	if want := "stdin is a Go execution trace: read it with `schedoctor trace -`"; code != ExitError || !strings.Contains(stderr, want) {
		t.Errorf("profile - < trace: exit %d, stderr %q, want %q", code, stderr, want)
	}
	gz, err := os.ReadFile(gzTrace)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run(t, string(gz), "trace", "-")
	if want := "stdin is a gzip-compressed Go execution trace: decompress it first, as in `... | gunzip | schedoctor trace -`"; code != ExitError || !strings.Contains(stderr, want) {
		t.Errorf("trace - < trace.gz: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// Each command still reads its own kind, and every variant the sniffer
// leaves unknown goes on to the parser.
func TestRightKindIsRead(t *testing.T) {
	gzDump := filepath.Join(t.TempDir(), "dump.txt.gz")
	writeGzip(t, gzDump, "../../goroutines/testdata/leak-end.debug2.txt")
	for _, args := range [][]string{
		{"goroutines", gzDump},
		{"profile", "-nosrc", "../../profile/testdata/lab/busyselect.pb.gz"},
		{"trace", "-nosrc", traceFixtures + "gosched.trace"},
		{"goroutines", "../../goroutines/testdata/leak-end.debug2.txt"},
		{"goroutines", "../../goroutines/testdata/leak-end.debug1.txt"},
		{"goroutines", "../../goroutines/testdata/leak-end.pb.gz"},
		{"schedtrace", "../../schedtrace/testdata/fanout.txt"},
		{"schedtrace", "../../schedtrace/testdata/interleaved.txt"}, // the program's own lines first
	} {
		if code, _, stderr := run(t, "", args...); code == ExitError {
			t.Errorf("%q: exit 2\n%s", args, stderr)
		}
	}
}

func writeGzip(t *testing.T, dst, src string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trace URL fetches /debug/pprof/trace?seconds=N as profile URL fetches
// its profile (it said "no such file"), and names the kind of a wrong
// answer.
func TestTraceURL(t *testing.T) {
	trace, err := os.ReadFile(traceFixtures + "mutex.trace")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := os.ReadFile("../../profile/testdata/lab/busyselect.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	var gotQuery string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/trace", func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		w.Write(trace)
	})
	mux.HandleFunc("/cpu", func(w http.ResponseWriter, r *http.Request) { w.Write(cpu) }) // not named like an endpoint: judged by its bytes
	srv := httptest.NewServer(mux)
	defer srv.Close()

	stdout, stderr, code := runTraceCmd(t, nil, "-nosrc", "-seconds", "2", srv.URL+"/debug/pprof/trace")
	want, wstderr, wcode := runTraceCmd(t, nil, "-nosrc", traceFixtures+"mutex.trace")
	if code != wcode || stdout != want || stderr != wstderr {
		t.Errorf("trace URL: exit %d, stderr %q; want the file's exit %d and report\n%s", code, stderr, wcode, stdout)
	}
	if gotQuery != "seconds=2" {
		t.Errorf("query %q, want seconds=2", gotQuery)
	}
	runTraceCmd(t, nil, "-nosrc", srv.URL+"/debug/pprof/trace?seconds=7")
	if gotQuery != "seconds=7" {
		t.Errorf("the URL's own seconds: query %q, want seconds=7", gotQuery)
	}
	runTraceCmd(t, nil, "-nosrc", srv.URL+"/debug/pprof/trace")
	if gotQuery != "seconds=5" {
		t.Errorf("default: query %q, want seconds=5", gotQuery)
	}

	_, stderr, code = runTraceCmd(t, nil, srv.URL+"/cpu")
	if code != ExitError || !strings.Contains(stderr, "is a gzip-compressed pprof profile, not an execution trace: read a CPU profile with `schedoctor profile") {
		t.Errorf("a profile's URL: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runTraceCmd(t, nil, "-max-mb", "0.005", srv.URL+"/debug/pprof/trace")
	if code != ExitError || !strings.Contains(stderr, "-max-mb") {
		t.Errorf("over -max-mb: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = runTraceCmd(t, nil, "http://ops:s3cret@127.0.0.1:1/debug/pprof/trace")
	if code != ExitError || strings.Contains(stderr, "s3cret") || strings.Contains(stderr, "no such file") {
		t.Errorf("unreachable URL with a password: exit %d, stderr %q", code, stderr)
	}
}

// A /debug/pprof URL of another command's endpoint is refused before it is
// fetched (profile URL/trace fetched for seconds, then failed in the
// parser), naming the command; the password stays redacted.
func TestEndpointOfAnotherCommand(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++ }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "http://ops:pw@" + host + "/debug/pprof/trace?seconds=3"}, "/debug/pprof/trace?seconds=3 is the trace endpoint: read it with `schedoctor trace 'http://ops:xxxxx@"},
		{[]string{"trace", srv.URL + "/debug/pprof/profile"}, "is the profile endpoint: read it with `schedoctor profile " + srv.URL + "/debug/pprof/profile`"},
		{[]string{"goroutines", srv.URL + "/debug/pprof/trace"}, "read it with `schedoctor trace "},
		{[]string{"trace", srv.URL + "/debug/pprof/goroutine/"}, "read it with `schedoctor goroutines "},
	} {
		code, _, stderr := run(t, "", tc.args...)
		if code != ExitError || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, ":pw@") {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
	if requests != 0 {
		t.Errorf("%d requests: a refused URL was fetched", requests)
	}
}
