package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Generators of the host layer's hostile cases (F): sysroot trees whose
// kernel files carry terminal escapes, FIFOs and endless devices.

func init() {
	registerHostileGen("host-escapes", genHostEscapes)
}

// genHostEscapes writes root/: a process whose name and fd links carry the
// hostile names, sysctl files holding escapes, a FIFO where fs.nr_open
// should be (reading it must not block), /dev/zero as its TCP table
// (endless), and a listener whose address row is garbage.
func genHostEscapes(dir string) error {
	root := filepath.Join(dir, "root")
	files := map[string]string{
		"proc/4242/status":                   "Name:\t" + strings.Join(hostileNames, " ") + "\nVmRSS:\t 100 kB\n",
		"proc/4242/limits":                   "Max open files            1024                 524288               files     \n",
		"proc/4242/environ":                  "GOMEMLIMIT=" + hostileNames[0] + "\x00",
		"proc/4242/cgroup":                   "0::/" + hostileNames[1] + "\n",
		"proc/4242/mountinfo":                "29 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"proc/4242/net/tcp6":                 "  sl  local_address rem_address st\n   0: \x1b[2J:1F90 00:0 0A 0:0 0 0 0 0 " + hostileNames[3] + "\n",
		"proc/sys/net/core/somaxconn":        hostileNames[0] + "\n",
		"proc/sys/net/ipv4/tcp_mem":          "1 2 \x1b[31m3\n",
		"proc/sys/fs/file-max":               "9223372036854775807\n",
		"proc/sys/fs/epoll/max_user_watches": "99999999999999999999999\n",
		"proc/net/sockstat":                  "TCP: inuse \x1b[2J mem 5\n",
		"proc/meminfo":                       "MemAvailable: " + hostileNames[4] + " kB\n",
	}
	for p, c := range files {
		dst := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, []byte(c), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "proc/4242/fd"), 0o755); err != nil {
		return err
	}
	for i, n := range hostileNames {
		if err := os.Symlink("socket:["+n+"]", filepath.Join(root, "proc/4242/fd", fmt.Sprint(i))); err != nil {
			return err
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "proc/4242/net/tcp")); err != nil {
		return err
	}
	return syscall.Mkfifo(filepath.Join(root, "proc/sys/fs/nr_open"), 0o644)
}
