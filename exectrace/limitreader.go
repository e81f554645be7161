package exectrace

import (
	"fmt"
	"io"
)

// GenerationLimiter passes a trace's bytes through while following its
// batch framing, and cuts the stream at the first generation larger than
// its limit, as Read does: for a reader of the same trace outside this
// package (the Perfetto export) that must hold no more of it than Read.
type GenerationLimiter struct{ g *genLimiter }

// NewGenerationLimiter limits r to generations of at most maxGen bytes
// (0: DefaultMaxGeneration; at least MinMaxGeneration).
func NewGenerationLimiter(r io.Reader, maxGen int64) (*GenerationLimiter, error) {
	if maxGen == 0 {
		maxGen = DefaultMaxGeneration
	}
	if maxGen < MinMaxGeneration {
		return nil, fmt.Errorf("the generation limit of %d bytes is below the smallest allowed, %d (one batch)", maxGen, MinMaxGeneration)
	}
	return &GenerationLimiter{newGenLimiter(r, maxGen)}, nil
}

func (l *GenerationLimiter) Read(p []byte) (int, error) { return l.g.Read(p) }

// Cut is the error that cut the stream (a *GenerationError, wrapping
// ErrGenerationTooLarge), nil while it has not. The trace reader reports
// the cut after the sync event of the generation it could not read, or
// installs the cut generation as if whole (before Go 1.26): a reader stops
// at the first sync event after Cut turns non-nil, as Read does.
func (l *GenerationLimiter) Cut() error {
	if l.g.tripped == nil {
		return nil
	}
	return l.g.tripped
}
