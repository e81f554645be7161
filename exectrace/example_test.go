package exectrace_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/schedoctor/schedoctor/exectrace"
	"github.com/schedoctor/schedoctor/finding"
)

// Analyze a trace file and print what it found. The fixture was recorded from
// the lab's mutex program: eight workers updating one map under one lock.
func ExampleAnalyze() {
	f, err := os.Open("testdata/mutex.trace")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	res, err := exectrace.Analyze(context.Background(), f, exectrace.Options{CPUs: 2})
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
