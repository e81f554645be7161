package sysread

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// mutexProfile is a real mutex profile from the contention package's
// testdata, uncompressed.
func mutexProfile(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "contention", "testdata", "mutex.mutex.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCountProto(t *testing.T) {
	data := mutexProfile(t)
	c, err := CountProto(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pprof.ParseUncompressed(data)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, s := range p.Sample {
		frames += len(s.Location)
	}
	if c.Samples != len(p.Sample) || c.Locations != len(p.Location) || c.Functions != len(p.Function) ||
		c.Mappings != len(p.Mapping) || c.Frames != frames || c.Strings == 0 {
		t.Errorf("counts %+v; pprof: %d samples, %d frames, %d locations, %d functions, %d mappings",
			c, len(p.Sample), frames, len(p.Location), len(p.Function), len(p.Mapping))
	}
	if c.Max() < c.Locations {
		t.Errorf("Max %d below locations %d", c.Max(), c.Locations)
	}
	for _, bad := range [][]byte{{0x00}, {0x12, 0x05, 0x01}, {0x17}, []byte("<html>")} {
		if _, err := CountProto(bad); err == nil {
			t.Errorf("CountProto(%q): want an error", bad)
		}
	}
}

// The streaming scanner counts a profile fed a few bytes at a time as it
// counts it whole; it refuses a field longer than MaxField as soon as the
// length is read, and stops at the first error of Check.
func TestProtoScannerStreams(t *testing.T) {
	data := mutexProfile(t)
	whole, err := CountProto(data)
	if err != nil {
		t.Fatal(err)
	}
	var s ProtoScanner
	for n := 0; n <= len(data); n += 7 {
		if err := s.Scan(data[:n]); err != nil {
			t.Fatalf("at %d bytes: %v", n, err)
		}
	}
	if err := s.Scan(data); err != nil || !s.Complete(data) || s.Counts() != whole || s.Consumed() != len(data) {
		t.Errorf("streamed: %+v (complete %v, err %v), whole: %+v", s.Counts(), s.Complete(data), err, whole)
	}
	// A sample field claiming 1 MB: refused from its first three bytes.
	big := ProtoScanner{MaxField: 1000}
	var fe *FieldSizeError
	if err := big.Scan([]byte{0x12, 0x80, 0x80, 0x40}); !errors.As(err, &fe) || fe.Size != 1<<20 {
		t.Errorf("1 MB field with MaxField 1000: %v", err)
	}
	stop := errors.New("two samples")
	c := ProtoScanner{Check: func(c ProtoCounts) error {
		if c.Samples >= 2 {
			return stop
		}
		return nil
	}}
	if err := c.Scan(data); err != stop || c.Counts().Samples != 2 {
		t.Errorf("Check stop: %v after %d samples", err, c.Counts().Samples)
	}
	// A known field with a wire type it cannot have (sample as varint).
	if _, err := CountProto([]byte{0x10, 0x01}); err == nil {
		t.Error("sample field as a varint: want an error")
	}
}

// FuzzCountProto: no input panics, and the counts never exceed what the
// bytes can hold (each record takes at least two bytes, each frame one).
func FuzzCountProto(f *testing.F) {
	f.Add([]byte{0x12, 0x02, 0x08, 0x01, 0x22, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := CountProto(data)
		if err != nil {
			return
		}
		if 2*(c.Samples+c.Locations+c.Functions+c.Mappings+c.Strings) > len(data) || c.Frames > len(data) {
			t.Fatalf("counts %+v from %d bytes", c, len(data))
		}
	})
}
