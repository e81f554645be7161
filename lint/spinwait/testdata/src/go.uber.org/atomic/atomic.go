// Package atomic stands in for go.uber.org/atomic: types that wrap
// sync/atomic behind Load, Store, CAS and Inc methods.
package atomic

import "sync/atomic"

type Bool struct{ v uint32 }

func (b *Bool) Load() bool   { return atomic.LoadUint32(&b.v) == 1 }
func (b *Bool) Store(v bool) { atomic.StoreUint32(&b.v, boolToInt(v)) }

type Int64 struct{ v int64 }

func (i *Int64) Load() int64             { return atomic.LoadInt64(&i.v) }
func (i *Int64) Inc() int64              { return atomic.AddInt64(&i.v, 1) }
func (i *Int64) CAS(old, new int64) bool { return atomic.CompareAndSwapInt64(&i.v, old, new) }
func (i *Int64) Snapshot() (int64, bool) { return atomic.LoadInt64(&i.v), true }

func boolToInt(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
