package sweep_test

import (
	"fmt"

	"github.com/schedoctor/schedoctor/sweep"
)

func ExampleParseProcs() {
	procs, err := sweep.ParseProcs("1..4,8,16")
	fmt.Println(procs, err)
	fmt.Println(sweep.DefaultProcs(2))
	// Output:
	// [1 2 3 4 8 16] <nil>
	// [1 2 4]
}

func ExampleParseBenchLine() {
	name, vals, ok := sweep.ParseBenchLine("BenchmarkHash-8   \t  123456\t      9713 ns/op\t  105.3 MB/s")
	fmt.Println(name, vals, ok)
	// Output: BenchmarkHash [{9713 ns/op} {105.3 MB/s}] true
}
