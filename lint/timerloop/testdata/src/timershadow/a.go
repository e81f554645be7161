// Package timershadow holds time.Sleep(0) calls for which the fix would
// not compile, so none is offered.
package timershadow

import (
	"runtime"
	"time"
)

func shadowed(done func() bool) {
	runtime := struct{ n int }{}
	for !done() {
		time.Sleep(0) // want `time.Sleep\(0\) returns at once`
		runtime.n++
	}
}

func onlyTimeUse(done func() bool) {
	for !done() {
		runtime.Gosched()
	}
}
