package profile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Defaults of Limits. A CPU profile that Go's runtime writes aggregates
// identical stacks into one sample, so a real profile stays far below
// these (the lab's are 1–15 KB with 72–183 samples); a profile above
// them is most likely crafted or corrupt, and would otherwise cost memory
// in proportion to what it claims (a 512 KB gzip of 22 million samples
// took 5.9 GB and 37 s to parse before these limits). At the defaults the
// worst measured case (499,999 samples 16 frames deep) took 416 MB.
const (
	// DefaultMaxBytes bounds the decompressed profile (and the compressed
	// input: compression never makes a real profile larger).
	DefaultMaxBytes = 64 << 20
	// DefaultMaxSamples bounds the samples (distinct stacks and labels):
	// 30s of 64 busy cores at 100 Hz is 192,000 samples before the runtime
	// merges identical stacks.
	DefaultMaxSamples = 500_000
	// DefaultMaxFrames bounds the location references of all samples
	// together (the sum of the stack depths): they cost 16–32 bytes each
	// once parsed, and one byte each in the file, so the byte limit alone
	// would let 64 MB become 2 GB.
	DefaultMaxFrames = 8_000_000
	// DefaultMaxLocations bounds the locations; functions, mappings and
	// string-table entries are held to the same number, since each costs
	// as much memory as a location and a real profile has fewer of them
	// (a profile touches some thousands of distinct PCs).
	DefaultMaxLocations = 250_000
	// DefaultMaxGzipRatio bounds decompressed/compressed bytes once the
	// output passes gzipRatioFloor: Go writes profiles at gzip's fastest
	// level, about 2:1 (the lab profiles: 1.4–2.2); a bomb is about 1000:1.
	DefaultMaxGzipRatio = 100
)

// gzipRatioFloor is the decompressed size below which the ratio is not
// checked: a small profile of one repeated stack can compress far, and
// under 1 MB nothing costs much.
const gzipRatioFloor = 1 << 20

// Limits bound the cost of reading one profile. The zero value of each
// field means its Default; a negative value is an error.
type Limits struct {
	MaxBytes     int64   // decompressed bytes (and compressed bytes read)
	MaxSamples   int     // samples
	MaxFrames    int     // location references of all samples (sum of depths)
	MaxLocations int     // locations (also functions, mappings, strings)
	MaxGzipRatio float64 // decompressed / compressed, past 1 MB of output
}

// ErrLimit is wrapped by the errors for profiles over one of the Limits.
var ErrLimit = errors.New("over a limit")

// LimitError says which limit a profile exceeded and by how much it was
// known to exceed it when reading stopped (reading stops at the limit, so
// Value is a lower bound).
type LimitError struct {
	Limit string  // "bytes", "samples", "frames", "locations", "gzip-ratio" (the flag is -max-<Limit>, -max-mb for bytes)
	Value float64 // what was seen when reading stopped
	Max   float64
	What  string // the thing counted: "decompressed bytes", "samples", "functions", ...
}

