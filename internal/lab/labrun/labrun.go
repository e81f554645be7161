// Package labrun is the harness the lab programs share: how long to run,
// which twin to run (the anti-pattern or its fix), and what to record (a CPU
// profile, an execution trace). It keeps every program bounded in time.
//
// It uses only language features of Go 1.22, because `schedoctor demo` also
// lints lab programs in modules whose go line is older (SD105).
package labrun

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

// Main parses the lab flags, runs bad (or fixed, with -fixed) until the
// duration ends, and writes the requested profile and trace. The work
// function must return soon after ctx is done.
func Main(bad, fixed func(ctx context.Context)) {
	duration := flag.Duration("duration", 2*time.Second, "how long to run")
	useFixed := flag.Bool("fixed", false, "run the fixed twin instead of the anti-pattern")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `file`")
	traceFile := flag.String("trace", "", "write an execution trace to `file`")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(os.Args[0] + ": ")

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			log.Fatal(err)
		}
		defer trace.Stop()
	}

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	run := bad
	if *useFixed {
		run = fixed
	}
	start := time.Now()
	run(ctx)
	fmt.Fprintf(os.Stderr, "ran %v\n", time.Since(start).Round(time.Millisecond))
}

// Ops counts units of work for programs that report throughput; Report
// prints "ops N ops/s R" on stdout, which `schedoctor sweep -metric` reads.
func Report(ops int64, elapsed time.Duration) {
	fmt.Printf("ops %d ops/s %.0f\n", ops, float64(ops)/elapsed.Seconds())
}
