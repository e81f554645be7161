package exectrace

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"golang.org/x/exp/trace"
)

// benchTrace is the trace the benchmarks read: $SCHEDOCTOR_BENCH_TRACE
// (scripts/bench-trace.sh makes a large one) or the pingpong fixture.
func benchTrace(b *testing.B) []byte {
	name := os.Getenv("SCHEDOCTOR_BENCH_TRACE")
	if name == "" {
		name = "testdata/pingpong.trace"
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkAnalyze measures the whole analysis in MB/s of trace, with the
// HTML report's timeline and without it (what `schedoctor trace` does
// without -html), and with two generations decoded at once.
func BenchmarkAnalyze(b *testing.B) {
	data := benchTrace(b)
	for _, bc := range []struct {
		name string
		ropt ReadOptions
	}{
		{"timeline", ReadOptions{}},
		{"notimeline", ReadOptions{NoTimeline: true}},
		{"notimeline-j2", ReadOptions{NoTimeline: true, Jobs: 2}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readAnalyze(context.Background(), bytes.NewReader(data), Options{}, bc.ropt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadOnly is the floor: a plain loop over the x/exp/trace reader.
func BenchmarkReadOnly(b *testing.B) {
	data := benchTrace(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd, err := trace.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rd.ReadEvent(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkHandle measures the analysis alone: the trace's events are
// decoded once, into memory, and each round hands them all to a new
// analyzer. Against BenchmarkReadOnly (the same trace) it is the analysis'
// cost over the bare read on one core.
func BenchmarkHandle(b *testing.B) {
	data := benchTrace(b)
	rd, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	var evs []trace.Event
	for {
		ev, err := rd.ReadEvent()
		if err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		a := newAnalyzer()
		a.viz = newVizCollector()
		for i := range evs {
			a.handle(&evs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(evs)), "ns/event")
}
