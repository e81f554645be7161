package sniff

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func head(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(len(b), HeadSize)]
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.ReadFrom(zr)
	return out.Bytes()
}

// Real recordings of every kind, as the tools write them.
func TestDetectRecordings(t *testing.T) {
	for _, tc := range []struct {
		path string
		want Result
	}{
		{"profile/testdata/lab/busyselect.pb.gz", Result{Pprof, true}},
		{"profile/testdata/lab/mutex.pb.gz", Result{Pprof, true}},
		{"profile/testdata/lab/timerloop.pb.gz", Result{Pprof, true}}, // the head cuts the gzip stream
		{"goroutines/testdata/leak-end.pb.gz", Result{Pprof, true}},
		{"goroutines/testdata/leakprof-end.goroutineleak.pb.gz", Result{Pprof, true}},
		{"exectrace/testdata/gosched.trace", Result{ExecTrace, false}},
		{"exectrace/testdata/httpserver.trace", Result{ExecTrace, false}},
		{"goroutines/testdata/leak-end.debug2.txt", Result{GoroutineDump, false}},
		{"goroutines/testdata/leak-end.debug1.txt", Result{GoroutineDump, false}},
		{"goroutines/testdata/leakprof-end.goroutineleak.debug1.txt", Result{GoroutineDump, false}},
		{"goroutines/testdata/leakprof-end.goroutineleak.debug2.txt", Result{GoroutineDump, false}},
		{"schedtrace/testdata/fanout.txt", Result{Schedtrace, false}},
		{"schedtrace/testdata/fanout-detail.txt", Result{Schedtrace, false}},
		{"internal/cli/testdata/profile/busyselect.json", Result{ReportJSON, false}},
		{"internal/cli/testdata/hostile/check-live-escapes/saved/live.json", Result{LiveJSON, false}},
		// Unknown: the parsers judge these themselves.
		{"schedtrace/testdata/interleaved.txt", Result{}}, // the program's own line first
		{"schedtrace/testdata/garbage.txt", Result{}},
		{"schedtrace/testdata/empty.txt", Result{}},
	} {
		if got := Detect(head(t, tc.path)); got != tc.want {
			t.Errorf("%s: %v (%+v), want %v", tc.path, got, got, tc.want)
		}
	}
}

