// Package empty holds empty loops: the endless ones are reported with the
// fix select {}, the ones with a condition as spins on it.
package empty

var stop bool

func forever() {
	for {} // want `empty loop spins a core forever; use select \{\} to block forever`
}

func foreverTrue() {
	for true {} // want `empty loop spins a core forever`
}

const running = true

func foreverConst() {
	for running {} // want `empty loop spins a core forever`
}

func withComment() {
	for { // want `empty loop spins a core forever`
		// waiting for the signal handler to exit the process
	}
}

func onFlag() {
	for !stop { // want `loop spins while !stop`
	}
}

// Negatives.

func blocksForever() {
	select {}
}

func falseNeverRuns() {
	for false {
	}
}

func localCond(n int) {
	for i := n; i > 0; i-- {
	}
}
