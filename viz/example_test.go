package viz_test

import (
	"fmt"

	"github.com/schedoctor/schedoctor/report/htmlreport"
	"github.com/schedoctor/schedoctor/viz"
)

// loadSummary is a program's own summary with a picture: the HTML report
// draws it beside the module's sources' pictures.
type loadSummary struct {
	Procs []int
	P99ms []float64
}

func (s *loadSummary) Visuals() *viz.Set {
	c := viz.Curve{Title: "p99 against GOMAXPROCS", XLabel: "GOMAXPROCS", YLabel: "p99 (ms)"}
	for i, p := range s.Procs {
		y := s.P99ms[i]
		c.Points = append(c.Points, viz.Point{X: float64(p), Y: y, Lo: y, Hi: y})
	}
	return &viz.Set{Title: "load test", Curves: []viz.Curve{c}}
}

func ExampleProvider() {
	sum := &loadSummary{Procs: []int{2, 4, 8}, P99ms: []float64{41, 18, 17}}
	for _, set := range htmlreport.Collect(sum) {
		for _, c := range set.Curves {
			fmt.Printf("%s: %s, %d points\n", set.Title, c.Title, len(c.Points))
		}
	}
	// Output:
	// load test: p99 against GOMAXPROCS, 3 points
}

func ExampleClean() {
	// A frame name from a crafted profile: a right-to-left override and a
	// terminal escape.
	set := &viz.Set{Title: "profile", Causes: []viz.CauseCPU{{Cause: "main.\u202egnp.exe\x1b]0;x\a", Cores: 1.5, Share: 100}}}
	fmt.Println(viz.Clean(set).Causes[0].Cause)
	// Output:
	// main.\u202egnp.exe\x1b]0;x\a
}
