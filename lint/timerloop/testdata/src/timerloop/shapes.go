package timerloop

import (
	"errors"
	"math/rand"
	"time"
)

const electionTimeout = 150 * time.Millisecond

// randomTimeout makes a new timer on every call, as raft implementations
// do for election timeouts.
func randomTimeout(d time.Duration) <-chan time.Time {
	return time.After(d + time.Duration(rand.Int63n(int64(d))))
}

func newTimeoutC(d time.Duration) <-chan time.Time {
	return time.NewTimer(d).C
}

// Positives.

func helperInSelect(appends chan int) {
	for {
		select {
		case a := <-appends:
			sum += a
		case <-randomTimeout(electionTimeout): // want `randomTimeout makes a new timer \(time.After at line 14\) every iteration, dropped when another case wins`
			flushes++
		}
	}
}

func newTimerHelper() {
	for {
		select {
		case <-in:
		case <-newTimeoutC(time.Second): // want `newTimeoutC makes a new timer \(time.NewTimer at line 18\) every iteration`
		}
	}
}

func newTimerInline() {
	for {
		select {
		case m := <-in:
			sum += m
		case <-time.NewTimer(time.Second).C: // want `time.NewTimer in a loop makes a new timer every iteration, dropped when another case wins: each one stays on the timer heap until it fires \(1s\) unless .*; make one time.Timer before the loop and Reset it`
			flushes++
		}
	}
}

func newTimerCInVariable() {
	for {
		timeout := time.NewTimer(window).C // want `time.NewTimer in a loop makes a new timer every iteration`
		select {
		case m := <-in:
			sum += m
		case <-timeout:
			flushes++
		}
	}
}

func afterInVariable(items chan int) {
	for it := range items {
		timeout := time.After(window) // want `time.After in a loop makes a new timer every iteration`
		select {
		case in <- it:
		case <-timeout:
			flushes++
		}
	}
}

// An outer loop per message makes the inner range over subscribers hot.
func perMessageFanout(subs []chan int) {
	for m := range in {
		for _, s := range subs {
			select {
			case s <- m:
			case <-time.After(window): // want `time.After in a loop`
			}
		}
	}
}

func afterZeroOnce() {
	<-time.After(0) // want `time.After\(0\) is not a yield`
}

// busyselect reports only for loops; in a range loop the zero sleep in the
// default is this rule's.
func sleepZeroDefaultInRange(items []int) {
	for range items {
		select {
		case <-in:
		default:
			time.Sleep(0) // want `time.Sleep\(0\) returns at once`
		}
	}
}

// A continue before the trailing return lets the select run again.
func continueBeforeReturn(out chan int) {
	for {
		select {
		case v := <-in:
			sum += v
			continue
		case <-time.After(time.Second): // want `time.After in a loop`
		}
		return
	}
}

// Negatives.

var errTimeout = errors.New("timeout")

// Every branch leaves the function, through if/else and switch: at most one
// timer per call.
func awaitReply(replies chan error) error {
	for {
		select {
		case err := <-replies:
			if err != nil {
				return err
			} else {
				return nil
			}
		case <-time.After(time.Second):
			return errTimeout
		}
	}
}

func awaitSwitch(replies chan int) int {
	for {
		select {
		case r := <-replies:
			switch {
			case r > 0:
				return r
			default:
				panic("bad reply")
			}
		case <-time.After(time.Second):
			return -1
		}
	}
}

// The select is followed by return: it runs once per call.
func sendOnce(out chan int, v int) {
	for {
		if v < 0 {
			v = -v
			continue
		}
		select {
		case out <- v:
		case <-time.After(time.Second):
		}
		return
	}
}

// A deliberate zero timer: the blocking select's next round fires at once.
func heartbeat(out chan int) {
	var beat <-chan time.Time
	for {
		select {
		case v := <-in:
			sum += v
			beat = time.After(0)
		case <-beat:
			out <- sum
			beat = nil
		}
	}
}

type hook struct{ notify chan string }

type config struct{ hooks []hook }

// A per-message timeout in a loop over a config's entries runs once per
// reload, not per request.
func reload(cfg config, ev string) {
	for _, h := range cfg.hooks {
		select {
		case h.notify <- ev:
		case <-time.After(time.Second):
		}
	}
}

func retryFive(out chan int) {
	for i := 0; i < 5; i++ {
		select {
		case out <- i:
		case <-randomTimeout(electionTimeout):
		}
	}
}

func helperOnce() int {
	select {
	case v := <-in:
		return v
	case <-randomTimeout(electionTimeout):
		return 0
	}
}

// The variable is assigned once before the loop: an overall deadline.
func deadlineVar() {
	timeout := time.NewTimer(time.Second).C
	for {
		select {
		case <-in:
		case <-timeout:
			return
		}
	}
}

// raft's helper returns nil for a zero duration: still a timer per call.
func maybeTimeout(d time.Duration) <-chan time.Time {
	if d == 0 {
		return nil
	}
	return time.After(d)
}

type raftConfig struct{ CommitTimeout time.Duration }

type node struct {
	trigger chan struct{}
	conf    raftConfig
}

func (n *node) config() raftConfig { return n.conf }

// The duration is a configuration getter's field: the same every
// iteration, unlike a backoff.
func (n *node) replicate() {
	for {
		select {
		case <-n.trigger:
			flushes++
		case <-maybeTimeout(n.config().CommitTimeout): // want `maybeTimeout makes a new timer \(time.After at line \d+\) every iteration`
			sum++
		}
	}
}

func backoff(failures int) time.Duration { return time.Duration(failures) * time.Second }

func (n *node) heartbeatBackoff(failures int) {
	for {
		select {
		case <-n.trigger:
		case <-time.After(backoff(failures)):
		}
	}
}

// Waiting for a known number of confirmations at config reload (as
// nats-server's reloadClusterPoolAndAccounts does): bounded by the count.
func awaitConfirmations(ch chan struct{}, sent int) {
	for received := 0; received < sent; {
		select {
		case <-ch:
			received++
		case <-time.After(2 * time.Second):
			received = sent
		}
	}
}
