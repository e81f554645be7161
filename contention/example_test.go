package contention_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/schedoctor/schedoctor/contention"
)

// A cumulative mutex profile of 8 goroutines sharing one lock, 5 seconds
// after runtime.SetMutexProfileFraction(1).
func ExampleAnalyze() {
	p, err := contention.ReadFile(context.Background(), "testdata/mutex.mutex.pb.gz", contention.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := contention.Analyze([]*contention.Profile{p}, contention.Options{Duration: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	s := res.Summary.Sites[0]
	fmt.Printf("%s %s:%d %.1f waiters\n", s.Kind, s.Function, s.Line, s.Waiters)
	for _, f := range res.Findings {
		fmt.Println(f.Rule, f.Locations[0].Line)
	}
	// Output:
	// mutex main.contend:139 5.6 waiters
	// SD309 139
}
