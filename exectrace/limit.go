package exectrace

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxGeneration is the largest generation Analyze reads. The
// trace reader (golang.org/x/exp/trace) holds a whole generation in memory
// before it hands out its first event — the runtime writes a generation's
// string and stack tables at its end, so no event can be decoded earlier —
// and it costs about 2.5 times the generation's bytes (a 2 GB generation
// that never ended took 4.9 GB; cut at this limit, 322 MB). The runtime
// starts a generation about every second; the busiest lab program
// (pingpong, 2 CPUs) writes about 55 MB per generation, so this is more
// than twice that. A trace of a busier machine may need
// ReadOptions.MaxGeneration raised.
const DefaultMaxGeneration = 128 << 20

// ErrGenerationTooLarge is wrapped by the error, or named in the
// Truncation, of a trace with a generation over ReadOptions.MaxGeneration.
var ErrGenerationTooLarge = errors.New("generation larger than the limit")

// batchCost is the least a batch counts against the limit: the reader
// keeps a record per batch (about 100 bytes with its slot in the per-M
// lists), so a stream of empty batches must not slip under a limit of bytes.
const batchCost = 128

// Batch framing of the trace format (internal/trace/tracev2): the event
// types that start a batch or end a generation.
const (
	evEventBatch        = 1
	evExperimentalBatch = 49
	evEndOfGeneration   = 52 // Go 1.26+
	headerLen           = 16 // "go 1.NN trace\x00\x00\x00"
)

// genLimiter passes the trace's bytes through while following its batch
// framing, counting the bytes of the current generation; when they exceed
// max it cuts the stream there, so the reader never buffers more than max
// of one generation. Traces before Go 1.22 (one block, parsed whole by the
// reader) count as one generation.
type genLimiter struct {
	r   io.Reader
	max int64

	hdr     []byte // the header, while it is read
	version int    // minor Go version of the format; 0 unknown (passed through uncounted)
	v1      bool   // before Go 1.22: no generations

	// Batch parser state.
	state   limState
	field   int    // which header varint of the batch is being read
	varint  uint64 // the varint being read
	shift   uint
	payload uint64 // payload bytes left of the current batch

	gen      uint64 // generation number of the current batch (0 between generations)
	genBytes int64  // bytes of the current generation so far
	pending  int64  // bytes of a batch header read before its generation is known
	gens     int    // generations seen (1-based number of the current one)

	tripped error // set once the limit cut the stream
}

type limState uint8

const (
	stHeader limState = iota
	stBatchType
	stExperiment
	stVarints
	stPayload
	stOpaque // framing lost: pass the rest through uncounted; the reader will fail on it
)

func newGenLimiter(r io.Reader, max int64) *genLimiter {
	return &genLimiter{r: r, max: max}
}

func (g *genLimiter) Read(p []byte) (int, error) {
	if g.tripped != nil {
		return 0, g.tripped
	}
	n, err := g.r.Read(p)
	for i := 0; i < n; {
		k, over := g.consume(p[i:n])
		i += k
		if over {
			return i, g.tripped
		}
	}
	return n, err
}

// consume follows the framing over b; it returns how many bytes it took
// and whether the limit was passed (then the bytes taken end at the cut).
func (g *genLimiter) consume(b []byte) (int, bool) {
	switch g.state {
	case stHeader:
		k := min(len(b), headerLen-len(g.hdr))
		g.hdr = append(g.hdr, b[:k]...)
		if len(g.hdr) == headerLen {
			g.version = parseVersion(g.hdr)
			switch {
			case g.version == 0:
				g.state = stOpaque
			case g.version < 22:
				g.v1, g.gens = true, 1
				g.state = stPayload
				g.payload = 1<<63 - 1
			default:
				g.state = stBatchType
			}
		}
		return k, false
	case stOpaque:
		return len(b), false
	case stPayload:
		k := int(min(uint64(len(b)), g.payload))
		if over := g.count(int64(k)); over >= 0 {
			return k - int(over), true
		}
		g.payload -= uint64(k)
		if g.payload == 0 {
			g.state = stBatchType
		}
		return k, false
	}
	// One byte at a time through the batch header. Until the generation
	// number is read, the header's bytes are pending: they belong to the
	// generation that number names.
	c := b[0]
	switch g.state {
	case stBatchType:
		switch {
		case c == evEndOfGeneration && g.version >= 26:
			g.gen, g.genBytes = 0, 0 // the next batch opens a generation
			return 1, false
		case c == evEventBatch:
			g.state, g.field = stVarints, 0
		case c == evExperimentalBatch:
			g.state = stExperiment
		default:
			g.state = stOpaque
			return 1, false
		}
		g.pending = 1 + batchCost
		return 1, false
	case stExperiment:
		g.state, g.field = stVarints, 0
		g.pending++
		return 1, false
	case stVarints:
		g.varint |= uint64(c&0x7f) << g.shift
		g.shift += 7
		if g.shift > 70 {
			g.state = stOpaque
			return 1, false
		}
		if c >= 0x80 {
			if g.field == 0 {
				g.pending++
				return 1, false
			}
			break
		}
		v := g.varint
		g.varint, g.shift = 0, 0
		switch g.field {
		case 0: // generation
			if v != g.gen {
				// A new generation: after an end-of-generation (1.26), or
				// on a change of number (before 1.26, where the first
				// batch of the next generation ends the current one).
				g.gen, g.genBytes = v, 0
				g.gens++
			}
			g.field++
			k := g.pending
			g.pending = 0
			if over := g.count(k + 1); over >= 0 {
				return 0, true
			}
			return 1, false
		case 3: // payload size
			g.payload = v
			g.state = stPayload
			if v == 0 {
				g.state = stBatchType
			}
		}
		g.field++
	}
	if over := g.count(1); over >= 0 {
		return 0, true
	}
	return 1, false
}

// count adds k bytes to the generation; past the limit it trips and
// returns how many of the k are beyond it, else -1.
func (g *genLimiter) count(k int64) int64 {
	g.genBytes += k
	if g.genBytes <= g.max {
		return -1
	}
	g.tripped = &GenerationError{Generation: max(g.gens, 1), Max: g.max, v1: g.v1}
	return g.genBytes - g.max
}

// cut returns the limiter's cut, once it tripped; nil before.
func (g *genLimiter) cut() error {
	if g.tripped == nil {
		return nil // not a nil *GenerationError in an error
	}
	return g.tripped
}

// GenerationError is the cut of a generation over the limit.
type GenerationError struct {
	Generation int   // 1-based
	Max        int64 // the limit in bytes
	v1         bool
}

func (e *GenerationError) Error() string {
	if e.v1 {
		return fmt.Sprintf("the trace (an old format read whole, before Go 1.22) is larger than the generation limit of %s", mb(e.Max))
	}
	return fmt.Sprintf("generation %d is larger than the limit of %s (the reader must hold a whole generation)", e.Generation, mb(e.Max))
}

func (e *GenerationError) Unwrap() error { return ErrGenerationTooLarge }

func mb(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MB"
}

// parseVersion reads the minor version from "go 1.NN trace\x00\x00\x00";
// 0 when the header is not one.
func parseVersion(h []byte) int {
	s, ok := strings.CutPrefix(string(h), "go 1.")
	if !ok {
		return 0
	}
	num, rest, ok := strings.Cut(s, " trace")
	if !ok || strings.Trim(rest, "\x00") != "" {
		return 0
	}
	v, err := strconv.Atoi(num)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}
