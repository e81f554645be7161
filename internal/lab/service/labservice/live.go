package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/schedoctor/schedoctor/live"
)

// liveDir is where the monitor writes flight-recorder snapshots. Without
// it the monitor reads metrics only and writes nothing, so that a run that
// is killed leaves no files behind.
var liveDir = flag.String("live-dir", "", "the live monitor's snapshot `DIR` (empty: metrics only, no flight recorder)")

func init() {
	// The monitor runs until the process exits (after -duration, or
	// killed): it has nothing to flush, and its snapshots are complete
	// files (written to NAME.partial, then renamed).
	withLive = func(dbg, app *http.ServeMux) http.Handler {
		m, err := live.Start(context.Background(), live.Options{Dir: *liveDir, NoFlightRecorder: *liveDir == "", Logf: log.Printf})
		if err != nil {
			log.Fatal(err)
		}
		// The debug mux listens on loopback only: the page and the
		// snapshots show the program's stacks (docs/live.md).
		dbg.Handle("/debug/schedoctor/", m.Handler())
		app.HandleFunc("/burst", handleBurst)
		return dbg
	}
}

var bursting atomic.Bool

// handleBurst starts 100×GOMAXPROCS goroutines that hash for ?ms=
// milliseconds (default 1000, at most 3000) and answers at once: far more
// runnable goroutines than Ps, the backlog the monitor's runnable trigger
// snapshots. One burst at a time.
func handleBurst(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
	if err != nil || ms <= 0 {
		ms = 1000
	}
	ms = min(ms, 3000)
	if !bursting.CompareAndSwap(false, true) {
		http.Error(w, "a burst is running", http.StatusConflict)
		return
	}
	n := 100 * runtime.GOMAXPROCS(0)
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	var left atomic.Int64
	left.Store(int64(n))
	for range n {
		go burn(deadline, &left)
	}
	fmt.Fprintf(w, "burst: %d goroutines for %dms\n", n, ms)
}

func burn(deadline time.Time, left *atomic.Int64) {
	var sum [32]byte
	for time.Now().Before(deadline) {
		for range 50 {
			sum = sha256.Sum256(sum[:])
		}
	}
	if left.Add(-1) == 0 {
		bursting.Store(false)
	}
}
