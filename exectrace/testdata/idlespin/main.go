// Idlespin records the fixtures idlespin-{select,work}.trace: a handler
// that, for each request, starts a job that takes 3ms (it sleeps) and
// waits for it in a loop around a select with a default, while the other
// Ps sit idle. Each wait is shorter than a time slice, so nothing preempts
// the loop: its running stretches end when it blocks for the next request,
// and only the CPU samples the trace carries (a CPU profile runs beside
// it) show the time in selectgo. With -work the default hashes a buffer
// instead: the same shape whose CPU is its work.
//
//	go run ./exectrace/testdata/idlespin exectrace/testdata/idlespin-select.trace
//	go run ./exectrace/testdata/idlespin -work exectrace/testdata/idlespin-work.trace
package main

import (
	"crypto/sha256"
	"flag"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

var sink [32]byte

// wait spins until done is closed.
func wait(done <-chan struct{}, quit <-chan struct{}) int {
	n := 0
	for {
		select { // idlespin:select
		case <-done:
			return n
		case <-quit:
			return n
		default:
		}
		n++
	}
}

// hash works until done is closed: its CPU is SHA-256.
func hash(done <-chan struct{}, quit <-chan struct{}, buf []byte) int {
	n := 0
	for {
		select {
		case <-done:
			return n
		case <-quit:
			return n
		default:
			sink = sha256.Sum256(buf) // idlespin:work
		}
		n++
	}
}

func handle(reqs <-chan struct{}, quit <-chan struct{}, work bool) {
	buf := make([]byte, 1024)
	for range reqs {
		done := make(chan struct{})
		go func() { time.Sleep(3 * time.Millisecond); close(done) }()
		if work {
			hash(done, quit, buf)
		} else {
			wait(done, quit)
		}
	}
}

func main() {
	work := flag.Bool("work", false, "the default hashes a buffer")
	d := flag.Duration("d", time.Second, "how long to record")
	flag.Parse()
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	reqs := make(chan struct{})
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() { handle(reqs, quit, *work); close(finished) }()
	tick := time.NewTicker(5 * time.Millisecond)
	end := time.Now().Add(*d)
	for time.Now().Before(end) {
		<-tick.C
		select {
		case reqs <- struct{}{}:
		default: // still busy with the last one
		}
	}
	tick.Stop()
	close(quit)
	close(reqs)
	<-finished
	trace.Stop()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
