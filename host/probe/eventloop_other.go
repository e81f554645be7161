//go:build !linux

package probe

import "errors"

type eventLoop struct {
	addr  string
	run   func() error
	close func()
}

func newEventLoop() (*eventLoop, error) {
	return nil, errors.New("the eventloop model uses epoll: Linux only")
}
