// Package b is imported by a: its facts cross the package boundary.
package b

import "sync"

var (
	n  int
	mu sync.Mutex
)

func Inc() { n++ } // want Inc:"never blocks"

func Lock() { mu.Lock() } // want Lock:"^blocks$"

var items []int

func Len() int { // want Len:"^blocks, locks$"
	mu.Lock()
	defer mu.Unlock()
	return len(items)
}

func Maybe(f func()) { f() }

type Counter struct{ n int }

func (c *Counter) Add(d int) { c.n += d } // want Add:"never blocks"
