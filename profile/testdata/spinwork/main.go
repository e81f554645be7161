// Spinwork records the CPU profiles of profile/testdata/spinwork-*.pb.gz:
// the wait of issue 20's HTTP handler, a loop around a select with a
// default whose cases wait for a job and for the request's context, and
// its close negative, the same loop whose default does real work (hashes
// a buffer). Run from the module root:
//
//	go run ./profile/testdata/spinwork -mode select -o profile/testdata/lab/spinwork-select.pb.gz
//	go run ./profile/testdata/spinwork -mode work -o profile/testdata/lab/spinwork-work.pb.gz
//
// The recordings name this file's lines; the tests read it as the source.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"log"
	"net/http"
	"os"
	"runtime/pprof"
	"time"
)

var sink [32]byte

// waitSpin is the handler's wait: the context is read inline in the case,
// and the default neither blocks nor leaves the loop.
func waitSpin(r *http.Request, done <-chan struct{}) int {
	n := 0
	for {
		select { // spinwork:select
		case <-done:
			return n
		case <-r.Context().Done():
			return n
		default:
		}
		n++
	}
}

// hashUntil is the same shape whose default is the work: its CPU is in
// SHA-256, not in select.
func hashUntil(r *http.Request, done <-chan struct{}, buf []byte) int {
	n := 0
	for {
		select {
		case <-done:
			return n
		case <-r.Context().Done():
			return n
		default:
			sink = sha256.Sum256(buf) // spinwork:work
		}
		n++
	}
}

func main() {
	mode := flag.String("mode", "select", "select or work")
	out := flag.String("o", "cpu.pb.gz", "the CPU profile to write")
	d := flag.Duration("d", 3*time.Second, "how long to record")
	flag.Parse()
	r, err := http.NewRequestWithContext(context.Background(), "GET", "http://example.com/job", nil)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{})
	time.AfterFunc(*d, func() { close(done) })
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	switch *mode {
	case "select":
		waitSpin(r, done)
	case "work":
		hashUntil(r, done, make([]byte, 4096))
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
