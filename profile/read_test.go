package profile

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// realCPU is a real CPU profile of the busyselect lab program (2s).
const realCPU = "testdata/lab/busyselect.pb.gz"

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runtimeProfile writes one of this test process's own profiles (heap,
// goroutine, mutex) in proto form: real input of the wrong kind.
func runtimeProfile(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup(name).WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

func TestReadReal(t *testing.T) {
	data := readFile(t, realCPU)
	p, err := Read(context.Background(), realCPU, bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) == 0 || p.DurationNanos == 0 {
		t.Fatalf("read %d samples over %dns", len(p.Sample), p.DurationNanos)
	}
	// Uncompressed works too.
	zr, _ := gzip.NewReader(bytes.NewReader(data))
	var raw bytes.Buffer
	raw.ReadFrom(zr)
	if _, err := Read(context.Background(), "raw", &raw, ReadOptions{}); err != nil {
		t.Errorf("uncompressed: %v", err)
	}
}

func TestReadBadInput(t *testing.T) {
	good := readFile(t, realCPU)
	var empty bytes.Buffer
	synth.Build(1e9).Write(&empty)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"heap", runtimeProfile(t, "heap"), "this is a heap profile"},
		{"goroutine", runtimeProfile(t, "goroutine"), "this is a goroutine profile"},
		{"mutex", runtimeProfile(t, "mutex"), "this is a mutex or block profile"},
		{"truncated", good[:len(good)/2], "truncated gzip"},
		{"html", []byte("<!DOCTYPE html><html><body>login</body></html>"), "this is text"},
		{"text", []byte("hello, world\n"), "this is text"},
		{"garbage", []byte{0x08, 0xff, 0xff, 0x00, 0x13, 0x99}, "not a pprof profile"},
		{"gzip garbage", gz([]byte{0x08, 0xff, 0xff, 0x00, 0x13, 0x99}), "not a pprof profile"},
		{"empty file", nil, "empty file"},
		{"no samples", empty.Bytes(), "empty CPU profile"},
	} {
		_, err := Read(context.Background(), c.name+".pb.gz", bytes.NewReader(c.data), ReadOptions{})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name+".pb.gz: ") {
			t.Errorf("%s: error %q, want it to name the file and say %q", c.name, err, c.want)
		}
	}
	_, err := Read(context.Background(), "heap", bytes.NewReader(runtimeProfile(t, "heap")), ReadOptions{})
	if !errors.Is(err, ErrNotCPU) {
		t.Errorf("heap: %v does not wrap ErrNotCPU", err)
	}
}

func TestFetch(t *testing.T) {
	good := readFile(t, realCPU)
	var gotSeconds string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		gotSeconds = r.URL.Query().Get("seconds")
		w.Write(good)
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>pprof index</body></html>"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		// Well-formed string-table entries, no Content-Length: streamed.
		w.Write(bytes.Repeat([]byte{0x32, 0x00}, 2048))
		w.(http.Flusher).Flush()
		w.Write(bytes.Repeat([]byte{0x32, 0x00}, 2048))
	})
	bombData := bomb{samples: DefaultMaxSamples + 100_000, value: 10_000_000, duration: 30e9}.bytes(t)
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) { w.Write(bombData) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	p, err := Fetch(ctx, srv.URL+"/debug/pprof/profile", FetchOptions{Seconds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) == 0 || gotSeconds != "3" {
		t.Errorf("fetched %d samples with seconds=%q, want samples and seconds=3", len(p.Sample), gotSeconds)
	}
	for _, c := range []struct {
		path string
		opt  FetchOptions
		want string
	}{
		{"/nosuch", FetchOptions{}, "404 Not Found"},
		{"/html", FetchOptions{}, "answer is an HTML page"},
		{"/slow", FetchOptions{Timeout: 200 * time.Millisecond}, "no answer within 200ms"},
		{"/big", FetchOptions{MaxSize: 5000}, "over the bytes limit of 5000"},
		{"/bomb", FetchOptions{}, "over the gzip-ratio limit of 100:1"},
		{"/bomb", FetchOptions{Read: ReadOptions{MaxGzipRatio: 1000}}, fmt.Sprintf("over the samples limit of %d", DefaultMaxSamples)},
	} {
		_, err := Fetch(ctx, srv.URL+c.path, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: error %v, want one naming the URL and saying %q", c.path, err, c.want)
		}
	}
	if _, err := Fetch(ctx, "ftp://example.com/x", FetchOptions{}); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("ftp URL: %v", err)
	}
}

// TestGzipSizeHint: a profile's gzip trailer sizes the buffer it is read
// into; a trailer that claims more than a profile compresses from, or
// more than the limit, is not believed; a multi-member gzip, whose
// trailer gives its last member's size only, reads whole.
func TestGzipSizeHint(t *testing.T) {
	var raw, gz bytes.Buffer
	p := synth.Fleet(synth.FleetOptions{Samples: 3000})
	if err := p.WriteUncompressed(&raw); err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(raw.Bytes())
	zw.Close()
	lim, _ := ReadOptions{}.withDefaults()
	if got := gzipSizeHint(gz.Bytes(), lim); got != raw.Len()+1 {
		t.Errorf("hint %d for %d bytes, want %d", got, raw.Len(), raw.Len()+1)
	}
	if got := gzipSizeHint(gz.Bytes(), ReadOptions{MaxBytes: int64(raw.Len())}); got != 64<<10 {
		t.Errorf("hint %d past the bytes limit, want 64 KB", got)
	}
	bomb := bytes.Clone(gz.Bytes())
	bomb[len(bomb)-1] = 0x7f // claims 2 GB
	if got := gzipSizeHint(bomb, lim); got != 64<<10 {
		t.Errorf("hint %d for a trailer of 2 GB after %d bytes, want 64 KB", got, len(bomb))
	}
	// Two members: the profile's bytes cut in two, the trailer the second's.
	var multi bytes.Buffer
	half := raw.Len() / 2
	for _, part := range [][]byte{raw.Bytes()[:half], raw.Bytes()[half:]} {
		zw := gzip.NewWriter(&multi)
		zw.Write(part)
		zw.Close()
	}
	if got := gzipSizeHint(multi.Bytes(), lim); got >= raw.Len() {
		t.Fatalf("hint %d: the test wants the last member's size, under %d", got, raw.Len())
	}
	got, err := Read(context.Background(), "multi.pb.gz", bytes.NewReader(multi.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sample) != len(p.Sample) {
		t.Errorf("%d samples read from two members, want %d", len(got.Sample), len(p.Sample))
	}
}
