package schedtrace_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/schedoctor/schedoctor/schedtrace"
)

func Example() {
	// Three snapshots of a program with 1,000 CPU-bound goroutines on 2 Ps,
	// mixed with its own output, as GODEBUG=schedtrace=100 prints them.
	stderr := `SCHED 0ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=1 needspinning=0 idlethreads=0 runqueue=0 [ 1 0 ] schedticks=[ 0 0 ]
SCHED 106ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=1 idlethreads=0 runqueue=514 [ 113 68 ] schedticks=[ 653 655 ]
batch 1 done
SCHED 206ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=1 idlethreads=0 runqueue=252 [ 122 53 ] schedticks=[ 1288 1287 ]
SCHED 307ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=1 idlethreads=0 runqueue=60 [ 42 54 ] schedticks=[ 1923 1922 ]
`
	tr, err := schedtrace.Read(context.Background(), "sched.txt", strings.NewReader(stderr), schedtrace.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := schedtrace.Analyze(tr, schedtrace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d ticks over %dms, %d lines skipped\n", res.Summary.Ticks, res.Summary.DurationMs, tr.Stats.Skipped)
	for _, f := range res.Findings {
		fmt.Printf("%s at %s: %s\n", f.Rule, f.Locations[0], f.Text())
	}
	// Output:
	// 3 ticks over 201ms, 1 lines skipped
	// SD302 at sched.txt:2: 426.0 goroutines queued on average (213.0 per P, peak 695) in 3 of 3 ticks, with all Ps busy in 100% of ticks because more goroutines were runnable than the 2 Ps could run, and each goroutine start ran about 159µs, so a queued goroutine waited about 33.9ms
}

func ExampleRead() {
	// An endless stream (a server's stderr piped in) is read with bounded
	// memory: only the last MaxTicks snapshots are kept.
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, "SCHED %dms: gomaxprocs=2 idleprocs=1 threads=5 runqueue=0 [ 0 0 ]\n", i*1000)
	}
	tr, err := schedtrace.Read(context.Background(), "stderr", strings.NewReader(b.String()), schedtrace.ReadOptions{MaxTicks: 20})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("kept %d of %d snapshots, from line %d\n", len(tr.Ticks), tr.Stats.SchedLines, tr.Ticks[0].Line)
	// Output:
	// kept 20 of 50 snapshots, from line 31
}
