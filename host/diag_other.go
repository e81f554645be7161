//go:build !linux

package host

import "errors"

func listenBacklogs() (map[uint64]uint32, error) {
	return nil, errors.New("sock_diag needs Linux")
}
