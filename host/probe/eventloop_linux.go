package probe

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
)

// eventLoop is the event-loop model: one goroutine, one epoll instance, one
// shared buffer; a connection costs a map entry and the kernel's socket,
// no goroutine and no buffer of its own. It uses raw non-blocking sockets so
// that Go's netpoller (and a goroutine per connection) stays out of it.
type eventLoop struct {
	addr   string
	lfd    int
	epfd   int
	wake   [2]int // a pipe that ends the loop
	closed atomic.Bool
}

func newEventLoop() (*eventLoop, error) {
	lfd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	el := &eventLoop{lfd: lfd, epfd: -1, wake: [2]int{-1, -1}}
	fail := func(what string, err error) (*eventLoop, error) {
		el.release()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	syscall.SetsockoptInt(lfd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	if err := syscall.Bind(lfd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail("bind", err)
	}
	if err := syscall.Listen(lfd, syscall.SOMAXCONN); err != nil {
		return fail("listen", err)
	}
	sa, err := syscall.Getsockname(lfd)
	if err != nil {
		return fail("getsockname", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		return fail("getsockname", errors.New("not an IPv4 address"))
	}
	el.addr = (&net.TCPAddr{IP: net.IP(in4.Addr[:]), Port: in4.Port}).String()
	if el.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return fail("epoll_create1", err)
	}
	if err := syscall.Pipe2(el.wake[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return fail("pipe2", err)
	}
	for _, fd := range []int{lfd, el.wake[0]} {
		if err := syscall.EpollCtl(el.epfd, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}); err != nil {
			return fail("epoll_ctl", err)
		}
	}
	return el, nil
}

// run serves until close: accept, echo, close on EOF.
func (el *eventLoop) run() error {
	conns := map[int32]struct{}{}
	defer func() {
		for fd := range conns {
			syscall.Close(int(fd))
		}
		el.release()
	}()
	events := make([]syscall.EpollEvent, 256)
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.EpollWait(el.epfd, events, -1)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:n] {
			switch int(ev.Fd) {
			case el.wake[0]:
				return nil
			case el.lfd:
				for {
					cfd, _, err := syscall.Accept4(el.lfd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
					if err != nil {
						break // EAGAIN: the queue is empty (or a transient error: retried on the next event)
					}
					if err := syscall.EpollCtl(el.epfd, syscall.EPOLL_CTL_ADD, cfd, &syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(cfd)}); err != nil {
						syscall.Close(cfd)
						continue
					}
					conns[int32(cfd)] = struct{}{}
				}
			default:
				fd := int(ev.Fd)
				m, err := syscall.Read(fd, buf)
				if m > 0 {
					syscall.Write(fd, buf[:m]) // an echo may drop what the peer's window refuses: a model, not a product
				}
				if m == 0 || (err != nil && !errors.Is(err, syscall.EAGAIN)) {
					syscall.EpollCtl(el.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
					syscall.Close(fd)
					delete(conns, ev.Fd)
				}
			}
		}
	}
}

func (el *eventLoop) close() {
	if el.closed.CompareAndSwap(false, true) && el.wake[1] >= 0 {
		syscall.Write(el.wake[1], []byte{0})
	}
}

func (el *eventLoop) release() {
	for _, fd := range []int{el.lfd, el.epfd, el.wake[0], el.wake[1]} {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
	el.lfd, el.epfd, el.wake = -1, -1, [2]int{-1, -1}
}
