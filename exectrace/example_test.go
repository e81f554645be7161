package exectrace_test

import (
	"context"
	"fmt"
	"log"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
)

// Read a trace file, analyse it and print what it found. The fixture was
// recorded from the lab's mutex program: eight workers updating one map
// under one lock.
func ExampleAnalyze() {
	t, err := exectrace.ReadFile(context.Background(), "testdata/mutex.trace", exectrace.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := exectrace.Analyze(t, exectrace.Options{CPUs: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Severity >= finding.Warning {
			fmt.Println(f.Rule, f.Severity, f.Locations[0].Function)
		}
	}
	// Output:
	// SD309 warning main.bad.func1
}
