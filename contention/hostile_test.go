package contention

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

func fixtureProfile(t *testing.T, name string) *pprof.Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func encode(t *testing.T, p *pprof.Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestNegativeSamples: a sample with a negative value is corrupt; it is
// skipped and counted, and the rest is analysed as before.
func TestNegativeSamples(t *testing.T) {
	p := fixtureProfile(t, "mutex.mutex.pb.gz")
	good, err := parse("good", encode(t, p), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Analyze([]*Profile{good}, Options{Duration: fixtureDuration})

	bad := p.Copy()
	loc := bad.Sample[0].Location
	bad.Sample = append(bad.Sample, &pprof.Sample{Location: loc, Value: []int64{-5, 1 << 62}},
		&pprof.Sample{Location: loc, Value: []int64{3, -1}})
	cp, err := parse("bad", encode(t, bad), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Skipped != 2 {
		t.Errorf("skipped %d, want 2", cp.Skipped)
	}
	got, _ := Analyze([]*Profile{cp}, Options{Duration: fixtureDuration})
	if len(got.Findings) != len(want.Findings) || got.Summary.Profiles[0].Contentions != want.Summary.Profiles[0].Contentions {
		t.Errorf("with corrupt samples: %d findings, %d contentions; without: %d, %d", len(got.Findings),
			got.Summary.Profiles[0].Contentions, len(want.Findings), want.Summary.Profiles[0].Contentions)
	}
	if ps := got.Summary.Profiles[0]; ps.Skipped != 2 || !strings.Contains(ps.Status, "2 samples with a negative value skipped") {
		t.Errorf("summary %+v", ps)
	}
}

// TestRecordLimits: a profile claiming more records than the limits is
// refused before pprof parses it, naming the count and the limit.
func TestRecordLimits(t *testing.T) {
	p := fixtureProfile(t, "mutex.mutex.pb.gz")
	for len(p.Sample) < 1000 {
		p.Sample = append(p.Sample, p.Sample...)
	}
	data := encode(t, p)
	_, err := parse("many", data, ReadOptions{MaxSamples: 100})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "samples, over a limit of 100") {
		t.Errorf("err = %v", err)
	}
	_, err = parse("deep", data, ReadOptions{MaxFrames: 50})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "stack frames") {
		t.Errorf("err = %v", err)
	}
	if _, err := parse("ok", data, ReadOptions{}); err != nil {
		t.Errorf("within the defaults: %v", err)
	}
	// gzip bomb: the decompressed size is capped.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	io.Copy(zw, io.LimitReader(zeros{}, 4<<20))
	zw.Close()
	if _, err := parse("bomb", z.Bytes(), ReadOptions{MaxBytes: 1 << 20}); err == nil || !strings.Contains(err.Error(), "uncompresses to more than the limit") {
		t.Errorf("bomb: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// FuzzParse: no input panics the reader or the analysis, and what is read
// stays within the limits.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"light.mutex.pb.gz", "mutex.block.pb.gz", "none.mutex.pb.gz"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse("fuzz", data, ReadOptions{MaxBytes: 1 << 20, MaxSamples: 1000, MaxFrames: 10000, MaxLocations: 1000})
		if err != nil {
			return
		}
		if len(p.Prof.Sample) > 1000 || p.Skipped < 0 {
			t.Fatalf("%d samples, %d skipped", len(p.Prof.Sample), p.Skipped)
		}
		res, err := Analyze([]*Profile{p}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Summary.Sites {
			if s.Contentions < 0 || s.DelaySecs < 0 {
				t.Fatalf("negative site %+v", s)
			}
		}
		if err := res.Summary.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}
