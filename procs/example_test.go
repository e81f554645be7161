package procs_test

import (
	"fmt"
	"log"

	"github.com/schedoctor/schedoctor/procs"
)

// Inspect a copy of a Kubernetes node's /proc and /sys where the pod's slice
// is limited to 1 CPU and the container itself is not: the Go 1.26 runtime
// reads only the container's (leaf) cgroup and runs with 4 Ps.
func ExampleInspect() {
	s, err := procs.Inspect(procs.Options{Sysroot: "testdata/fixtures/v2-nested", PID: 4242})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("GOMAXPROCS %d (%s), %v CPU available (%s)\n",
		s.GOMAXPROCS.Value, s.GOMAXPROCS.Origin, s.CPUs.Available, s.CPUs.AvailableFrom)
	for _, f := range procs.Findings(s) {
		fmt.Println(f.Rule, f.Severity)
	}
	// Output:
	// GOMAXPROCS 4 (computed), 1 CPU available (parent cgroup quota)
	// SD401 critical
	// SD404 warning
	// SD405 warning
}
