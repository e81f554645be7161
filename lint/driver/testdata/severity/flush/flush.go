// Package flush has one SD104 finding whose severity the module's go line
// lowers (a dropped timer the runtime collects from go 1.23) and one it
// does not (a zero sleep spins whatever the go line).
package flush

import "time"

var sum int

// Flush drops a timer whenever a message comes first: info under go 1.24.
func Flush(in <-chan int, flush func()) {
	for {
		select {
		case m, ok := <-in:
			if !ok {
				return
			}
			sum += m
		case <-time.After(50 * time.Millisecond):
			flush()
		}
	}
}

// Spin sleeps zero as a yield: a warning under any go line.
func Spin(ready func() bool) {
	for !ready() {
		time.Sleep(0)
	}
}
