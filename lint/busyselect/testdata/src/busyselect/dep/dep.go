// Package dep is imported by busyselect: its functions' facts cross the
// package boundary.
package dep

import "sync"

var (
	n  int
	mu sync.Mutex
	wg sync.WaitGroup
)

// Count never blocks.
func Count() { n++ }

// Wait blocks.
func Wait() { wg.Wait() }

// Call runs f, which may do anything.
func Call(f func()) { f() }

// Locked takes a lock: may block.
func Locked() {
	mu.Lock()
	n++
	mu.Unlock()
}
