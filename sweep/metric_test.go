package sweep

import (
	"strings"
	"testing"
)

func TestParseBenchLine(t *testing.T) {
	name, vals, ok := ParseBenchLine("BenchmarkHash/size=64-8   \t  123456\t      9713 ns/op\t  32 B/op\t   1 allocs/op\t  105.3 MB/s")
	if !ok || name != "BenchmarkHash/size=64" || len(vals) != 4 {
		t.Fatalf("got %q %v %v", name, vals, ok)
	}
	if vals[0] != (BenchValue{9713, "ns/op"}) || vals[3] != (BenchValue{105.3, "MB/s"}) {
		t.Errorf("values %v", vals)
	}
	// GOMAXPROCS=1: no suffix; a name ending in a dash-word keeps it.
	if name, _, ok := ParseBenchLine("BenchmarkX 10 5 ns/op"); !ok || name != "BenchmarkX" {
		t.Errorf("P=1 line: %q %v", name, ok)
	}
	if name, _, _ := ParseBenchLine("BenchmarkX-fast-4 10 5 ns/op"); name != "BenchmarkX-fast" {
		t.Errorf("name = %q", name)
	}
	// Lines that look close but are not results.
	for _, l := range []string{
		"BenchmarkX-8",                       // -v header
		"BenchmarkX-8 \t 10 \t 5 ns/op 7",    // dangling value
		"BenchmarkX-8 many 5 ns/op",          // no iteration count
		"BenchmarkX-8 10 five ns/op",         // no number
		"BenchmarkX-8 10 NaN ns/op",          // not a measurement
		"ok  \texample.com/x\t1.2s",          // go test summary
		"--- BENCH: BenchmarkX-8",            // log header
		"    x_test.go:12: Benchmark 10 5 s", // log line
	} {
		if _, _, ok := ParseBenchLine(l); ok {
			t.Errorf("%q parsed as a result", l)
		}
	}
}

func TestParseMetricSpec(t *testing.T) {
	m, err := ParseMetricSpec(`ops/s=ops/s ([0-9.]+)`)
	if err != nil || m.Name != "ops/s" || m.RE.String() != "ops/s ([0-9.]+)" {
		t.Fatalf("%v %v", m, err)
	}
	// The first = separates: the regexp may hold more.
	if m, err := ParseMetricSpec(`rate=rate=(\d+)`); err != nil || m.RE.String() != `rate=(\d+)` {
		t.Errorf("%v %v", m, err)
	}
	for bad, want := range map[string]string{
		"ops":           "want NAME=REGEXP",
		"=x(1)":         "want NAME=REGEXP",
		"ops=":          "want NAME=REGEXP",
		"ops=[":         "missing closing ]",
		"ops=ops [0-9]": "capture group",
	} {
		if _, err := ParseMetricSpec(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMetricSpec(%q) = %v, want %q", bad, err, want)
		}
	}
}

func TestOutputScanner(t *testing.T) {
	m, _ := ParseMetricSpec(`ops/s=ops/s ([0-9.]+)`)
	s := newOutputScanner([]MetricSpec{m})
	// Written in pieces that split lines, as pipes do.
	for _, chunk := range []string{"goos: linux\nBenchmarkA-2 \t 100\t 50", "0 ns/op\nBenchmarkA-2 100 700 ns/op\r\n", "ops 10 ops/s 99.5\nops 20 ops/s 1", "20.5"} {
		s.Write([]byte(chunk))
	}
	s.flush()
	if got := s.bench["BenchmarkA ns/op"]; len(got) != 2 || got[0] != 500 || got[1] != 700 {
		t.Errorf("bench = %v", s.bench)
	}
	if s.metrics["ops/s"] != 120.5 {
		t.Errorf("ops/s = %v, want the last line's 120.5", s.metrics["ops/s"])
	}
	if !strings.HasSuffix(s.Tail(), "ops 20 ops/s 120.5") || strings.Contains(s.Tail(), "\r") {
		t.Errorf("tail = %q", s.Tail())
	}
	bad, _ := ParseMetricSpec(`x=x (\S+)`)
	s = newOutputScanner([]MetricSpec{bad})
	s.Write([]byte("x abc\n"))
	if s.metricErr == nil || !strings.Contains(s.metricErr.Error(), `"abc" is not a number`) {
		t.Errorf("metricErr = %v", s.metricErr)
	}
	// Bounded: a huge line without a newline, then many lines.
	s = newOutputScanner(nil)
	s.Write([]byte(strings.Repeat("x", 1<<20)))
	s.Write([]byte(strings.Repeat("line\n", 1000)))
	if len(s.tail) != tailLines || len(s.partial) != 0 {
		t.Errorf("tail %d lines, partial %d bytes", len(s.tail), len(s.partial))
	}
}

func TestParseProcs(t *testing.T) {
	for in, want := range map[string]string{
		"1,2,4,8":   "1,2,4,8",
		"1..4":      "1,2,3,4",
		"8,1..3,2":  "1,2,3,8",
		" 2 , 1 ":   "1,2",
		"4096":      "4096",
		"3..3,1..1": "1,3",
	} {
		got, err := ParseProcs(in)
		if err != nil || joinInts(got) != want {
			t.Errorf("ParseProcs(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for bad, want := range map[string]string{
		"":       "empty element",
		"1,,2":   "empty element",
		"0":      "out of range",
		"4097":   "out of range",
		"4..2":   "runs backwards",
		"a":      "not a number",
		"1..":    "not a number",
		"1...3":  "not a number",
		"-1..2":  "out of range",
		"1..1e9": "not a number",
	} {
		if _, err := ParseProcs(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseProcs(%q) = %v, want %q", bad, err, want)
		}
	}
}

func TestDefaultProcs(t *testing.T) {
	for cpus, want := range map[int]string{1: "1,2", 2: "1,2,4", 4: "1,2,3,4,8", 32: "1,2,4,8,16,32,64", 0: "1,2"} {
		if got := joinInts(DefaultProcs(cpus)); got != want {
			t.Errorf("DefaultProcs(%d) = %s, want %s", cpus, got, want)
		}
	}
}
