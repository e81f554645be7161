package profile_test

import (
	"context"
	"fmt"
	"log"
	"os"

	pprof "github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/profile"
)

// Analyse a real CPU profile of the busyselect lab program: a consumer
// polls a channel with a select whose default does nothing.
func ExampleAnalyze() {
	p, err := profile.ReadFile(context.Background(), "testdata/lab/busyselect.pb.gz", profile.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Findings {
		fmt.Println(f.Rule, f.Severity, f.Locations[0].Line)
	}
	// Output:
	// SD204 warning 37
}

// The cause table, as `schedoctor profile` prints it before the findings.
func ExampleSummary_WriteText() {
	p, err := profile.ReadFile(context.Background(), "testdata/lab/mutex.pb.gz", profile.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := profile.Analyze([]*pprof.Profile{p}, profile.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res.Summary.WriteText(os.Stdout)
	// Output:
	// 1 profile(s), 2.0s, 1.22s CPU (0.61 cores), 122 samples
	//
	//   CAUSE          SHARE  CORES  WHERE (user line, or caller when cut)
	//   user           58.2%  0.355  mutex/main.go:27 (main.bad.func1) 38%
	//   mutex          26.2%  0.160  mutex/main.go:27 (main.bad.func1) 88%
	//   preempt        15.6%  0.095  mutex/main.go:27 (main.bad.func1) 53%
}
