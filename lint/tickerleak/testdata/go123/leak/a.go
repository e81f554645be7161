package leak

import (
	"context"
	t2 "time"
)

var checks int

func check() { checks++ }

// Positives.

func poll(ctx context.Context) {
	t := t2.NewTicker(t2.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			check()
		}
	}
}

func resetOnly(ctx context.Context) {
	var t = t2.NewTicker(t2.Second)
	for i := 0; i < 3; i++ {
		<-t.C
		t.Reset(2 * t2.Second)
	}
}

func assigned() {
	var t *t2.Ticker
	t = t2.NewTicker(t2.Millisecond)
	<-t.C
}

func onlyC() <-chan t2.Time {
	return t2.NewTicker(t2.Second).C
}

func inClosure(ctx context.Context) {
	go func() {
		t := t2.NewTicker(t2.Second)
		for range 3 {
			<-t.C
		}
	}()
}

type server struct{}

func (s *server) heartbeat(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-t2.Tick(t2.Second):
		}
	}
}

func tickThenReturn(ctx context.Context) {
	tick := t2.Tick(t2.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// Negatives.

func deferStop(ctx context.Context) {
	t := t2.NewTicker(t2.Second)
	defer t.Stop()
	<-t.C
}

func stopLater() {
	t := t2.NewTicker(t2.Second)
	<-t.C
	t.Stop()
}

func stopInClosure() func() {
	t := t2.NewTicker(t2.Second)
	return func() { t.Stop() }
}

func returned() *t2.Ticker {
	t := t2.NewTicker(t2.Second)
	return t
}

func returnedDirectly() *t2.Ticker {
	return t2.NewTicker(t2.Second)
}

type poller struct{ t *t2.Ticker }

func (p *poller) start() {
	p.t = t2.NewTicker(t2.Second)
}

func storedViaVar(p *poller) {
	t := t2.NewTicker(t2.Second)
	p.t = t
}

func passed(stop func(*t2.Ticker)) {
	t := t2.NewTicker(t2.Second)
	stop(t)
}

var global = t2.NewTicker(t2.Minute)

var everySecond = t2.Tick(t2.Second)

func timer() {
	t := t2.NewTimer(t2.Second) // a timer leaves the heap when it fires
	<-t.C
}

func forever() {
	for range t2.Tick(t2.Second) {
		check()
	}
}

func foreverSelect(in chan int) {
	tick := t2.Tick(t2.Second)
	for {
		select {
		case <-in:
		case <-tick:
			check()
		}
	}
}

func init() {
	go func() {
		for range t2.Tick(t2.Minute) {
			check()
		}
	}()
}

func tickForever() {
	t := t2.NewTicker(t2.Second)
	for range t.C {
		check()
	}
}
