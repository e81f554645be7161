// Package flags is a dependency whose helpers' facts (never blocks, polls)
// reach the package that spins on them.
package flags

import "sync/atomic"

type Gate struct{ open atomic.Bool }

// IsOpen never blocks and polls an atomic.
func (g *Gate) IsOpen() bool { return g.open.Load() }
