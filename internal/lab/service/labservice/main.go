// Labservice is a small HTTP service with the faults `schedoctor check`
// must find, each once, and healthy handlers it must leave alone:
//
//   - a background consumer that busy-waits in a select with a default
//     (SD101 by lint, SD204 by the profile, SD308 by the trace);
//   - a background poller that sleeps 10µs between looks at a flag
//     (SD102, SD204 on a sleep loop, SD307);
//   - GET /slow, which leaks a goroutine on every timed-out request: the
//     worker's send on an unbuffered channel blocks forever once the
//     handler stopped waiting (SD701 from two goroutine dumps);
//   - GET /ok and GET /hash, healthy handlers.
//
// It serves net/http/pprof on its own mux on a loopback listener (the safe
// way docs/check.md describes) and prints "pprof http://ADDR" and
// "app http://ADDR" on stdout. It lives one level below internal/lab/service
// so that the lab's embedded programs (internal/lab/*/*.go, run by the demo
// and every lab test with the labrun flags) do not include it; tests build
// it from the module root. It exits after -duration, so a test that loses
// it never leaves it running.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "pprof listener (keep it on loopback)")
	appAddr := flag.String("app", "127.0.0.1:0", "application listener")
	duration := flag.Duration("duration", 2*time.Minute, "exit after this long")
	flag.Parse()
	log.SetFlags(0)

	// Both profiles are off by default; a service that wants them in
	// `check` enables them. A fraction of 5 samples one contention in 5;
	// a rate of 100µs records blocking events of that length or more.
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(int(100 * time.Microsecond))

	dbg := http.NewServeMux()
	dbg.HandleFunc("/debug/pprof/", pprof.Index)
	dbg.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	dbg.HandleFunc("/debug/pprof/profile", pprof.Profile)
	dbg.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	dbg.HandleFunc("/debug/pprof/trace", pprof.Trace)
	app := http.NewServeMux()
	app.HandleFunc("/ok", handleOK)
	app.HandleFunc("/hash", handleHash)
	app.HandleFunc("/slow", handleSlow)

	dl, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	al, err := net.Listen("tcp", *appAddr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("pprof http://%s\napp http://%s\n", dl.Addr(), al.Addr())
	os.Stdout.Sync()

	go consume(produce())
	go poll()
	go func() { log.Fatal(http.Serve(dl, withLive(dbg, app))) }()
	go func() { log.Fatal(http.Serve(al, app)) }()
	time.Sleep(*duration)
}

// produce sends a job every millisecond.
func produce() <-chan int {
	jobs := make(chan int)
	go func() {
		t := time.NewTicker(time.Millisecond)
		for i := 0; ; i++ {
			<-t.C
			jobs <- i
		}
	}()
	return jobs
}

var processed, idle atomic.Int64

// consume spins: the default makes the select never block, so the loop
// burns a core between the jobs that come every millisecond.
func consume(jobs <-chan int) {
	for {
		select { // the busy select
		case j := <-jobs:
			processed.Add(int64(j & 1))
		default:
			idle.Add(1)
		}
	}
}

var ready atomic.Bool
var polls atomic.Int64

// poll looks at a flag every 10µs instead of waiting on a channel: each
// sleep parks and wakes the goroutine through a timer.
func poll() {
	for {
		if ready.Load() {
			ready.Store(false)
		}
		polls.Add(1)
		time.Sleep(10 * time.Microsecond) // the tiny-sleep poll
	}
}

func handleOK(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "ok %d\n", processed.Load())
}

func handleHash(w http.ResponseWriter, r *http.Request) {
	sum := sha256.Sum256([]byte(r.URL.RawQuery))
	for range 200 {
		sum = sha256.Sum256(sum[:])
	}
	fmt.Fprintf(w, "%x\n", sum[:8])
}

// handleSlow gives its worker 2ms; the worker takes 20ms and then sends on
// an unbuffered channel nobody reads any more: the goroutine leaks.
func handleSlow(w http.ResponseWriter, r *http.Request) {
	result := make(chan int)
	go work(result)
	select {
	case v := <-result:
		fmt.Fprintf(w, "%d\n", v)
	case <-time.After(2 * time.Millisecond):
		http.Error(w, "timeout", http.StatusGatewayTimeout)
	}
}

func work(result chan<- int) {
	time.Sleep(20 * time.Millisecond)
	result <- 42 // the leak: blocks forever after a timeout
}

// withLive, replaced by live.go, mounts the schedoctor live monitor at
// /debug/schedoctor/ on the debug mux and a spike on demand on the app
// mux. The demo builds this file alone, from an embedded copy that imports
// the standard library only, so the monitor sits in a file of its own;
// and this is the file's end, so that the lines findings point at stay
// where saved checks (internal/cli/testdata/check/lab) recorded them.
var withLive = func(dbg, app *http.ServeMux) http.Handler { return dbg }
