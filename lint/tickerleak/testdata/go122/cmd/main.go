package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

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
	commands[os.Args[1]].run(os.Args[2:])
	for _, c := range commands {
		c.check()
	}
	http.HandleFunc("/", handle)
	var s fmt.Stringer = status{}
	_ = s.String()
	setup()
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

// Called in a loop or in a goroutine: each call leaks one more ticker.
func inLoop() {
	tick := time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	<-tick
}

func inGoroutine() {
	tick := time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	<-tick
}

// twice is called from two places in main's body: two tickers for the
// life of the process, as main's own; silent.
func twice() {
	tick := time.Tick(time.Second)
	<-tick
}

// A command table: main looks one command up and calls its unexported
// run method once, through the package's interface (a benchmark tool's
// subcommands). Each run's ticker is one for the process: silent. A
// method that the same interface calls in a loop (check) leaks one per
// round; an exported method can be reached by other packages'
// interfaces (fmt.Stringer); a function passed as a value (a handler)
// runs per request.
type command interface {
	run(args []string)
	check()
}

var commands = map[string]command{"bench": &bench{}}

type bench struct{ minutes int }

func (b *bench) run(args []string) {
	select {
	case <-time.Tick(time.Duration(b.minutes) * time.Minute):
	case <-time.After(time.Hour):
	}
	b.common()
}

// common is called once by a command's run, itself run once: silent.
func (b *bench) common() {
	<-time.Tick(time.Second)
}

func (b *bench) check() {
	<-time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
}

type status struct{}

func (status) String() string {
	<-time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
	return "ok"
}

func handle(w http.ResponseWriter, r *http.Request) {
	<-time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
}

// setup runs once, but calls step in a loop: step leaks per round.
func setup() {
	for i := 0; i < 3; i++ {
		step()
	}
}

func step() {
	<-time.Tick(time.Second) // want `time.Tick's ticker cannot be stopped`
}
