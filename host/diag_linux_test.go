package host

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestListenBacklog: sock_diag gives each listener's own backlog (ss's
// Send-Q), which /proc/net/tcp does not; a listener that asked for 64 is
// reported, one made by net.Listen (which asks for somaxconn) is not.
func TestListenBacklog(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 64); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	small := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	s, err := Inspect(Options{PID: os.Getpid(), Conns: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listenBacklogs(); err != nil {
		t.Skipf("no sock_diag here: %v", err)
	}
	somaxconn, _ := s.Value("net.core.somaxconn")
	got := map[string]uint32{}
	for _, l := range s.Process.Listeners {
		got[l.Addr] = l.Backlog
	}
	if got[small] != 64 {
		t.Errorf("backlog of %s: %d, want 64 (listeners %v)", small, got[small], got)
	}
	if want := uint32(min(somaxconn, 1<<16)); somaxconn > 0 && got[ln.Addr().String()] != want {
		t.Errorf("backlog of net.Listen's %s: %d, want somaxconn %d", ln.Addr(), got[ln.Addr().String()], want)
	}
	var msgs []string
	for _, f := range Findings(s) {
		if f.Rule == "SD602" && strings.Contains(f.Text(), "listen backlog") {
			msgs = append(msgs, f.Text())
		}
	}
	if somaxconn <= 64 {
		t.Skipf("somaxconn %d: nothing to compare", somaxconn)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], small) {
		t.Errorf("SD602 on listen backlogs: %q, want one on %s", msgs, small)
	}
}
