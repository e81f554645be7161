//go:build unix

package labtest

import (
	"syscall"
	"time"
)

// ownCPU is this process's CPU time and that of its children it has
// waited for (a child's CPU counts only once it is reaped).
func ownCPU() (self, children time.Duration, ok bool) {
	var s, c syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &s) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c) != nil {
		return 0, 0, false
	}
	return time.Duration(s.Utime.Nano() + s.Stime.Nano()), time.Duration(c.Utime.Nano() + c.Stime.Nano()), true
}
