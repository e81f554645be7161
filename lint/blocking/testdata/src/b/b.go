// Package b is imported by a: its facts cross the package boundary.
package b

import "sync"

var (
	n  int
	mu sync.Mutex
)

func Inc() { n++ } // want Inc:"never blocks"

func Lock() { mu.Lock() } // want Lock:"blocks"

func Maybe(f func()) { f() }

type Counter struct{ n int }

func (c *Counter) Add(d int) { c.n += d } // want Add:"never blocks"
