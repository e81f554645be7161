// Command dumpstw measures what a goroutine dump costs the program it is
// taken of, per debug level: the wall time of the handler's work
// (pprof.Lookup("goroutine").WriteTo) and the time the world was stopped
// during it, from runtime/metrics' /sched/pauses/total/other:seconds
// (stops that are not the GC's). It is the measurement behind
// check.DefaultMaxDumpGoroutines (docs/check.md):
//
//	go run ./check/internal/dumpstw -depth 1,20
//
// Each goroutine parks on a channel receive below -depth extra frames.
// The stop is read from the histogram's bucket bounds (the upper bound of
// each bucket), so it reads a little high; the best of -reps runs is
// kept, since a busy machine only adds.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	counts := flag.String("counts", "1000,10000,50000", "goroutine counts, comma-separated")
	depths := flag.String("depth", "1,20", "extra stack frames below each parked goroutine, comma-separated")
	reps := flag.Int("reps", 3, "runs per level; the best is kept")
	flag.Parse()
	fmt.Println("depth  goroutines  debug  wall_ms  stopped_ms")
	for _, d := range ints(*depths) {
		stop := make(chan struct{})
		have := 0
		for _, n := range ints(*counts) {
			for ; have < n; have++ {
				go park(d, stop)
			}
			time.Sleep(100 * time.Millisecond) // let them park
			for _, debug := range []int{0, 1, 2} {
				wall, stopped := 1e9, 1e9
				for range *reps {
					p0 := pauses()
					t := time.Now()
					if err := pprof.Lookup("goroutine").WriteTo(io.Discard, debug); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
					wall = min(wall, time.Since(t).Seconds())
					stopped = min(stopped, pauses()-p0)
				}
				fmt.Printf("%5d  %10d  %5d  %7.1f  %10.2f\n", d+1, n, debug, wall*1000, stopped*1000)
			}
		}
		close(stop)
	}
}

// pauses sums the non-GC stop-the-world time so far, by bucket upper bound.
func pauses() float64 {
	s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	total := 0.0
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		v := h.Buckets[i+1]
		if v > 1e9 { // the last bucket is unbounded
			v = h.Buckets[i]
		}
		total += float64(c) * v
	}
	return total
}

//go:noinline
func park(depth int, stop chan struct{}) {
	if depth > 0 {
		park(depth-1, stop)
		return
	}
	<-stop
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "%q: want non-negative integers\n", s)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}