// The same recordings uncompressed, compressed, and cut short.
func TestDetectVariants(t *testing.T) {
	whole, err := os.ReadFile("../../profile/testdata/lab/timerloop.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	prof := gunzip(t, whole)
	if got := Detect(prof[:min(len(prof), HeadSize)]); got != (Result{Kind: Pprof}) {
		t.Errorf("uncompressed CPU profile: %v", got)
	}
	if got := Detect(prof[:HeadSize]); got.Kind != Pprof {
		t.Errorf("CPU profile's first %d bytes: %v", HeadSize, got)
	}
	for _, n := range []int{1, 2, 5, 17, 100} { // a profile cut short is the parser's to report
		if got := Detect(prof[:n]); got.Kind == ExecTrace || got.Kind == GoroutineDump || got.Kind == Schedtrace {
			t.Errorf("CPU profile cut at %d bytes: %v", n, got)
		}
	}
	tr := head(t, "exectrace/testdata/gosched.trace")
	if got := Detect(gz(tr)); got != (Result{ExecTrace, true}) {
		t.Errorf("gzipped trace: %v", got)
	}
	if got := Detect(gz(tr)[:40]); !got.Gzip {
		t.Errorf("gzipped trace cut at 40 bytes: %v", got)
	}
	dump := head(t, "goroutines/testdata/leak-end.debug2.txt")
	if got := Detect(gz(dump)); got != (Result{GoroutineDump, true}) {
		t.Errorf("gzipped dump: %v", got)
	}
	if got := Detect(append([]byte("\uFEFF\n\n"), dump...)); got.Kind != GoroutineDump {
		t.Errorf("dump after a BOM and blank lines: %v", got)
	}
	// Go 1.27 headers: marks and labels after the state.
	if got := Detect([]byte("goroutine 7 [chan receive (leaked), 3 minutes, locked to thread, labels:{\"k\": \"v\"}]:\nmain.f()\n")); got.Kind != GoroutineDump {
		t.Errorf("Go 1.27 header: %v", got)
	}
	// A panic's output starts with the panic, not a goroutine: unknown.
	if got := Detect([]byte("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n")); got.Kind != Unknown {
		t.Errorf("panic output: %v, want unknown", got)
	}
}

func TestDetectOthers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Kind
	}{
		{"<!DOCTYPE html>\n<html><head><title>Sign in</title>", HTML},
		{"  <html lang=en>", HTML},
		{"<HTML>", HTML},
		{`{"source": "trace", "findings": []}`, ReportJSON},
		{`{"source":"live","findings":[]}`, LiveJSON},
		{`{"error": "unauthorized"}`, JSON},
		{`[1, 2]`, JSON},
		{"hello\n", Unknown},
		{"", Unknown},
		{"go 1.26 trac", Unknown},                       // cut before the header ends: nothing proven
		{"goroutine profile: total", Unknown},           // no count
		{"goroutines are great\n", Unknown},             // no number
		{"SCHEDULE 5ms: x\n", Unknown},                  // not a SCHED line
		{"--- contention:\ncycles/second=3\n", Unknown}, // legacy text profile: pprof parses it
		{"\x00\x00\x00\x00", Unknown},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", Unknown},
	} {
		if got := Detect([]byte(tc.in)); got.Kind != tc.want || got.Gzip {
			t.Errorf("Detect(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// Text of any kind is never a profile: each of its bytes is a field number
// with a wire type the Profile message does not have, soon enough.
func TestTextIsNotPprof(t *testing.T) {
	for _, path := range []string{
		"README.md", "docs/trace.md", "schedtrace/testdata/interleaved.txt", "schedtrace/testdata/garbage.txt",
	} {
		h := head(t, path)
		for off := 0; off < 200 && off < len(h); off++ {
			if isPprof(h[off:], len(h) < HeadSize) {
				t.Errorf("%s from byte %d reads as a pprof profile: %q", path, off, h[off:min(len(h), off+40)])
				break
			}
		}
	}
}

func TestCheck(t *testing.T) {
	tr := head(t, "exectrace/testdata/gosched.trace")
	err := Check("trace.out", tr, "a CPU profile", Result{Kind: Pprof}, Result{Pprof, true})
	ke, ok := err.(*KindError)
	if !ok || ke.Got.Kind != ExecTrace {
		t.Fatalf("Check(trace, Pprof) = %v, want a KindError for an execution trace", err)
	}
	if want := "trace.out is a Go execution trace, not a CPU profile"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if err := Check("trace.out", tr, "an execution trace", Result{Kind: ExecTrace}); err != nil {
		t.Errorf("accepted kind: %v", err)
	}
	if err := Check("x", []byte("hello"), "an execution trace", Result{Kind: ExecTrace}); err != nil {
		t.Errorf("unknown kind: %v", err)
	}
	if err := Check("x.gz", gz([]byte("hello")), "a profile", Result{Pprof, true}); err != nil {
		t.Errorf("unknown gzipped kind to a reader of gzip: %v", err)
	}
	if err := Check("x.gz", gz([]byte("hello")), "an execution trace", Result{Kind: ExecTrace}); err == nil {
		t.Errorf("unknown gzipped kind to a reader without gzip: accepted")
	}
	err = Check("trace.out.gz", gz(tr), "an execution trace", Result{Kind: ExecTrace})
	if err == nil || !strings.Contains(err.Error(), "a gzip-compressed Go execution trace") {
		t.Errorf("gzipped trace to a reader without gzip: %v", err)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte("go 1.26 trace\x00\x00\x00"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte(`{"source": "live"}`))
	f.Add([]byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := Detect(b)
		_ = r.String()
	})
}
