//go:build !linux

package gobin

import "errors"

// ReadLiveGOMAXPROCS needs /proc/PID/mem, which only Linux has.
func ReadLiveGOMAXPROCS(pid int, exe string) (int, error) {
	return 0, errors.New("reading a live process's GOMAXPROCS needs Linux")
}
