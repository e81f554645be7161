package host

import (
	"encoding/binary"
	"fmt"
	"syscall"
)

// listenBacklogs asks the kernel, over NETLINK_SOCK_DIAG (what ss uses),
// for every TCP listener of this network namespace and returns each one's
// backlog (sk_max_ack_backlog, ss's Send-Q) by socket inode. The
// /proc/net/tcp tables do not show it: their tx_queue of a listener is 0.
// It answers for the caller's namespace only, so it is used on the live
// system when the target shares schedoctor's.
func listenBacklogs() (map[uint64]uint32, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag socket: %w", err)
	}
	defer syscall.Close(fd)
	// A reply that never comes must not hang the report.
	tv := syscall.Timeval{Sec: 2}
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	out := map[uint64]uint32{}
	for _, family := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		if err := diagDump(fd, family, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	nlmsgHdrLen      = 16
	diagReqLen       = 56 // struct inet_diag_req_v2
	diagMsgLen       = 72 // struct inet_diag_msg
	tcpListenState   = 10
)

func diagDump(fd int, family uint8, out map[uint64]uint32) error {
	req := make([]byte, nlmsgHdrLen+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	ne.PutUint32(req[8:], 1) // sequence
	b := req[nlmsgHdrLen:]
	b[0] = family
	b[1] = syscall.IPPROTO_TCP
	ne.PutUint32(b[4:], 1<<tcpListenState) // idiag_states
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag request: %w", err)
	}
	buf := make([]byte, 64<<10)
	for msgs := 0; msgs < 1<<20; {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("sock_diag reply: %w", err)
		}
		parsed, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("sock_diag reply: %w", err)
		}
		for _, m := range parsed {
			msgs++
			switch m.Header.Type {
			case syscall.NLMSG_DONE:
				return nil
			case syscall.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if e := int32(ne.Uint32(m.Data)); e != 0 {
						return fmt.Errorf("sock_diag: %w", syscall.Errno(-e))
					}
				}
				return nil
			}
			d := m.Data
			if len(d) < diagMsgLen || d[1] != tcpListenState {
				continue
			}
			// inet_diag_msg: family, state, timer, retrans, id (48 bytes),
			// expires, rqueue, wqueue, uid, inode.
			wqueue := ne.Uint32(d[60:])
			inode := ne.Uint32(d[68:])
			out[uint64(inode)] = wqueue
		}
	}
	return fmt.Errorf("sock_diag: reply does not end")
}
