package exectrace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
)

// This file cuts a Go 1.26+ trace into its generations, so that each can
// be decoded by a trace reader of its own (parallel.go).
//
// Since Go 1.22 a trace is a header ("go 1.NN trace\x00\x00\x00") then
// batches; each batch names its generation in its header, and a
// generation carries its own string, stack and frequency tables. Since Go
// 1.26 a generation ends with a one-byte end-of-generation marker. A
// generation with the header in front is a valid trace (the flight
// recorder writes exactly that), and the reader decodes it to the same
// events as in the whole trace, but for the statuses that open it: a
// reader that starts there has not seen the generation before, so they
// say "from an unknown state" (stitch.go puts back what the whole-trace
// reader says).
//
// The splitter follows the batch framing only — type byte, four varints
// (generation, thread, time, size), payload — never the events, so it
// costs about a copy of the bytes. It is bounded like the reader: its
// input comes through the genLimiter, and a payload over maxBatchSize is
// not read. It never judges the input: at anything that is not a
// well-formed batch of the current generation or its end marker, it hands
// the generation read so far, followed by the rest of the input, to one
// last reader, which fails on it exactly as the reader of the whole trace
// would, with the same message.

// maxBatchSize is the format's largest batch payload (tracev2.MaxBatchSize):
// the reader refuses a larger one before reading it.
const maxBatchSize = 64 << 10

// splitVersion is the one format the trace is split in: the first with an
// end-of-generation marker. Older ones (1.22–1.25) are read whole; later
// ones are refused by the reader.
const splitVersion = 26

// errSplitTail ends a split: what follows goes to one last reader.
var errSplitTail = errors.New("split: tail")

// splitter cuts the generations out of a trace, after its header.
type splitter struct {
	r   *bufio.Reader
	hdr []byte
	off int64 // bytes consumed from r
	cur []byte
	gen uint64 // generation of the piece being read; 0 before its first batch
}

func newSplitter(hdr []byte, r io.Reader) *splitter {
	return &splitter{r: bufio.NewReaderSize(r, 64<<10), hdr: hdr, off: int64(len(hdr))}
}

// piece is one generation as a trace of its own, or the tail of the input.
type piece struct {
	data []byte
	end  int64 // input offset just past the generation
	// rest, when set, is the input after data: the piece is the tail,
	// to be decoded by one reader that reads on into rest.
	rest io.Reader
}

// reader returns the piece as the input of a trace reader.
func (p *piece) reader() io.Reader {
	if p.rest != nil {
		return io.MultiReader(bytes.NewReader(p.data), p.rest)
	}
	return bytes.NewReader(p.data)
}

// next reads the next generation into buf's storage (the header first).
// It returns io.EOF at the end of the input between generations; a piece
// with rest set is the last one.
func (s *splitter) next(buf []byte) (*piece, error) {
	s.cur = append(buf[:0], s.hdr...)
	s.gen = 0
	for {
		err := s.batch()
		switch {
		case err == nil:
			continue
		case err == errEndOfGeneration:
			return &piece{data: s.cur, end: s.off}, nil
		case err == io.EOF && len(s.cur) == len(s.hdr):
			return nil, io.EOF
		}
		// Anything else — a truncated batch, a framing the splitter does
		// not follow, the limiter's cut, a read error — is for the reader
		// to report, as it would in the whole trace.
		return &piece{data: s.cur, end: s.off, rest: s.r}, nil
	}
}

var errEndOfGeneration = errors.New("end of generation")

// batch copies one batch of the current generation into s.cur; it
// returns errEndOfGeneration after the end marker, errSplitTail (or the
// read error) when the framing stops being one it follows.
func (s *splitter) batch() error {
	typ, err := s.byte()
	if err != nil {
		return err
	}
	switch typ {
	case evEndOfGeneration:
		if s.gen == 0 {
			return errSplitTail // an empty generation: the reader's to judge
		}
		return errEndOfGeneration
	case evEventBatch:
	case evExperimentalBatch:
		if _, err := s.byte(); err != nil {
			return err
		}
	default:
		return errSplitTail
	}
	var gen, size uint64
	for i := range 4 {
		v, err := s.uvarint()
		if err != nil {
			return err
		}
		switch i {
		case 0:
			gen = v
		case 3:
			size = v
		}
	}
	if gen == 0 || (s.gen != 0 && gen != s.gen) || size > maxBatchSize {
		return errSplitTail
	}
	s.gen = gen
	n := len(s.cur)
	s.cur = slices.Grow(s.cur, int(size))[:n+int(size)]
	k, err := io.ReadFull(s.r, s.cur[n:])
	s.off += int64(k)
	if err != nil {
		// Hand over what was read: the reader must see the same bytes.
		s.cur = s.cur[:n+k]
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		if err == io.EOF {
			return errSplitTail
		}
		return err
	}
	return nil
}

func (s *splitter) byte() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	s.off++
	s.cur = append(s.cur, c)
	return c, nil
}

// uvarint reads a varint as binary.ReadUvarint does (at most 10 bytes),
// copying its bytes.
func (s *splitter) uvarint() (uint64, error) {
	var x uint64
	var shift uint
	for i := range binary.MaxVarintLen64 {
		c, err := s.byte()
		if err != nil {
			return 0, err
		}
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, errSplitTail
			}
			return x | uint64(c)<<shift, nil
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, errSplitTail
}
