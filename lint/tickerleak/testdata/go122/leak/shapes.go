package leak

import (
	"errors"
	"time"
)

// Positives.

// A range over a jobs channel ends when jobs is closed, and then the
// ticker leaks (staticcheck SA1015).
func rateLimited(jobs chan int) {
	tick := time.Tick(100 * time.Millisecond) // want `time.Tick's ticker cannot be stopped`
	for j := range jobs {
		<-tick
		checks += j
	}
}

func tickerOverJobs(jobs chan int) {
	t := time.NewTicker(time.Second) // want `ticker is never stopped`
	for j := range jobs {
		<-t.C
		checks += j
	}
}

type conn struct {
	keepalive *time.Ticker
	done      chan struct{}
}

func newConn() *conn {
	return &conn{keepalive: time.NewTicker(30 * time.Second), done: make(chan struct{})} // want `ticker kept in field conn.keepalive is never stopped, not even by conn.Close, and under the module's go 1.22 line never collected; stop it in Close`
}

func (c *conn) pings() {
	for {
		select {
		case <-c.done:
			return
		case <-c.keepalive.C:
			check()
		}
	}
}

func (c *conn) Close() error {
	close(c.done)
	return nil
}

type session struct{ flush *time.Ticker }

func (s *session) start() {
	s.flush = time.NewTicker(time.Second) // want `ticker kept in field session.flush is never stopped, not even by session.stop`
}

func (s *session) stop() {}

var errTimeout = errors.New("timeout")

// The success path returns without Stop: the 30s timer stays on the heap.
func call(resp chan int) (int, error) {
	t := time.NewTimer(30 * time.Second) // want `timer is not stopped when the function returns at line 68 before it fires; under the module's go 1.22 line it stays on the timer heap for 30s, until it fires; defer its Stop`
	select {
	case r := <-resp:
		return r, nil
	case <-t.C:
		return 0, errTimeout
	}
}

func fallThrough(resp chan int) error {
	t := time.NewTimer(time.Minute) // want `timer is not stopped when the function returns at line 82`
	select {
	case r := <-resp:
		checks += r
	case <-t.C:
		return errTimeout
	}
	return nil
}

// A watchdog: Reset on each kick, never stopped when it ends.
func watchdog(kick, done chan struct{}, d time.Duration) {
	t := time.NewTimer(d) // want `timer is not stopped when the function returns at line 93`
	for {
		select {
		case <-kick:
			t.Reset(d)
		case <-done:
			return
		case <-t.C:
			check()
		}
	}
}

// Negatives.

type client struct {
	keepalive *time.Ticker
}

func newClient() *client {
	return &client{keepalive: time.NewTicker(time.Second)}
}

func (c *client) Close() error {
	c.keepalive.Stop()
	return nil
}

// No Close, Stop or Shutdown: the object may live as long as the program.
type daemon struct{ t *time.Ticker }

func newDaemon() *daemon { return &daemon{t: time.NewTicker(time.Second)} }

type handed struct{ t *time.Ticker }

func (h *handed) Close() {}

func (h *handed) ticker() *time.Ticker { return h.t } // the caller may stop it

func newHanded() *handed { return &handed{t: time.NewTicker(time.Second)} }

func callStopped(resp chan int) (int, error) {
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case r := <-resp:
		return r, nil
	case <-t.C:
		return 0, errTimeout
	}
}

func stopInCase(resp chan int) (int, error) {
	t := time.NewTimer(30 * time.Second)
	select {
	case r := <-resp:
		t.Stop()
		return r, nil
	case <-t.C:
		return 0, errTimeout
	}
}

func stopAfterSelect(resp chan int) error {
	t := time.NewTimer(time.Minute)
	select {
	case r := <-resp:
		checks += r
	case <-t.C:
		return errTimeout
	}
	if !t.Stop() {
		<-t.C
	}
	return nil
}

// A short timer leaves the heap within a second whatever happens.
func shortTimer(resp chan int) int {
	t := time.NewTimer(10 * time.Millisecond)
	select {
	case r := <-resp:
		return r
	case <-t.C:
		return 0
	}
}

func watchdogStopped(kick, done chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	for {
		select {
		case <-kick:
			t.Reset(d)
		case <-done:
			t.Stop()
			return
		case <-t.C:
			check()
		}
	}
}

func timerReturned(d time.Duration) *time.Timer {
	t := time.NewTimer(d)
	return t
}

// A range over a ticker's own channel never ends: the ticker lives as
// long as the program, as intended.
func forEverTicker() {
	tick := time.Tick(time.Second)
	for range tick {
		check()
	}
}

// The return comes before the ticker exists; the goroutine then ticks for
// the life of the program.
func throttle(enabled bool, interval time.Duration) {
	go func() {
		if !enabled {
			return
		}
		for range time.Tick(interval) {
			check()
		}
	}()
}

var lastTimer *time.Timer

// The timer is handed to a variable another function may stop.
func timerCopied(resp chan int) int {
	t := time.NewTimer(time.Minute)
	lastTimer = t
	select {
	case r := <-resp:
		return r
	case <-t.C:
		return 0
	}
}

// One case stops the timer; another returns without (nats-server's
// batch wait): the Stop in a sibling case does not cover it.
func batchWait(next, quit chan struct{}) bool {
	mw := time.NewTimer(5 * time.Second) // want `timer is not stopped when the function returns at line \d+ before it fires`
	for done := false; !done; {
		select {
		case <-next:
			mw.Stop()
			done = true
		case <-mw.C:
			done = true
		case <-quit:
			return false
		}
	}
	return true
}
