package profile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/google/pprof/profile"
)

// FuzzClassify feeds arbitrary bytes through the whole path: parse, check,
// classify, summarise, find, write the classified profile. It must never
// panic; errors are fine. The kept corpus (testdata/fuzz/FuzzClassify)
// holds small real lab profiles and near misses.
func FuzzClassify(f *testing.F) {
	for _, name := range []string{realCPU} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(context.Background(), "fuzz", bytes.NewReader(data), ReadOptions{})
		if err != nil {
			return
		}
		res, err := Analyze([]*profile.Profile{p}, Options{})
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := res.Summary.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteClassified(&b); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReadLimits reads arbitrary bytes under small limits: reading must
// never panic, a profile it returns must be within every limit (the
// scanner counted what pprof then parsed), and a limit error must report a
// value over its limit. The kept corpus (testdata/fuzz/FuzzReadLimits)
// holds the small bombs of limits_test.go.
func FuzzReadLimits(f *testing.F) {
	f.Add(readFileF(f, realCPU), uint16(100), uint16(1000), uint16(50))
	for _, bm := range []bomb{
		{samples: 300, value: 10_000_000, duration: 30e9},
		{samples: 300, value: -5, duration: 30e9},
		{samples: 300, value: 1 << 62, duration: 30e9},
		{samples: 270, value: 10_000_000, duration: 1},
		{samples: 20, value: 10_000_000, duration: 30e9, locations: 60},
		{samples: 20, value: 10_000_000, duration: 30e9, zeros: 2 << 20},
		{samples: 300, value: 10_000_000, duration: 30e9, raw: true},
	} {
		f.Add(bm.bytes(f), uint16(100), uint16(1000), uint16(50))
	}
	f.Fuzz(func(t *testing.T, data []byte, samples, frames, locations uint16) {
		lim := ReadOptions{MaxBytes: 4 << 20, MaxSamples: int(samples) + 1, MaxFrames: int(frames) + 1, MaxLocations: int(locations) + 1}
		p, err := Read(context.Background(), "fuzz", bytes.NewReader(data), lim)
		var le *LimitError
		if errors.As(err, &le) {
			if le.Value <= le.Max {
				t.Fatalf("limit error with %v ≤ %v: %v", le.Value, le.Max, err)
			}
			return
		}
		if err != nil {
			return
		}
		depth := 0
		for _, s := range p.Sample {
			depth += len(s.Location)
		}
		if len(p.Sample) > lim.MaxSamples || depth > lim.MaxFrames || len(p.Location) > lim.MaxLocations ||
			len(p.Function) > lim.MaxLocations || len(p.Mapping) > lim.MaxLocations {
			t.Fatalf("read %d samples, %d frames, %d locations, %d functions, %d mappings over %+v",
				len(p.Sample), depth, len(p.Location), len(p.Function), len(p.Mapping), lim)
		}
		if err := checkNumbers(p); err != nil {
			t.Fatalf("read a profile whose numbers fail: %v", err)
		}
	})
}

func readFileF(f *testing.F, name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	return data
}
