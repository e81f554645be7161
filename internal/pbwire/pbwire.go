// Package pbwire appends protobuf fields to a byte slice: the one encoder
// of the wire format (https://protobuf.dev/programming-guides/encoding/)
// for the few messages schedoctor writes by hand, the Perfetto export's
// (exectrace/perfetto) and the continuous profilers' query requests
// (profile/remote), rather than through generated code and its runtime.
//
// Every field is written as given: whether a zero value is left out
// (proto3's implicit presence) or written (proto2's optional fields, which
// Perfetto's protos use) is the caller's.
package pbwire

import "encoding/binary"

// Wire types.
const (
	Varint  = 0
	Fixed64 = 1
	Len     = 2 // length-delimited: bytes, string, embedded message, packed
	Fixed32 = 5
)

// MaxVarint is the longest varint, for bounds on an encoded size.
const MaxVarint = binary.MaxVarintLen64

// AppendTag appends a field's key: its number and wire type.
func AppendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// AppendUint appends a varint field (uint32, uint64, enum, bool).
func AppendUint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(AppendTag(b, field, Varint), v)
}

// AppendInt appends an int32 or int64 field: a negative value is the
// ten-byte varint of its two's complement, as protobuf encodes it (not
// zigzag: that is sint64).
func AppendInt(b []byte, field int, v int64) []byte {
	return AppendUint(b, field, uint64(v))
}

// AppendFixed64 appends a fixed64 field.
func AppendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(AppendTag(b, field, Fixed64), v)
}

// AppendString appends a string field.
func AppendString(b []byte, field int, s string) []byte {
	b = binary.AppendUvarint(AppendTag(b, field, Len), uint64(len(s)))
	return append(b, s...)
}

// AppendBytes appends a bytes field, or an embedded message already
// encoded (msg).
func AppendBytes(b []byte, field int, msg []byte) []byte {
	b = binary.AppendUvarint(AppendTag(b, field, Len), uint64(len(msg)))
	return append(b, msg...)
}
