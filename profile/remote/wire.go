package remote

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/schedoctor/schedoctor/internal/pbwire"
)

// The few protobuf messages of the query APIs are written (with
// internal/pbwire) and read (here, as a stream) by hand, the wire format
// being four rules, rather than through the servers' API modules, which
// would bring their generated code and its dependencies into schedoctor
// for three requests. The requests are proto3: a zero value is left out.

// appendString appends a string field; proto3 leaves the empty string out.
func appendString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	return pbwire.AppendString(b, field, s)
}

// appendInt appends an int64 or enum field as a varint (two's complement
// for a negative value, as protobuf does); proto3 leaves zero out.
func appendInt(b []byte, field int, v int64) []byte {
	if v == 0 {
		return b
	}
	return pbwire.AppendInt(b, field, v)
}

// errBadProto is wrapped by the errors of an answer that is no protobuf
// message of the expected shape.
var errBadProto = errors.New("not a protobuf message")

// protoReader walks a protobuf message as its bytes arrive, without
// holding it: a merged profile of 60 MB is handed to the profile reader
// as it streams, not copied first.
type protoReader struct {
	r   *bufio.Reader
	pos int64 // bytes consumed
	max int64 // the most the whole message may hold: no field is longer
}

func newProtoReader(r io.Reader, max int64) *protoReader {
	return &protoReader{r: bufio.NewReaderSize(r, 32<<10), max: max}
}

// rest is what the message may still hold.
func (p *protoReader) rest() int64 { return p.max - p.pos }

func (p *protoReader) ReadByte() (byte, error) {
	c, err := p.r.ReadByte()
	if err == nil {
		p.pos++
	}
	return c, err
}

// varint reads a varint; an end of input inside it is io.ErrUnexpectedEOF.
func (p *protoReader) varint() (uint64, error) {
	start := p.pos
	v, err := binary.ReadUvarint(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && p.pos > start {
		return 0, fmt.Errorf("%w: bad varint at byte %d", errBadProto, start)
	}
	return v, err
}

// tag reads the next field's key; io.EOF when the input ends cleanly
// before it.
func (p *protoReader) tag() (field int, wire int, err error) {
	start := p.pos
	if _, err := p.r.Peek(1); err != nil {
		return 0, 0, err // io.EOF at the end of the message
	}
	k, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	field, wire = int(k>>3), int(k&7)
	if field == 0 || k>>3 > 1<<29 || (wire != pbwire.Varint && wire != pbwire.Fixed64 && wire != pbwire.Len && wire != pbwire.Fixed32) {
		return 0, 0, fmt.Errorf("%w: bad field key %#x at byte %d", errBadProto, k, start)
	}
	return field, wire, nil
}

// length reads a LEN field's length, no more than left bytes.
func (p *protoReader) length(left int64) (int64, error) {
	at := p.pos
	n, err := p.varint()
	if err != nil {
		return 0, err
	}
	if n > uint64(left) {
		return 0, fmt.Errorf("%w: a field of %d bytes at byte %d runs past the %d bytes left", errBadProto, n, at, left)
	}
	return int64(n), nil
}

// skip passes over a field's value of the given wire type.
func (p *protoReader) skip(wire int, left int64) error {
	var n int64
	switch wire {
	case pbwire.Varint:
		_, err := p.varint()
		return err
	case pbwire.Fixed64:
		n = 8
	case pbwire.Fixed32:
		n = 4
	case pbwire.Len:
		var err error
		if n, err = p.length(left); err != nil {
			return err
		}
	}
	m, err := p.r.Discard(int(n))
	p.pos += int64(m)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// bytesField reads a LEN field's value whole: for the small messages
// (label values), never a profile.
func (p *protoReader) bytesField(left int64) ([]byte, error) {
	n, err := p.length(left)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	m, err := io.ReadFull(p.r, b)
	p.pos += int64(m)
	return b, err
}

// readStrings reads the repeated string field of a message of at most
// size bytes (LabelValues' names) to its end; other fields are skipped.
func readStrings(r io.Reader, field int, size int64) ([]string, error) {
	p := newProtoReader(r, size)
	var out []string
	for {
		f, w, err := p.tag()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if f != field || w != pbwire.Len {
			if err := p.skip(w, p.rest()); err != nil {
				return nil, err
			}
			continue
		}
		b, err := p.bytesField(p.rest())
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
}
