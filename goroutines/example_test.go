package goroutines_test

import (
	"context"
	"fmt"
	"log"

	"github.com/schedoctor/schedoctor/goroutines"
)

// Two dumps of /debug/pprof/goroutine?debug=2 taken two minutes apart from
// a handler that leaks a goroutine per timed-out request.
func ExampleAnalyze() {
	var dumps []*goroutines.Dump
	for _, name := range []string{"testdata/leak-start.debug2.txt", "testdata/leak-end.debug2.txt"} {
		d, err := goroutines.ReadFile(context.Background(), name, goroutines.ReadOptions{})
		if err != nil {
			log.Fatal(err)
		}
		dumps = append(dumps, d)
	}
	res, err := goroutines.Analyze(dumps, goroutines.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Findings {
		fmt.Println(f.Rule, f.Text())
	}
	g := res.Summary.Groups[0]
	fmt.Printf("%d → %d in %s at %s:%d\n", g.StartCount, g.Count, g.State, g.Wait.Func, g.Wait.Line)
	// Output:
	// SD701 1298 goroutines leak parked in chan send at main.go:61 (main.leakyHandler.func1), created at main.go:60 (main.leakyHandler) because it grew by 1199 between two dumps and 99 of the 99 of the first dump never left
	// 99 → 1298 in chan send at main.leakyHandler.func1:61
}

// Groups without Analyze: where the goroutines of one dump wait. A group
// with no user frame is named by its entry function.
func ExampleGroups() {
	d, err := goroutines.ReadFile(context.Background(), "testdata/healthy-end.debug2.txt", goroutines.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range goroutines.Groups(d)[:2] {
		fmt.Printf("%d %s at %s:%d, oldest %dm\n", g.Count, g.State, g.Wait.Func, g.Wait.Line, g.OldestMinutes)
	}
	// Output:
	// 43 IO wait at net/http.(*persistConn).readLoop:2330, oldest 2m
	// 43 select at net/http.(*persistConn).writeLoop:2652, oldest 2m
}