func (e *LimitError) Error() string {
	if e.Limit == "gzip-ratio" {
		return fmt.Sprintf("decompresses at %.0f:1, over the gzip-ratio limit of %.0f:1 (a decompression bomb? raise -max-gzip-ratio if not)", e.Value, e.Max)
	}
	flag := "-max-" + e.Limit
	if e.Limit == "bytes" {
		flag = "-max-mb"
	}
	return fmt.Sprintf("more than %.0f %s, over the %s limit of %.0f (raise %s if the profile is genuine)", e.Max, e.What, e.Limit, e.Max, flag)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// withDefaults fills zero fields and rejects negative ones.
func (l Limits) withDefaults() (Limits, error) {
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

// Top-level fields of the profile.proto Profile message.
const (
	fieldSampleType = 1
	fieldSample     = 2
	fieldMapping    = 3
	fieldLocation   = 4
	fieldFunction   = 5
	fieldString     = 6
	fieldComment    = 13
	fieldMax        = 15 // doc_url, the newest field
)

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireLen     = 2
	wireFixed32 = 5
)

// scanner walks the top-level fields of a profile as its bytes arrive,
// counting the records that cost memory once parsed, so that a profile
// over a limit is refused while it streams, before pprof parses it, and
// input that is no protobuf at all (/dev/zero, random bytes, text) is
// refused at its first bytes instead of after the byte limit.
type scanner struct {
	lim    Limits
	pos    int // bytes of complete fields consumed
	counts [fieldMax + 1]int
	frames int // location IDs in the samples so far
}

// scan consumes the complete fields of buf from s.pos; an incomplete field
// at the end waits for more bytes.
func (s *scanner) scan(buf []byte) error {
	for s.pos < len(buf) {
		tag, n := binary.Uvarint(buf[s.pos:])
		if n == 0 {
			return nil // the tag is not complete yet
		}
		if n < 0 {
			return fmt.Errorf("not a pprof profile: bad field tag at byte %d", s.pos)
		}
		field, wire := tag>>3, int(tag&7)
		if field == 0 {
			return fmt.Errorf("not a pprof profile: field number 0 at byte %d", s.pos)
		}
		if !wireOK(field, wire) {
			return fmt.Errorf("not a pprof profile: field %d has wire type %d at byte %d", field, wire, s.pos)
		}
		p := s.pos + n
		var body []byte // a LEN field's payload
		switch wire {
		case wireVarint:
			_, m := binary.Uvarint(buf[p:])
			if m == 0 {
				return nil
			}
			if m < 0 {
				return fmt.Errorf("not a pprof profile: bad varint at byte %d", p)
			}
			p += m
		case wireFixed64, wireFixed32:
			size := 8
			if wire == wireFixed32 {
				size = 4
			}
			if len(buf)-p < size {
				return nil
			}
			p += size
		case wireLen:
			size, m := binary.Uvarint(buf[p:])
			if m == 0 {
				return nil
			}
			if m < 0 {
				return fmt.Errorf("not a pprof profile: bad length at byte %d", p)
			}
			if size > uint64(s.lim.MaxBytes) {
				return &LimitError{Limit: "bytes", Value: float64(size), Max: float64(s.lim.MaxBytes), What: "bytes in one field"}
			}
			if uint64(len(buf)-p-m) < size {
				return nil
			}
			body = buf[p+m : p+m+int(size)]
			p += m + int(size)
		}
		if field == fieldSample {
			s.frames += sampleFrames(body)
		}
		if field <= fieldMax {
			s.counts[field]++
			if err := s.check(int(field)); err != nil {
				return err
			}
		}
		s.pos = p
	}
	return nil
}

// wireOK is whether the wire type fits the field: the known fields are
// messages, strings or packed lists (LEN) or integers (varint); unknown,
// newer fields may be anything but the deprecated groups.
func wireOK(field uint64, wire int) bool {
	switch field {
	case 1, 2, 3, 4, 5, 6, 11:
		return wire == wireLen
	case 7, 8, 9, 10, 12, 14:
		return wire == wireVarint
	case fieldComment:
		return wire == wireVarint || wire == wireLen
	}
	return wire == wireVarint || wire == wireLen || wire == wireFixed64 || wire == wireFixed32
}

func (s *scanner) check(field int) error {
	n := s.counts[field]
	switch field {
	case fieldSample:
		if n > s.lim.MaxSamples {
			return &LimitError{Limit: "samples", Value: float64(n), Max: float64(s.lim.MaxSamples), What: "samples"}
		}
		if s.frames > s.lim.MaxFrames {
			return &LimitError{Limit: "frames", Value: float64(s.frames), Max: float64(s.lim.MaxFrames), What: "stack frames (location references of all samples)"}
		}
	case fieldLocation, fieldFunction, fieldMapping, fieldString:
		if n > s.lim.MaxLocations {
			what := map[int]string{fieldLocation: "locations", fieldFunction: "functions", fieldMapping: "mappings", fieldString: "strings"}[field]
			return &LimitError{Limit: "locations", Value: float64(n), Max: float64(s.lim.MaxLocations), What: what}
		}
	}
	return nil
}

// complete reports whether the scan ended on a field boundary.
func (s *scanner) complete(buf []byte) bool { return s.pos == len(buf) }

// sampleFrames counts the location IDs (field 1, packed or not) of one
// Sample message; malformed contents count what they hold and are left to
// pprof's parser to reject.
func sampleFrames(msg []byte) int {
	n := 0
	for len(msg) > 0 {
		tag, k := binary.Uvarint(msg)
		if k <= 0 {
			return n
		}
		msg = msg[k:]
		switch int(tag & 7) {
		case wireVarint:
			_, k = binary.Uvarint(msg)
			if k <= 0 {
				return n
			}
			if tag>>3 == 1 {
				n++
			}
			msg = msg[k:]
		case wireLen:
			size, k := binary.Uvarint(msg)
			if k <= 0 || uint64(len(msg)-k) < size {
				return n
			}
			body := msg[k : k+int(size)]
			if tag>>3 == 1 {
				for _, b := range body {
					if b < 0x80 { // the last byte of each varint
						n++
					}
				}
			}
			msg = msg[k+int(size):]
		case wireFixed64:
			msg = msg[min(8, len(msg)):]
		case wireFixed32:
			msg = msg[min(4, len(msg)):]
		default:
			return n
		}
	}
	return n
}
