package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxProcs bounds a GOMAXPROCS value in a sweep (the runtime's own limit is
// far higher, but a sweep past it is a typo).
const MaxProcs = 4096

// ParseProcs parses a GOMAXPROCS list: comma-separated values and ranges,
// "1,2,4,8", "1..16", "1..4,8,16". The result is sorted, without duplicates.
func ParseProcs(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%q: empty element", s)
		}
		lo, hi, isRange := strings.Cut(part, "..")
		a, err := parseProc(lo)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = parseProc(hi); err != nil {
				return nil, fmt.Errorf("%q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("%q: range %s runs backwards", s, part)
			}
		}
		for p := a; p <= b; p++ {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseProc(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < 1 || n > MaxProcs {
		return 0, fmt.Errorf("GOMAXPROCS %d out of range 1..%d", n, MaxProcs)
	}
	return n, nil
}

// DefaultProcs is the sweep's default list for a machine with cpus CPUs:
// every value from 1 to cpus, then 2×cpus to show what oversubscription
// costs. Above 16 CPUs the steps below cpus are powers of two, so that a
// large machine does not need a hundred points.
func DefaultProcs(cpus int) []int {
	cpus = max(cpus, 1)
	var out []int
	if cpus <= 16 {
		for p := 1; p <= cpus; p++ {
			out = append(out, p)
		}
	} else {
		for p := 1; p < cpus; p *= 2 {
			out = append(out, p)
		}
		out = append(out, cpus)
	}
	return append(out, 2*cpus)
}
