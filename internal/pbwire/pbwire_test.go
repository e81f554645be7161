package pbwire

import (
	"bytes"
	"testing"
)

// TestEncoding checks the encoder against the examples of the protobuf
// encoding guide (https://protobuf.dev/programming-guides/encoding/).
func TestEncoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"varint 150", AppendUint(nil, 1, 150), []byte{0x08, 0x96, 0x01}},
		{"string testing", AppendString(nil, 2, "testing"), []byte{0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'}},
		{"int64 -2 (ten bytes, not zigzag)", AppendInt(nil, 1, -2), []byte{0x08, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"fixed64 1", AppendFixed64(nil, 47, 1), []byte{0xf9, 0x02, 1, 0, 0, 0, 0, 0, 0, 0}},
		{"message", AppendBytes(nil, 3, AppendUint(nil, 1, 150)), []byte{0x1a, 0x03, 0x08, 0x96, 0x01}},
		{"empty message", AppendBytes(nil, 3, nil), []byte{0x1a, 0x00}},
		{"zero written", AppendUint(nil, 1, 0), []byte{0x08, 0x00}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, tc.got, tc.want)
		}
	}
}
