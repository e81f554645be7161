package profile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/internal/golden"
	"github.com/schedoctor/schedoctor/internal/labtest"
	"github.com/schedoctor/schedoctor/internal/sysread"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// bomb describes a crafted CPU profile written straight as protobuf, so
// that millions of samples cost the test no memory to make.
type bomb struct {
	samples   int
	value     int64 // CPU nanoseconds of each sample (can be negative)
	duration  int64
	locations int // extra locations beyond the one every sample uses
	zeros     int // length of one extra string of zero bytes (compresses ~1000:1)
	raw       bool
}

func pbTag(b []byte, field, wire int) []byte { return binary.AppendUvarint(b, uint64(field<<3|wire)) }
func pbVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(pbTag(b, field, 0), v)
}
func pbLen(b []byte, field int, m []byte) []byte {
	b = binary.AppendUvarint(pbTag(b, field, 2), uint64(len(m)))
	return append(b, m...)
}

// write writes the profile: samples/count and cpu/nanoseconds, one
// function main.spin in /x/main.go, every sample on it.
func (bm bomb) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	out := io.Writer(bw)
	var zw *gzip.Writer
	if !bm.raw {
		zw, _ = gzip.NewWriterLevel(bw, gzip.BestCompression)
		out = zw
	}
	var h []byte
	h = pbLen(h, 1, pbVarint(pbVarint(nil, 1, 1), 2, 2)) // samples/count
	h = pbLen(h, 1, pbVarint(pbVarint(nil, 1, 3), 2, 4)) // cpu/nanoseconds
	h = pbLen(h, 5, pbVarint(pbVarint(pbVarint(pbVarint(nil, 1, 1), 2, 5), 3, 5), 4, 6))
	h = pbLen(h, 4, pbLen(pbVarint(nil, 1, 1), 4, pbVarint(pbVarint(nil, 1, 1), 2, 7)))
	for _, s := range []string{"", "samples", "count", "cpu", "nanoseconds", "main.spin", "/x/main.go"} {
		h = pbLen(h, 6, []byte(s))
	}
	h = pbVarint(h, 10, uint64(bm.duration))
	h = pbLen(h, 11, pbVarint(pbVarint(nil, 1, 3), 2, 4))
	h = pbVarint(h, 12, 10_000_000)
	if _, err := out.Write(h); err != nil {
		return err
	}
	for i := range bm.locations {
		if _, err := out.Write(pbLen(nil, 4, pbVarint(nil, 1, uint64(i+2)))); err != nil {
			return err
		}
	}
	if bm.zeros > 0 {
		out.Write(pbTag(nil, 6, 2))
		out.Write(binary.AppendUvarint(nil, uint64(bm.zeros)))
		zero := make([]byte, 64<<10)
		for n := bm.zeros; n > 0; n -= min(n, len(zero)) {
			if _, err := out.Write(zero[:min(n, len(zero))]); err != nil {
				return err
			}
		}
	}
	vals := binary.AppendUvarint(binary.AppendUvarint(nil, 1), uint64(bm.value))
	rec := pbLen(nil, 2, pbLen(pbLen(nil, 1, []byte{1}), 2, vals))
	for range bm.samples {
		if _, err := out.Write(rec); err != nil {
			return err
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (bm bomb) bytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := bm.write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The bomb of the issue: 512 KB of gzip, 22 million samples. Before the
// limits it took 5.9 GB and 37 s and reported 73333 cores; now reading
// stops at the samples limit, having allocated a bounded amount.
func TestLimitSamplesBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 512 KB gzip of 22 million samples")
	}
	data := bomb{samples: 22_000_000, value: 10_000_000, duration: 30e9}.bytes(t)
	t.Logf("bomb: %d bytes of gzip", len(data))
	var err error
	alloc := labtest.Allocated(func() { _, err = Read(context.Background(), "bomb.pb.gz", bytes.NewReader(data), ReadOptions{}) })
	// It compresses 264:1: the ratio refuses it first, after 1 MB.
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "gzip-ratio" || !errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v, want the gzip-ratio limit", err)
	}
	if !strings.Contains(err.Error(), "bomb.pb.gz: ") || !strings.Contains(err.Error(), "gzip-ratio limit") {
		t.Errorf("error %q does not name the file and the limit", err)
	}
	t.Logf("allocated %.1f MB: %v", float64(alloc)/(1<<20), err)
	// With the ratio raised, the samples limit stops reading at 2M samples
	// (24 MB of protobuf): the buffer and the decompressor, not the 264 MB
	// the bomb holds.
	alloc = labtest.Allocated(func() {
		_, err = Read(context.Background(), "bomb.pb.gz", bytes.NewReader(data), ReadOptions{MaxGzipRatio: 1000})
	})
	if !errors.As(err, &le) || le.Limit != "samples" || !strings.Contains(err.Error(), "samples limit") {
		t.Fatalf("err = %v, want the samples limit", err)
	}
	if alloc > 128<<20 {
		t.Errorf("allocated %d MB reading the bomb, want < 128", alloc>>20)
	}
	t.Logf("allocated %.1f MB: %v", float64(alloc)/(1<<20), err)

	// Raised, the same limit lets a smaller bomb through to the numbers.
	small := bomb{samples: 2000, value: 10_000_000, duration: 30e9}.bytes(t)
	if _, err := Read(context.Background(), "small", bytes.NewReader(small), ReadOptions{MaxSamples: 1999}); !errors.Is(err, ErrLimit) {
		t.Errorf("2000 samples over a limit of 1999: %v", err)
	}
	if _, err := Read(context.Background(), "small", bytes.NewReader(small), ReadOptions{MaxSamples: 2000}); err != nil {
		t.Errorf("2000 samples at a limit of 2000: %v", err)
	}
}

