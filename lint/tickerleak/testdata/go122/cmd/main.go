package main

import "time"

func main() {
	var d discoverer
	if time.Now().IsZero() {
		everyRound()
		for i := 0; i < 3; i++ {
			inLoop()
		}
		go inGoroutine()
		twice()
		return
	}
	twice()
	d.run()
	for range time.Tick(time.Second) {
		if time.Now().IsZero() {
			return
		}
	}
}

// run is called once, from main's body, and main ends soon after it
// returns: its ticker lives as long as one made in main. Silent.
type discoverer struct{ refresh time.Duration }

func (d *discoverer) run() {
	tick := time.Tick(d.refresh)
	for {
		select {
		case <-tick:
		case <-time.After(time.Minute):
			return
		}
	}
}

// everyRound is called once too, inside an if of main's body: silent.
func everyRound() {
	tick := time.Tick(time.Second)
	<-tick
}

// Called in a loop, in a goroutine, or from two places: each call leaks
// one more ticker.
func inLoop() {
	tick := time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	<-tick
}

func inGoroutine() {
	tick := time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	<-tick
}

func twice() {
	tick := time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	<-tick
}
