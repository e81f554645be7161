package profile

import (
	"errors"
	"fmt"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// Defaults of ReadOptions. They accept what a continuous profiler
// (Pyroscope, Parca) hands over for a service: a CPU profile merged over
// pods, versions and hours, of up to a million samples (distinct stacks
// and labels) at a mean depth of 32 frames, with room to spare (issue 23;
// synth.Fleet makes one: 1,000,000 samples are 32 million frames, 80 MB
// decompressed and 18 MB of gzip, and some 10,000 locations). A profile
// above them is most likely crafted or corrupt, and would otherwise cost
// memory in proportion to what it claims (a 512 KB gzip of 22 million
// samples took 5.9 GB and 37 s to parse before these limits); at the
// defaults, memory is bounded by the frames limit, about 40 bytes a frame
// once parsed (docs/profile.md#limits).
const (
	// DefaultMaxBytes bounds the decompressed profile (and the compressed
	// input: compression never makes a real profile larger): a
	// million-sample merged profile is 80–130 MB (a sample of 32 frames
	// is 60–100 bytes of location IDs, plus its values and labels).
	DefaultMaxBytes = 256 << 20
	// DefaultMaxSamples bounds the samples (distinct stacks and labels):
	// twice the million of a large merged profile. A single process's
	// profile is far below (30s of 64 busy cores at 100 Hz is 192,000
	// samples before the runtime merges identical stacks).
	DefaultMaxSamples = 2_000_000
	// DefaultMaxFrames bounds the location references of all samples
	// together (the sum of the stack depths): a million samples at a
	// mean depth of 64 (Go records up to 128 frames a stack). They cost
	// about 40 bytes each once parsed (a location ID and a pointer per
	// frame, and the slices growing), and one byte each in the file, so
	// the byte limit alone would let 256 MB become 10 GB.
	DefaultMaxFrames = 64_000_000
	// DefaultMaxLocations bounds the locations; functions, mappings and
	// string-table entries are held to the same number, since each costs
	// as much memory as a location and a real profile has fewer of them
	// (a profile touches some thousands of distinct PCs; a merged one
	// holds them once per binary version).
	DefaultMaxLocations = 250_000
	// DefaultMaxGzipRatio bounds decompressed/compressed bytes once the
	// output passes gzipRatioFloor: Go writes profiles at gzip's fastest
	// level, about 2:1 (the lab profiles: 1.4–2.2; a merged fleet
	// profile, whose stacks repeat their prefixes: 4.4); a bomb is about
	// 1000:1.
	DefaultMaxGzipRatio = 100
)

// gzipRatioFloor is the decompressed size below which the ratio is not
// checked: a small profile of one repeated stack can compress far, and
// under 1 MB nothing costs much.
const gzipRatioFloor = 1 << 20

// ReadOptions bound the cost of reading one profile. The zero value of each
// field means its Default; a negative value is an error.
type ReadOptions struct {
	MaxBytes     int64   // decompressed bytes (and compressed bytes read)
	MaxSamples   int     // samples
	MaxFrames    int     // location references of all samples (sum of depths)
	MaxLocations int     // locations (also functions, mappings, strings)
	MaxGzipRatio float64 // decompressed / compressed, past 1 MB of output
}

// ErrLimit is wrapped by the errors for profiles over one of the ReadOptions limits.
var ErrLimit = errors.New("over a limit")

// LimitError says which limit a profile exceeded and by how much it was
// known to exceed it when reading stopped (reading stops at the limit, so
// Value is a lower bound).
type LimitError struct {
	Limit string  // "bytes", "samples", "frames", "locations", "gzip-ratio": which of ReadOptions' limits
	Value float64 // what was seen when reading stopped
	Max   float64
	What  string // the thing counted: "decompressed bytes", "samples", "functions", ...
}

func (e *LimitError) Error() string {
	if e.Limit == "gzip-ratio" {
		return fmt.Sprintf("decompresses at %.0f:1, over the gzip-ratio limit of %.0f:1 (a decompression bomb?)", e.Value, e.Max)
	}
	return fmt.Sprintf("more than %.0f %s, over the %s limit of %.0f", e.Max, e.What, e.Limit, e.Max)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// withDefaults fills zero fields and rejects negative ones.
func (l ReadOptions) withDefaults() (ReadOptions, error) {
	if l.MaxBytes < 0 || l.MaxSamples < 0 || l.MaxFrames < 0 || l.MaxLocations < 0 || l.MaxGzipRatio < 0 || l.MaxGzipRatio != l.MaxGzipRatio {
		return l, fmt.Errorf("limits must not be negative: %+v", l)
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxSamples == 0 {
		l.MaxSamples = DefaultMaxSamples
	}
	if l.MaxFrames == 0 {
		l.MaxFrames = DefaultMaxFrames
	}
	if l.MaxLocations == 0 {
		l.MaxLocations = DefaultMaxLocations
	}
	if l.MaxGzipRatio == 0 {
		l.MaxGzipRatio = DefaultMaxGzipRatio
	}
	return l, nil
}

// scanner applies ReadOptions to a profile as its bytes arrive
// (sysread.ProtoScanner counts the records that cost memory once parsed):
// a profile over a limit is refused while it streams, before pprof parses
// it, and input that is no protobuf at all (/dev/zero, random bytes,
// text) is refused at its first bytes instead of after the byte limit.
type scanner struct {
	lim ReadOptions
	ps  *sysread.ProtoScanner
	pos int // bytes of complete fields consumed
}

// scan consumes the complete fields of buf (every byte so far); an
// incomplete field at the end waits for more bytes.
func (s *scanner) scan(buf []byte) error {
	if s.ps == nil {
		s.ps = &sysread.ProtoScanner{MaxField: s.lim.MaxBytes, Check: s.check}
	}
	err := s.ps.Scan(buf)
	s.pos = s.ps.Consumed()
	var fe *sysread.FieldSizeError
	var le *LimitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return &LimitError{Limit: "bytes", Value: float64(fe.Size), Max: float64(fe.Max), What: "bytes in one field"}
	case errors.As(err, &le):
		return err
	}
	return fmt.Errorf("not a pprof profile: %w", err)
}

// check holds the counts so far to the limits: the one a field just
// passed is the one named.
func (s *scanner) check(c sysread.ProtoCounts) error {
	if c.Samples > s.lim.MaxSamples {
		return &LimitError{Limit: "samples", Value: float64(c.Samples), Max: float64(s.lim.MaxSamples), What: "samples"}
	}
	if c.Frames > s.lim.MaxFrames {
		return &LimitError{Limit: "frames", Value: float64(c.Frames), Max: float64(s.lim.MaxFrames), What: "stack frames (location references of all samples)"}
	}
	for _, k := range []struct {
		n    int
		what string
	}{{c.Locations, "locations"}, {c.Functions, "functions"}, {c.Mappings, "mappings"}, {c.Strings, "strings"}} {
		if k.n > s.lim.MaxLocations {
			return &LimitError{Limit: "locations", Value: float64(k.n), Max: float64(s.lim.MaxLocations), What: k.what}
		}
	}
	return nil
}

// complete reports whether the scan ended on a field boundary.
func (s *scanner) complete(buf []byte) bool {
	return s.ps == nil && len(buf) == 0 || s.ps != nil && s.ps.Complete(buf)
}
