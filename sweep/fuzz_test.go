package sweep

import (
	"strings"
	"testing"
)

func FuzzParseBenchLine(f *testing.F) {
	f.Add("BenchmarkHash-8   \t  123456\t      9713 ns/op\t  32 B/op\t   1 allocs/op")
	f.Add("BenchmarkX 1 1e300 x/s")
	f.Fuzz(func(t *testing.T, line string) {
		name, vals, ok := ParseBenchLine(line)
		if !ok {
			return
		}
		if !strings.HasPrefix(name, "Benchmark") || len(vals) == 0 {
			t.Fatalf("%q: name %q, %d values", line, name, len(vals))
		}
		for _, v := range vals {
			if v.Unit == "" || v.Value != v.Value {
				t.Fatalf("%q: bad value %+v", line, v)
			}
		}
	})
}

func FuzzParseProcs(f *testing.F) {
	f.Add("1,2,4,8")
	f.Add("1..16")
	f.Add("8,1..3")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseProcs(s)
		if err != nil {
			return
		}
		for i, p := range ps {
			if p < 1 || p > MaxProcs || (i > 0 && p <= ps[i-1]) {
				t.Fatalf("%q: %v not sorted, unique and in range", s, ps)
			}
		}
	})
}

func FuzzOutputScanner(f *testing.F) {
	f.Add([]byte("BenchmarkA-2 100 500 ns/op\nops 1 ops/s 2.5\n"), 7)
	f.Add([]byte("\r\n\n\nx"), 1)
	m, err := ParseMetricSpec(`ops/s=ops/s ([0-9.eE+-]+)`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, out []byte, split int) {
		s := newOutputScanner([]MetricSpec{m})
		if split < 0 {
			split = -split
		}
		for len(out) > 0 {
			n := min(len(out), split%64+1)
			s.Write(out[:n])
			out = out[n:]
		}
		s.flush()
		if len(s.tail) > tailLines {
			t.Fatalf("tail has %d lines", len(s.tail))
		}
	})
}
