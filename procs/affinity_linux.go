package procs

import (
	"golang.org/x/sys/unix"

	"github.com/schedoctor/schedoctor/procs/cgroup"
)

// schedAffinity returns the CPUs in pid's affinity mask (0: the caller),
// which is what the Go runtime counts for its default GOMAXPROCS.
func schedAffinity(pid int) (cgroup.CPUList, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, err
	}
	var list cgroup.CPUList
	for c := range len(set) * 64 {
		if set.IsSet(c) {
			list = append(list, c)
		}
	}
	return list, nil
}
