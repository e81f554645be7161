// Package timers holds the same loops under two go lines: the severity of
// a timer dropped per iteration follows whether the runtime collects it.
package timers

import "time"

var (
	in    = make(chan int)
	done  = make(chan struct{})
	total int
)

// randomTimeout is a timer helper (hashicorp/raft's shape).
func randomTimeout(d time.Duration) <-chan time.Time {
	return time.After(d)
}

// Flush drops a time.After per message.
func Flush() {
	for {
		select {
		case v := <-in:
			total += v
		case <-time.After(2 * time.Minute): // want `time.After in a loop makes a new timer every iteration, dropped when another case wins: 3 allocations \(248 B\) per iteration, collected under the module's go 1.24 line; make one time.Timer before the loop and Reset it`
			total = 0
		case <-done:
			return
		}
	}
}

// Snapshot drops a helper's timer whenever a request comes first.
func Snapshot(req <-chan int) {
	for {
		select {
		case <-randomTimeout(time.Second): // want `randomTimeout makes a new timer \(time.After at line 15\) every iteration, dropped when another case wins: 3 allocations \(248 B\) per iteration, collected under the module's go 1.24 line`
			total++
		case v := <-req:
			total += v
		case <-done:
			return
		}
	}
}

// Pull keeps a new timer's channel in a variable before a blocking select.
func Pull() {
	for {
		t := time.NewTimer(time.Second) // want `time.NewTimer in a loop makes a new timer every iteration, dropped when another case wins: 3 allocations \(248 B\) per iteration, collected under the module's go 1.24 line`
		select {
		case v := <-in:
			total += v
		case <-t.C:
		case <-done:
			return
		}
	}
}

// Ticks starts a ticker per round.
func Ticks() {
	for {
		select {
		case <-time.Tick(time.Second): // want `time.Tick in a loop starts a new ticker every iteration, which cannot be stopped: 3 allocations \(248 B\) per iteration, collected under the module's go 1.24 line`
			total++
		case <-done:
			return
		}
	}
}

// Yield burns a core whatever the go line: a zero sleep does not park.
func Yield() {
	for total < 10 {
		time.Sleep(0) // want `time.Sleep\(0\) returns at once and does not yield`
	}
}

// Reused makes one timer and resets it: silent under both go lines.
func Reused() {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		t.Reset(time.Second)
		select {
		case v := <-in:
			total += v
		case <-t.C:
		case <-done:
			return
		}
	}
}
