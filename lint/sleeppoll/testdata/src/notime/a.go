// Package notime has no "time" import: the analyzer leaves at once, and a
// function called Sleep is not time.Sleep anyway.
package notime

type Duration int64

const Microsecond Duration = 1000

func Sleep(Duration) {}

func poll(ready func() bool) {
	for !ready() {
		Sleep(5 * Microsecond)
	}
}
