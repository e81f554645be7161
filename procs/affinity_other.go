//go:build !linux

package procs

import "github.com/schedoctor/schedoctor/procs/cgroup"

// schedAffinity needs Linux; Inspect refuses the live system elsewhere, so
// this is only reached on a bug.
func schedAffinity(pid int) (cgroup.CPUList, error) { return nil, ErrNeedsLinux }
