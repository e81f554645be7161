package exectrace

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
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
	off int64  // bytes consumed from r
	gen uint64 // generation of the piece being read; 0 before its first batch

	// The piece being filled and its current block.
	p    *piece
	ctx  context.Context
	cur  []byte
	pool *blockPool
}

func newSplitter(hdr []byte, r io.Reader) *splitter {
	return &splitter{r: bufio.NewReaderSize(r, 64<<10), hdr: hdr, off: int64(len(hdr)), pool: newBlockPool()}
}

// blockSize is the size of the blocks a generation streams in: the
// splitter never holds a generation, only the blocks on their way to its
// reader (which copies each batch out).
const blockSize = 256 << 10

// piece is one generation as a trace of its own, or the tail of the
// input, streamed in blocks to its reader while the splitter reads it.
type piece struct {
	blocks chan []byte // the header, then the generation's bytes; closed at its end
	// Set before blocks is closed:
	end int64 // input offset just past the generation
	// rest, when set, is the input after the piece: the piece is the
	// tail, to be decoded by one reader that reads on into rest.
	rest io.Reader
	pool *blockPool
}

// start opens the next piece, or returns io.EOF at the end of the input
// between generations. fill streams its bytes.
func (s *splitter) start() (*piece, error) {
	if _, err := s.r.Peek(1); err == io.EOF {
		return nil, io.EOF
	}
	return &piece{blocks: make(chan []byte, 4), pool: s.pool}, nil
}

// fill reads the piece's generation (after the header) and streams it to
// its reader, until the end-of-generation marker, or the end of what the
// splitter follows (then the piece is the tail). Cancelled, it stops.
func (s *splitter) fill(ctx context.Context, p *piece) {
	s.p, s.ctx, s.gen = p, ctx, 0
	s.cur = append(s.pool.get(), s.hdr...)
	defer close(p.blocks)
	for {
		err := s.batch()
		switch {
		case err == nil:
			continue
		case err == errEndOfGeneration:
			p.end = s.off
			s.flush()
			return
		case err == errCancelled:
			return
		}
		// Anything else — a truncated batch, a framing the splitter does
		// not follow, the limiter's cut, a read error — is for the reader
		// to report, as it would in the whole trace.
		p.end, p.rest = s.off, s.r
		s.flush()
		return
	}
}

var errCancelled = errors.New("split: cancelled")

// flush sends the current block to the piece's reader.
func (s *splitter) flush() bool {
	if len(s.cur) == 0 {
		return true
	}
	select {
	case s.p.blocks <- s.cur:
		s.cur = s.pool.get()
		return true
	case <-s.ctx.Done():
		return false
	}
}

// room makes room in the current block, flushing it when full.
func (s *splitter) room() error {
	if len(s.cur) < cap(s.cur) {
		return nil
	}
	if !s.flush() {
		return errCancelled
	}
	return nil
}

// pieceReader reads a piece's blocks as they come, then its rest.
type pieceReader struct {
	p    *piece
	cur  []byte
	blk  []byte // the block cur is in, recycled once read
	done bool
	// inRest: the blocks were read, and the reader reads on into the
	// input after them (the piece is the tail).
	inRest bool
}

func (p *piece) reader() io.Reader { return &pieceReader{p: p} }

func (r *pieceReader) Read(b []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.blk != nil {
			r.p.pool.put(r.blk)
			r.blk = nil
		}
		if r.done {
			if r.p.rest != nil {
				r.inRest = true
				return r.p.rest.Read(b)
			}
			return 0, io.EOF
		}
		blk, ok := <-r.p.blocks
		if !ok {
			r.done = true
			continue
		}
		r.cur, r.blk = blk, blk
	}
	n := copy(b, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// drain discards what is left of a piece, so that its splitter moves on
// (a reader that failed stops reading).
func (p *piece) drain() {
	for blk := range p.blocks {
		p.pool.put(blk)
	}
}

// blockPool recycles one read's blocks: a generation's reader copies each
// batch out of them, so a few are in use at a time.
type blockPool struct{ free chan []byte }

func newBlockPool() *blockPool { return &blockPool{free: make(chan []byte, 8)} }

func (p *blockPool) get() []byte {
	select {
	case b := <-p.free:
		return b[:0]
	default:
		return make([]byte, 0, blockSize)
	}
}

func (p *blockPool) put(b []byte) {
	select {
	case p.free <- b:
	default:
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
	for left := int(size); left > 0; {
		if err := s.room(); err != nil {
			return err
		}
		n := len(s.cur)
		k := min(left, cap(s.cur)-n)
		k, err := io.ReadFull(s.r, s.cur[n:n+k])
		s.cur = s.cur[:n+k]
		s.off += int64(k)
		left -= k
		if err != nil {
			// What was read is handed over: the reader must see the
			// same bytes, and fail on them as on the whole trace.
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				return errSplitTail
			}
			return err
		}
	}
	return nil
}

func (s *splitter) byte() (byte, error) {
	if err := s.room(); err != nil {
		return 0, err
	}
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
