// Forcedgc records the fixture forcedgc.trace: a loop that allocates a
// little and calls runtime.GC, as a benchmark harness or a cache's flush
// does. Its pauses are forced collections, not allocation pressure.
//
//	go run ./exectrace/testdata/forcedgc exectrace/testdata/forcedgc.trace
package main

import (
	"log"
	"os"
	"runtime"
	"runtime/trace"
	"time"
)

var sink []byte

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	end := time.Now().Add(8 * time.Millisecond)
	for time.Now().Before(end) {
		for i := 0; i < 100; i++ {
			sink = make([]byte, 1024)
		}
		runtime.GC() // the forced collection
	}
	trace.Stop()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