func TestLimitGzipRatio(t *testing.T) {
	data := bomb{samples: 200, value: 10_000_000, duration: 30e9, zeros: 40 << 20}.bytes(t)
	var err error
	alloc := labtest.Allocated(func() { _, err = Read(context.Background(), "zeros.pb.gz", bytes.NewReader(data), ReadOptions{}) })
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "gzip-ratio" || le.Value <= DefaultMaxGzipRatio {
		t.Fatalf("%d bytes of gzip: err = %v, want the gzip-ratio limit", len(data), err)
	}
	// Refused after a little over gzipRatioFloor of output, not at 40 MB.
	if alloc > 16<<20 {
		t.Errorf("allocated %d MB, want < 16", alloc>>20)
	}
	// Raise the ratio: a byte limit still holds, refused later.
	_, err = Read(context.Background(), "zeros.pb.gz", bytes.NewReader(data), ReadOptions{MaxGzipRatio: 1e6, MaxBytes: 8 << 20})
	if !errors.As(err, &le) || le.Limit != "bytes" || !strings.Contains(err.Error(), "over the bytes limit of 8388608") {
		t.Errorf("ratio raised: err = %v, want the bytes limit", err)
	}
	// Allowed both: reads.
	if _, err := Read(context.Background(), "zeros.pb.gz", bytes.NewReader(data), ReadOptions{MaxGzipRatio: 1e6}); err != nil {
		t.Errorf("both raised: %v", err)
	}
	// A real profile is far below the ratio (and below the floor).
	if _, err := Read(context.Background(), realCPU, bytes.NewReader(readFile(t, realCPU)), ReadOptions{MaxGzipRatio: 3}); err != nil {
		t.Errorf("real profile at ratio 3: %v", err)
	}
}

