//go:build unix

package profile

import (
	"syscall"
	"time"
)

// processCPU is this process's CPU time so far (user and system, every
// thread: the collector's workers included).
func processCPU() (time.Duration, bool) {
	var s syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &s) != nil {
		return 0, false
	}
	return time.Duration(s.Utime.Nano() + s.Stime.Nano()), true
}
