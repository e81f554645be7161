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
// It fails on bytes that are not a protobuf message (a bad tag, a field
// cut short), saying at which byte.
func CountProto(data []byte) (ProtoCounts, error) {
	var c ProtoCounts
	for pos := 0; pos < len(data); {
		tag, n := binary.Uvarint(data[pos:])
		if n <= 0 {
			return c, fmt.Errorf("bad field tag at byte %d", pos)
		}
		field, wire := tag>>3, tag&7
		if field == 0 {
			return c, fmt.Errorf("field number 0 at byte %d", pos)
		}
		p := pos + n
		switch wire {
		case 0: // varint
			_, m := binary.Uvarint(data[p:])
			if m <= 0 {
				return c, fmt.Errorf("bad varint at byte %d", p)
			}
			p += m
		case 1, 5: // fixed64, fixed32
			size := 8
			if wire == 5 {
				size = 4
			}
			if len(data)-p < size {
				return c, fmt.Errorf("field %d cut short at byte %d", field, p)
			}
			p += size
		case 2: // length-delimited
			size, m := binary.Uvarint(data[p:])
			if m <= 0 || uint64(len(data)-p-m) < size {
				return c, fmt.Errorf("field %d cut short at byte %d", field, p)
			}
			body := data[p+m : p+m+int(size)]
			switch field {
			case 2:
				c.Samples++
				c.Frames += sampleFrames(body)
			case 3:
				c.Mappings++
			case 4:
				c.Locations++
			case 5:
				c.Functions++
			case 6:
				c.Strings++
			}
			p += m + int(size)
		default:
			return c, fmt.Errorf("field %d has wire type %d at byte %d", field, wire, pos)
		}
		pos = p
	}
	return c, nil
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
		case 0:
			_, k = binary.Uvarint(msg)
			if k <= 0 {
				return n
			}
			if tag>>3 == 1 {
				n++
			}
			msg = msg[k:]
		case 2:
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
		case 1:
			msg = msg[min(8, len(msg)):]
		case 5:
			msg = msg[min(4, len(msg)):]
		default:
			return n
		}
	}
	return n
}
