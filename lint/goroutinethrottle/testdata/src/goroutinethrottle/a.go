package goroutinethrottle

import (
	"errors"
	"fmt"
	"log"
	rt "runtime"
	"time"
)

const limit = 8

var maxG = 100

func work(int) {}

// Positives.

func waitLoop(jobs []int) {
	for _, j := range jobs {
		for rt.NumGoroutine() > limit { // want `loop waits on runtime.NumGoroutine, which counts every goroutine in the process; bound concurrency with a semaphore`
			time.Sleep(time.Millisecond)
		}
		go work(j)
	}
}

func spawnIf(j int) {
	if rt.NumGoroutine() < 2*limit { // want `spawning depends on runtime.NumGoroutine`
		go work(j)
	} else {
		work(j)
	}
}

func spawnElse(j int) {
	if rt.NumGoroutine() >= maxG { // want `spawning depends on`
		work(j)
	} else {
		go work(j)
	}
}

func sleepIf() {
	for {
		if rt.NumGoroutine() > limit { // want `waiting depends on`
			time.Sleep(time.Millisecond)
			continue
		}
		go work(0)
	}
}

func throughVariable(jobs []int) {
	for _, j := range jobs {
		n := rt.NumGoroutine() // want `spawning depends on`
		if n < limit {
			go work(j)
		}
	}
}

func switchCase() {
	for {
		switch {
		case rt.NumGoroutine() > limit: // want `a loop waits on`
			continue
		}
		go work(0)
	}
}

func waitToDrain(base int) {
	for {
		if rt.NumGoroutine() <= base { // want `a loop waits on`
			break
		}
		time.Sleep(time.Millisecond)
	}
}

func closure() {
	go func() {
		for i := 0; i < 10 && rt.NumGoroutine() > 1; i++ { // want `loop waits on`
		}
	}()
}

// Negatives.

func logs() {
	log.Printf("goroutines: %d", rt.NumGoroutine())
	fmt.Println(rt.NumGoroutine())
}

var gauge float64

func metrics() {
	gauge = float64(rt.NumGoroutine())
}

func count() int { return rt.NumGoroutine() }

func health() error {
	if rt.NumGoroutine() > 10000 {
		return errors.New("too many goroutines")
	}
	return nil
}

func logWhenHigh() {
	if n := rt.NumGoroutine(); n > 1000 {
		log.Printf("high goroutine count %d", n)
	}
}

func spawnInClosureOnly() {
	if rt.NumGoroutine() > limit {
		f := func() { go work(0) } // defined, not started by this branch
		_ = f
	}
}

type fake struct{}

func (fake) NumGoroutine() int { return 0 }

func userCount(f fake) {
	for f.NumGoroutine() > limit {
		time.Sleep(time.Millisecond)
	}
}

var initial = rt.NumGoroutine()

func alert(int) {}

func monitor(tick <-chan time.Time) {
	for range tick {
		n := rt.NumGoroutine()
		if n < 1000 {
			continue // nothing to report: not a throttle
		}
		alert(n)
	}
}

// Values through variables and fields.

var errBusy = errors.New("busy")

// A tagless switch decides reject / wait / spawn: the spawn is in the
// default, after the cases that compare the count.
func admit(j int) error {
	n := rt.NumGoroutine() // want `waiting depends on runtime.NumGoroutine \(through n\)`
	switch {
	case n > 4*limit:
		return errBusy
	case n > 2*limit:
		time.Sleep(time.Millisecond)
	default:
		go work(j)
	}
	return nil
}

// Reject or spawn: only the default starts the goroutine.
func shed(j int) error {
	switch n := rt.NumGoroutine(); { // want `spawning depends on runtime.NumGoroutine \(through n\)`
	case n > 3*limit:
		return errBusy
	default:
		go work(j)
	}
	return nil
}

func derivedFlag(jobs []int) {
	for _, j := range jobs {
		busy := rt.NumGoroutine() > limit // want `spawning depends on runtime.NumGoroutine \(through busy\)`
		if !busy {
			go work(j)
		}
	}
}

func assignedLater(jobs []int) {
	var n int
	for _, j := range jobs {
		n = rt.NumGoroutine() - 1 // want `waiting depends on runtime.NumGoroutine \(through n\)`
		if n >= limit {
			time.Sleep(time.Millisecond)
			continue
		}
		go work(j)
	}
}

type pool struct {
	active int // refreshed by sample
	max    int
}

func (p *pool) sample() {
	p.active = rt.NumGoroutine() // want `spawning depends on runtime.NumGoroutine \(through p.active\)`
}

func (p *pool) submit(j int) {
	if p.active < p.max {
		go work(j)
		return
	}
	work(j)
}

// Negatives.

// A tagless switch that only reports the count.
func report() string {
	n := rt.NumGoroutine()
	switch {
	case n > 10000:
		return "critical"
	case n > 1000:
		return "high"
	default:
		return "ok"
	}
}

func derivedOnlyLogged() {
	high := rt.NumGoroutine() > 1000
	if high {
		log.Printf("many goroutines")
	}
}

type stats struct{ goroutines int }

func (s *stats) collect() {
	s.goroutines = rt.NumGoroutine()
}

func (s *stats) print() {
	if s.goroutines > 1000 {
		fmt.Println("high", s.goroutines)
	}
}

// A spawn before the switch is not decided by it.
func spawnBefore(j int) string {
	go work(j)
	switch n := rt.NumGoroutine(); {
	case n > 10:
		return "busy"
	}
	return "idle"
}
