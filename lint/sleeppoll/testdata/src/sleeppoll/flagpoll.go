package sleeppoll

import (
	"sync/atomic"
	"time"
)

var (
	flagReady atomic.Bool
	flagPolls atomic.Int64
)

// A loop that never ends and sleeps every round, but tests a flag another
// goroutine sets between sleeps: it waits for the flag, 10µs at a time
// (the lab service's poll). Not pacing.
func flagPoll() {
	for {
		if flagReady.Load() {
			flagReady.Store(false)
		}
		flagPolls.Add(1)
		time.Sleep(10 * time.Microsecond) // want `loop polls with a 10µs sleep`
	}
}

// Pacing: the same loop doing its work every round, no flag tested.
func pacedWork() {
	for {
		flagPolls.Add(1)
		time.Sleep(10 * time.Microsecond)
	}
}