func TestLimitBytesAndLocations(t *testing.T) {
	raw := bomb{samples: 100_000, value: 10_000_000, duration: 3000e9, raw: true}.bytes(t)
	_, err := Read(context.Background(), "raw.pb", bytes.NewReader(raw), ReadOptions{MaxBytes: 1 << 20})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "bytes" || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Errorf("uncompressed over 1 MB: %v", err)
	}
	if _, err := Read(context.Background(), "raw.pb", bytes.NewReader(raw), ReadOptions{}); err != nil {
		t.Errorf("uncompressed within the limits: %v", err)
	}
	locs := bomb{samples: 10, value: 10_000_000, duration: 30e9, locations: 5000}.bytes(t)
	_, err = Read(context.Background(), "locs.pb.gz", bytes.NewReader(locs), ReadOptions{MaxLocations: 4000})
	if !errors.As(err, &le) || le.Limit != "locations" || le.What != "locations" {
		t.Errorf("5001 locations over 4000: %v", err)
	}
	if _, err := Read(context.Background(), "locs.pb.gz", bytes.NewReader(locs), ReadOptions{MaxLocations: 6000}); err != nil {
		t.Errorf("5001 locations under 6000: %v", err)
	}
	// One sample 100,000 frames deep, packed, and one with its 3 frames
	// unpacked: the frames limit counts both forms.
	deep := bomb{samples: 1, value: 10_000_000, duration: 30e9, raw: true}.bytes(t)
	deep = pbLen(deep, 2, pbLen(pbLen(nil, 1, bytes.Repeat([]byte{1}, 100_000)), 2, []byte{1, 1}))
	deep = pbLen(deep, 2, pbLen(pbVarint(pbVarint(pbVarint(nil, 1, 1), 1, 1), 1, 1), 2, []byte{1, 1}))
	_, err = Read(context.Background(), "deep.pb", bytes.NewReader(deep), ReadOptions{MaxFrames: 100_003})
	if !errors.As(err, &le) || le.Limit != "frames" || le.Value != 100_004 {
		t.Errorf("100,004 frames over 100,003: %v (%+v)", err, le)
	}
	if _, err := Read(context.Background(), "deep.pb", bytes.NewReader(deep), ReadOptions{MaxFrames: 100_004}); err != nil {
		t.Errorf("100,004 frames at the limit: %v", err)
	}
	if _, err := Read(context.Background(), "x", bytes.NewReader(locs), ReadOptions{MaxSamples: -1}); err == nil {
		t.Error("a negative limit: no error")
	}
}

// endless is an input that never ends: /dev/zero or /dev/urandom through
// a pipe, where the file cannot be checked.
type endless struct {
	b byte
	n int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.n += int64(len(p))
	return len(p), nil
}

