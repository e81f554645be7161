package timershadow

import (
	"runtime"
	"time"
)

// The only use of time in this file: replacing it would leave the import
// unused.
func lastUse(done func() bool) {
	for !done() {
		time.Sleep(0) // want `time.Sleep\(0\) returns at once`
	}
	_ = runtime.NumCPU()
}
