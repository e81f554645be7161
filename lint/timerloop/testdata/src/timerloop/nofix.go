package timerloop

import clock "time"

// No runtime import in this file: no fix is offered.
func sleepZeroNoRuntime(done func() bool) {
	for !done() {
		clock.Sleep(0 * clock.Millisecond) // want `time.Sleep\(0\) returns at once`
	}
}