// /dev/zero: refused as a file before reading, and as a stream at its
// first byte (field number 0), instead of after the byte limit.
func TestEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadFile(context.Background(), "/dev/zero", ReadOptions{})
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "character device") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	for _, b := range []byte{0x00, 0xff, 0x08} {
		in := &endless{b: b}
		_, err := Read(context.Background(), "stdin", in, ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), "not a pprof profile") {
			t.Errorf("endless 0x%02x: %v", b, err)
		}
		if in.n > 1<<20 {
			t.Errorf("endless 0x%02x: read %d bytes before refusing, want < 1 MB", b, in.n)
		}
	}
	// A well-formed endless stream (empty strings forever) stops at a limit.
	in := io.MultiReader(bytes.NewReader(bytes.Repeat([]byte{0x32, 0x00}, 1<<20)), &endless{b: 0x32})
	if _, err := Read(context.Background(), "stdin", in, ReadOptions{MaxBytes: 4 << 20}); !errors.Is(err, ErrLimit) {
		t.Errorf("endless well-formed stream: %v", err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(context.Background(), fifo, ReadOptions{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := ReadFile(context.Background(), dir, ReadOptions{}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
}

func TestBadNumbers(t *testing.T) {
	for _, c := range []struct {
		name string
		bm   bomb
		want string
	}{
		{"negative", bomb{samples: 300, value: -5, duration: 30e9}, "sample 1 has a negative cpu value (-5)"},
		{"overflow", bomb{samples: 300, value: math.MaxInt64 - 5, duration: 30e9}, "overflows 64 bits at sample 2"},
		{"1ns", bomb{samples: 300, value: 10_000_000, duration: 1}, "3s of CPU in a duration of 1ns is 3000000000 cores"},
		{"negative duration", bomb{samples: 300, value: 10_000_000, duration: -1}, "duration is negative"},
	} {
		_, err := Read(context.Background(), c.name, bytes.NewReader(c.bm.bytes(t)), ReadOptions{})
		if !errors.Is(err, ErrBadNumbers) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Close negatives: the largest plausible figures pass.
	for _, c := range []struct {
		name string
		bm   bomb
	}{
		{"8192 cores", bomb{samples: 8192, value: 10_000_000, duration: 10_000_000}},
		{"no duration", bomb{samples: 300, value: 10_000_000, duration: 0}},
		{"zero values", bomb{samples: 300, value: 0, duration: 30e9}}, // read; Analyze says all zero
		{"big but fits", bomb{samples: 2, value: math.MaxInt64 / 4, duration: math.MaxInt64}},
	} {
		if _, err := Read(context.Background(), c.name, bytes.NewReader(c.bm.bytes(t)), ReadOptions{}); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Two profiles whose sums each fit but not together.
	half := func() *profile.Profile {
		p, err := Read(context.Background(), "half", bytes.NewReader(bomb{samples: 1, value: math.MaxInt64/2 + 1, duration: 0}.bytes(t)), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := Analyze([]*profile.Profile{half(), half()}, Options{}); err == nil || !strings.Contains(err.Error(), "merging the profiles") {
		t.Errorf("merged overflow: %v", err)
	}
	// Analyze checks profiles it did not read, too.
	p := synth.Build(1, synth.Stack{Nanos: 3e9, Locs: []string{"main.f@/x/main.go:3", "runtime.main"}})
	if _, err := Analyze([]*profile.Profile{p}, Options{}); !errors.Is(err, ErrBadNumbers) {
		t.Errorf("Analyze of a 1ns profile: %v", err)
	}
}

// The bombs committed for the CLI's hostile corpus
// (internal/cli/testdata/hostile), rewritten with -update: the tests check
// that the committed bytes are what these generators make.
func TestHostileCorpusFiles(t *testing.T) {
	dir := filepath.Join("..", "internal", "cli", "testdata", "hostile")
	for name, bm := range map[string]bomb{
		"profile-bomb-samples/cpu.pb.gz": {samples: DefaultMaxSamples + 500_000, value: 10_000_000, duration: 30e9},
		"profile-bomb-gzip/cpu.pb.gz":    {samples: 200, value: 10_000_000, duration: 30e9, zeros: 8 << 20},
		"profile-negative/cpu.pb.gz":     {samples: 300, value: -10_000_000, duration: 30e9},
		"profile-overflow/cpu.pb.gz":     {samples: 300, value: math.MaxInt64 / 100, duration: 30e9},
		"profile-1ns/cpu.pb.gz":          {samples: 270, value: 10_000_000, duration: 1},
	} {
		data := bm.bytes(t)
		if len(data) > 200<<10 {
			t.Fatalf("%s: %d bytes, want < 200 KB committed", name, len(data))
		}
		golden.Check(t, filepath.Join(dir, name), data)
	}
}

// fuzzFile encodes a seed in the format of testdata/fuzz corpus files.
func fuzzFile(args ...any) []byte {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case uint16:
			fmt.Fprintf(&b, "uint16(%d)\n", v)
		}
	}
	return []byte(b.String())
}

// The small bombs are kept in the fuzz corpora (rewritten with -update),
// so that `go test` runs them through FuzzClassify and FuzzReadLimits.
func TestFuzzCorpus(t *testing.T) {
	for name, bm := range map[string]bomb{
		"bomb-negative":  {samples: 3, value: -5, duration: 30e9},
		"bomb-overflow":  {samples: 3, value: math.MaxInt64 / 2, duration: 30e9},
		"bomb-1ns":       {samples: 3, value: 10_000_000, duration: 1},
		"bomb-locations": {samples: 3, value: 10_000_000, duration: 30e9, locations: 40},
		"bomb-samples":   {samples: 400, value: 10_000_000, duration: 30e9},
		"bomb-raw":       {samples: 3, value: 10_000_000, duration: 30e9, raw: true},
	} {
		data := bm.bytes(t)
		golden.Check(t, filepath.Join("testdata", "fuzz", "FuzzClassify", name), fuzzFile(data))
		golden.Check(t, filepath.Join("testdata", "fuzz", "FuzzReadLimits", name), fuzzFile(data, uint16(100), uint16(200), uint16(20)))
	}
}

// TestDefaultsFitAFleetProfile: the default limits accept a merged fleet
// profile of a million samples at depth 32 (issue 23: 500k samples were
// refused by the frames limit) with room to spare. The profile is made at
// 1/50 of the size and its counts scaled: they grow with the samples
// (bytes, frames) or stay (locations, strings). BenchmarkFleet reads the
// real million under the defaults.
func TestDefaultsFitAFleetProfile(t *testing.T) {
	const n, scale = 20_000, 50
	var buf bytes.Buffer
	if err := synth.Fleet(synth.FleetOptions{Samples: n}).WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	c, err := sysread.CountProto(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	bytes1M, frames1M, samples1M := scale*buf.Len(), scale*c.Frames, scale*c.Samples
	t.Logf("%d samples: %d bytes, %d frames, %d locations, %d strings; ×%d: %d MB, %d frames",
		c.Samples, buf.Len(), c.Frames, c.Locations, c.Strings, scale, bytes1M>>20, frames1M)
	for _, k := range []struct {
		what      string
		have, max int
	}{
		{"bytes", bytes1M, DefaultMaxBytes},
		{"samples", samples1M, DefaultMaxSamples},
		{"frames", frames1M, DefaultMaxFrames},
		{"locations", c.Max(), DefaultMaxLocations},
	} {
		// Twice the million fits: a deeper stack, a longer label.
		if 2*k.have > k.max {
			t.Errorf("%s: a million-sample fleet profile has %d, twice that is over the default %d", k.what, k.have, k.max)
		}
	}
}

// TestDeepStackBounded: a million-frame stack (a runaway recursion, or a
// crafted one) is read and analysed in time and memory proportionate to
// its parse (the flame graph keeps 256 frames, the user stacks 32; the
// scans hold a pointer and an index a frame, and the classifier a word,
// where pprof holds two words and the input), and one past the frames
// limit is refused.
func TestDeepStackBounded(t *testing.T) {
	const depth = 1_000_000
	deep := bomb{samples: 200, value: 10_000_000, duration: 30e9, raw: true}.bytes(t)
	deep = pbLen(deep, 2, pbLen(pbLen(nil, 1, bytes.Repeat([]byte{1}, depth)), 2, []byte{1, 1}))
	var p *profile.Profile
	var res *Result
	var err error
	start := time.Now()
	read := labtest.Allocated(func() { p, err = Read(context.Background(), "deep.pb", bytes.NewReader(deep), ReadOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	analyze := labtest.Allocated(func() { res, err = Analyze([]*profile.Profile{p}, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d-frame stack: %v, Read %.1f MB, Analyze %.1f MB", depth, time.Since(start), float64(read)/(1<<20), float64(analyze)/(1<<20))
	if analyze > 2*read {
		t.Errorf("Analyze allocated %d MB for one %d-frame stack, more than twice Read's %d", analyze>>20, depth, read>>20)
	}
	for _, st := range res.Summary.UserStacks {
		if len(st.Frames) > MaxStackUserFrames {
			t.Errorf("a user stack of %d frames, want at most %d", len(st.Frames), MaxStackUserFrames)
		}
	}
	_, err = Read(context.Background(), "deep.pb", bytes.NewReader(deep), ReadOptions{MaxFrames: depth})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "frames" || !strings.Contains(err.Error(), "deep.pb: ") || !strings.Contains(err.Error(), "frames limit") {
		t.Errorf("over the frames limit: %v", err)
	}
}
