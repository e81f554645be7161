package sysread

import (
	"encoding/binary"
	"fmt"
)

// ProtoCounts are the records of a pprof profile (profile.proto) that cost
// memory once parsed, counted from its wire format without parsing it.
// github.com/google/pprof/profile allocates for every record a profile
// claims, so a small crafted file can claim millions; counting first lets a
// reader refuse it at the cost of one pass over bytes already in memory.
type ProtoCounts struct {
	Samples   int // Profile.sample
	Frames    int // location IDs over all samples (the sum of stack depths)
	Locations int // Profile.location
	Functions int // Profile.function
	Mappings  int // Profile.mapping
	Strings   int // Profile.string_table
}

// Max returns the largest of the location-like counts (locations,
// functions, mappings, strings), which cost about the same each.
func (c ProtoCounts) Max() int { return max(c.Locations, c.Functions, c.Mappings, c.Strings) }

// CountProto walks the top-level fields of an uncompressed pprof profile.
// It fails on bytes that are not a protobuf message (a bad tag, a wire
// type the field cannot have, a field cut short), saying at which byte.
func CountProto(data []byte) (ProtoCounts, error) {
	var s ProtoScanner
	if err := s.Scan(data); err != nil {
		return s.Counts(), err
	}
	if !s.Complete(data) {
		return s.Counts(), fmt.Errorf("field cut short at byte %d", s.pos)
	}
	return s.Counts(), nil
}

// ProtoScanner walks the top-level fields of an uncompressed pprof profile
// as its bytes arrive, counting the records that cost memory once parsed,
// so that a profile over a limit is refused while it streams, before pprof
// parses it, and input that is no protobuf at all (/dev/zero, random
// bytes, text) is refused at its first bytes. The zero value is ready.
type ProtoScanner struct {
	// MaxField, when positive, bounds the length of one field: a longer
	// one is a *FieldSizeError as soon as its length is read, before its
	// bytes arrive.
	MaxField int64
	// Check, when set, is called after each complete field with the
	// counts so far; its error stops the scan and is returned as is.
	Check func(ProtoCounts) error

	pos int // bytes of complete fields consumed
	c   ProtoCounts
}

// FieldSizeError is a field longer than ProtoScanner.MaxField.
type FieldSizeError struct {
	Size, Max uint64
}

func (e *FieldSizeError) Error() string {
	return fmt.Sprintf("a field of %d bytes, over the limit of %d", e.Size, e.Max)
}

// Top-level fields of the profile.proto Profile message, and wire types.
const (
	fieldSample   = 2
	fieldMapping  = 3
	fieldLocation = 4
	fieldFunction = 5
	fieldString   = 6
	fieldComment  = 13

	wireVarint  = 0
	wireFixed64 = 1
	wireLen     = 2
	wireFixed32 = 5
)

// Counts returns what the complete fields scanned so far hold.
func (s *ProtoScanner) Counts() ProtoCounts { return s.c }

// Consumed returns the bytes of complete fields scanned so far.
func (s *ProtoScanner) Consumed() int { return s.pos }

// Complete reports whether the scan of buf ended on a field boundary.
func (s *ProtoScanner) Complete(buf []byte) bool { return s.pos == len(buf) }

// Scan consumes the complete fields of buf from where the last call
// stopped: buf holds every byte since the start, grown by the caller. An
// incomplete field at the end waits for more bytes.
func (s *ProtoScanner) Scan(buf []byte) error {
	for s.pos < len(buf) {
		tag, n := binary.Uvarint(buf[s.pos:])
		if n == 0 {
			return nil // the tag is not complete yet
		}
		if n < 0 {
			return fmt.Errorf("bad field tag at byte %d", s.pos)
		}
		field, wire := tag>>3, int(tag&7)
		if field == 0 {
			return fmt.Errorf("field number 0 at byte %d", s.pos)
		}
		if !wireOK(field, wire) {
			return fmt.Errorf("field %d has wire type %d at byte %d", field, wire, s.pos)
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
				return fmt.Errorf("bad varint at byte %d", p)
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
				return fmt.Errorf("bad length at byte %d", p)
			}
			if s.MaxField > 0 && size > uint64(s.MaxField) {
				return &FieldSizeError{Size: size, Max: uint64(s.MaxField)}
			}
			if uint64(len(buf)-p-m) < size {
				return nil
			}
			body = buf[p+m : p+m+int(size)]
			p += m + int(size)
		}
		switch field {
		case fieldSample:
			s.c.Samples++
			s.c.Frames += sampleFrames(body)
		case fieldMapping:
			s.c.Mappings++
		case fieldLocation:
			s.c.Locations++
		case fieldFunction:
			s.c.Functions++
		case fieldString:
			s.c.Strings++
		}
		s.pos = p
		if s.Check != nil {
			if err := s.Check(s.c); err != nil {
				return err
			}
		}
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

// sampleFrames counts the location IDs (field 1, packed or not) of one
// Sample message; what does not parse is left to pprof to reject.
func sampleFrames(msg []byte) int {
	n := 0
	for len(msg) > 0 {
		tag, k := binary.Uvarint(msg)
		if k <= 0 {
			return n
		}
		msg = msg[k:]
		switch tag & 7 {
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
			if tag>>3 == 1 {
				for _, b := range msg[k : k+int(size)] {
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
