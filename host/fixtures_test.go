package host

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var writeFixtures = flag.Bool("fixtures", false, "rewrite the fixture trees under testdata/fixtures from fixtureTrees")

// The fixture trees stand in for hosts: a copy of the /proc and /sys files
// host reads, for a server process 4242. They are generated from the tables
// below (go test ./host -run TestFixtureTrees -fixtures) so that each
// differs from "stock" only where its story says; TestFixtureTrees keeps the
// checked-in trees equal to the tables.
type tree struct {
	args  []string          // the command line the goldens run (after the subcommand)
	files map[string]string // path under the tree -> content
	links map[string]string // symlink path -> target (fd tables)
}

// stock is a 4 GiB VM of a current distribution, untuned: systemd's
// default LimitNOFILE=1024:524288, the kernel's defaults for a host of that
// size, conntrack loaded by a firewall.
func stock() tree {
	t := tree{args: []string{"-pid", "4242", "-conns", "1000000"}, files: map[string]string{}, links: map[string]string{}}
	sys := map[string]string{
		"fs/file-max":                      "9223372036854775807",
		"fs/file-nr":                       "1184\t0\t9223372036854775807",
		"fs/nr_open":                       "1048576",
		"fs/epoll/max_user_watches":        "868096",
		"net/core/somaxconn":               "4096",
		"net/ipv4/tcp_max_syn_backlog":     "512",
		"net/ipv4/tcp_syncookies":          "1",
		"net/ipv4/ip_local_port_range":     "32768\t60999",
		"net/ipv4/tcp_tw_reuse":            "2",
		"net/ipv4/tcp_timestamps":          "1",
		"net/ipv4/tcp_fin_timeout":         "60",
		"net/ipv4/tcp_mem":                 "42897\t57197\t85794",
		"net/ipv4/tcp_rmem":                "4096\t131072\t6291456",
		"net/ipv4/tcp_wmem":                "4096\t16384\t4194304",
		"net/netfilter/nf_conntrack_max":   "131072",
		"net/netfilter/nf_conntrack_count": "412",
	}
	for k, v := range sys {
		t.files["proc/sys/"+k] = v + "\n"
	}
	t.files["proc/meminfo"] = "MemTotal:        4015084 kB\nMemFree:         2830112 kB\nMemAvailable:    3495204 kB\n"
	t.files["proc/net/sockstat"] = "sockets: used 212\nTCP: inuse 9 orphan 0 tw 14 alloc 12 mem 3\nUDP: inuse 2 mem 1\n"
	t.files["proc/net/sockstat6"] = "TCP6: inuse 2\nUDP6: inuse 1\n"
	t.files["proc/net/netstat"] = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 0 0\n"
	t.files["proc/4242/status"] = "Name:\tapi\nState:\tS (sleeping)\nPid:\t4242\nVmRSS:\t   48212 kB\n"
	t.files["proc/4242/limits"] = limits(1024, 524288)
	t.files["proc/4242/cgroup"] = "0::/system.slice/api.service\n"
	t.files["proc/4242/mountinfo"] = "29 1 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	t.files["proc/4242/environ"] = "PATH=/usr/bin\x00HOME=/var/lib/api\x00"
	t.files["sys/fs/cgroup/system.slice/api.service/memory.max"] = "max\n"
	t.files["sys/fs/cgroup/system.slice/api.service/memory.current"] = "52494336\n"
	t.files["sys/fs/cgroup/system.slice/memory.max"] = "max\n"
	// The server listens on :8080 and holds three client connections.
	sockets(&t, 8080, map[string]int{"ESTABLISHED": 3}, nil)
	return t
}

func limits(soft, hard int64) string {
	return "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max cpu time              unlimited            unlimited            seconds   \n" +
		fmt.Sprintf("Max open files            %-20d %-20d files     \n", soft, hard) +
		"Max locked memory         8388608              8388608              bytes     \n"
}

// sockets writes the process's fd table and /proc/4242/net/tcp{,6}: a
// listener on port and n sockets per state, IPv4, plus a stranger's socket
// (another process's, absent from the fd table) that the join must skip;
// dialled adds the process's own outgoing connections by state.
func sockets(t *tree, port int, states, dialled map[string]int) {
	code := map[string]string{"ESTABLISHED": "01", "CLOSE_WAIT": "08", "TIME_WAIT": "06", "LISTEN": "0A"}
	var tcp strings.Builder
	tcp.WriteString("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n")
	fd, inode, sl := 3, 20001, 0
	row := func(local, remote, st string, queue, ino int, mine bool) {
		fmt.Fprintf(&tcp, "%4d: %s %s %s 00000000:%08X 00:00000000 00000000  1000        0 %d 1 0000000000000000 20 4 30 10 -1\n", sl, local, remote, st, queue, ino)
		sl++
		if mine {
			t.links[fmt.Sprintf("proc/4242/fd/%d", fd)] = fmt.Sprintf("socket:[%d]", ino)
			fd++
		}
	}
	for i := range 3 {
		t.links[fmt.Sprintf("proc/4242/fd/%d", i)] = "/dev/null"
	}
	row(fmt.Sprintf("00000000:%04X", port), "00000000:0000", code["LISTEN"], 0, inode, true)
	inode++
	for _, st := range slices.Sorted(maps.Keys(states)) {
		for i := range states[st] {
			// Clients 10.0.1.x connect from their own ephemeral ports.
			ino := inode
			if st == "TIME_WAIT" {
				ino = 0 // a TIME_WAIT socket has no descriptor and inode 0
			}
			row(fmt.Sprintf("0500000A:%04X", port), fmt.Sprintf("%02X01000A:%04X", 10+i%200, 40000+i), code[st], 0, ino, st != "TIME_WAIT")
			inode++
		}
	}
	// Connections the process dialled: from its ephemeral ports to an
	// upstream, 10.0.2.7:443.
	for _, st := range slices.Sorted(maps.Keys(dialled)) {
		for i := range dialled[st] {
			row(fmt.Sprintf("0500000A:%04X", 33000+i), "0702000A:01BB", code[st], 0, inode, true)
			inode++
		}
	}
	row("0100007F:0CEA", "0100007F:9C40", code["ESTABLISHED"], 0, 99999, false)
	t.files["proc/4242/net/tcp"] = tcp.String()
	t.files["proc/4242/net/tcp6"] = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	t.links["proc/4242/fd/"+fmt.Sprint(fd)] = "/var/log/api.log"
}

// fixtureTrees are the stories.
func fixtureTrees() map[string]tree {
	out := map[string]tree{}
	out["stock"] = stock()

	// tuned: every limit lifted for a million connections, conntrack
	// unloaded: quiet.
	t := stock()
	t.files["proc/4242/limits"] = limits(1200000, 1200000)
	t.files["proc/sys/fs/nr_open"] = "2000000\n"
	t.files["proc/sys/fs/epoll/max_user_watches"] = "4000000\n"
	t.files["proc/sys/net/core/somaxconn"] = "65535\n"
	t.files["proc/sys/net/ipv4/tcp_max_syn_backlog"] = "65535\n"
	t.files["proc/sys/net/ipv4/tcp_mem"] = "1572864\t2097152\t3145728\n"
	t.files["proc/meminfo"] = "MemTotal:       65842028 kB\nMemFree:        60123400 kB\nMemAvailable:   62304112 kB\n"
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_max")
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_count")
	out["tuned"] = t

	// conntrack-full: a busy gateway whose table is 95% full.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "20000"}
	t.files["proc/sys/net/netfilter/nf_conntrack_max"] = "262144\n"
	t.files["proc/sys/net/netfilter/nf_conntrack_count"] = "249180\n"
	out["conntrack-full"] = t

	// nr-open-low: LimitNOFILE=infinity gives nr_open, and 2M are wanted.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "2000000"}
	t.files["proc/4242/limits"] = limits(1048576, 1048576)
	t.files["proc/sys/fs/epoll/max_user_watches"] = "8000000\n"
	t.files["proc/sys/net/ipv4/tcp_mem"] = "3145728\t4194304\t6291456\n"
	t.files["proc/meminfo"] = "MemTotal:      131841028 kB\nMemFree:       120123400 kB\nMemAvailable:  125304112 kB\n"
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_max")
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_count")
	out["nr-open-low"] = t

	// close-wait: the server never closes connections its clients closed.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "10000"}
	for k := range t.links {
		delete(t.links, k)
	}
	sockets(&t, 8080, map[string]int{"ESTABLISHED": 5, "CLOSE_WAIT": 41, "TIME_WAIT": 2}, nil)
	out["close-wait"] = t

	// close-wait-few: a handful in CLOSE_WAIT is a busy server's normal.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "10000"}
	for k := range t.links {
		delete(t.links, k)
	}
	sockets(&t, 8080, map[string]int{"ESTABLISHED": 30, "CLOSE_WAIT": 6}, nil)
	out["close-wait-few"] = t

	// close-wait-client: a client that never closes response bodies; the
	// upstream closed its idle connections.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "10000"}
	for k := range t.links {
		delete(t.links, k)
	}
	sockets(&t, 8080, map[string]int{"ESTABLISHED": 2}, map[string]int{"ESTABLISHED": 4, "CLOSE_WAIT": 37})
	out["close-wait-client"] = t

	// old-proxy: an old kernel with a copied tuning guide, dialling out.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "50000", "-dial"}
	t.files["proc/sys/net/ipv4/tcp_tw_recycle"] = "1\n"
	t.files["proc/sys/net/ipv4/tcp_tw_reuse"] = "1\n"
	t.files["proc/sys/net/ipv4/tcp_timestamps"] = "0\n"
	t.files["proc/sys/net/ipv4/tcp_syncookies"] = "0\n"
	t.files["proc/sys/net/ipv4/tcp_max_syn_backlog"] = "256\n"
	t.files["proc/sys/net/core/somaxconn"] = "128\n"
	t.files["proc/net/netstat"] = "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 1873 1873\n"
	t.files["proc/4242/status"] = "Name:\tproxy\nState:\tS (sleeping)\nPid:\t4242\nVmRSS:\t   48212 kB\n"
	out["old-proxy"] = t

	// container-memory: a 2 GiB container with a measured 20 KiB per
	// connection, GOMEMLIMIT unset, TCP buffers under pressure.
	t = stock()
	t.args = []string{"-pid", "4242", "-conns", "200000", "-bytes-per-conn", "20480"}
	t.files["proc/4242/limits"] = limits(1048576, 1048576)
	t.files["proc/4242/cgroup"] = "0::/kubepods.slice/pod7/ctr\n"
	t.files["sys/fs/cgroup/kubepods.slice/pod7/ctr/memory.max"] = "2147483648\n"
	t.files["sys/fs/cgroup/kubepods.slice/pod7/ctr/memory.current"] = "536870912\n"
	t.files["sys/fs/cgroup/kubepods.slice/pod7/memory.max"] = "max\n"
	t.files["sys/fs/cgroup/kubepods.slice/memory.max"] = "max\n"
	t.files["proc/net/sockstat"] = "sockets: used 61212\nTCP: inuse 60009 orphan 0 tw 14 alloc 60012 mem 61000\nUDP: inuse 2 mem 1\n"
	// This kernel's socket objects, for the kernel share of -bytes-per-conn.
	t.files["proc/slabinfo"] = "slabinfo - version: 2.1\n" +
		"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n" +
		"TCPv6                 26     26   2496   13    8 : tunables    0    0    0 : slabdata      2      2      0\n" +
		"TCP                60066  60125   2432   13    8 : tunables    0    0    0 : slabdata   4625   4625      0\n" +
		"eventpoll_pwq      60202  60928     72   56    1 : tunables    0    0    0 : slabdata   1088   1088      0\n" +
		"eventpoll_epi      60371  60448    128   32    1 : tunables    0    0    0 : slabdata   1889   1889      0\n" +
		"sock_inode_cache   60209  60211    832   19    4 : tunables    0    0    0 : slabdata   3169   3169      0\n" +
		"filp               61845  62013    256   21    1 : tunables    0    0    0 : slabdata   2953   2953      0\n" +
		"dentry            277043 277809    192   21    1 : tunables    0    0    0 : slabdata  13229  13229      0\n"
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_max")
	delete(t.files, "proc/sys/net/netfilter/nf_conntrack_count")
	out["container-memory"] = t
	return out
}

const fixtureDir = "testdata/fixtures"

func TestFixtureTrees(t *testing.T) {
	trees := fixtureTrees()
	if *writeFixtures {
		os.RemoveAll(fixtureDir)
		for name, tr := range trees {
			root := filepath.Join(fixtureDir, name)
			for p, c := range tr.files {
				mustWrite(t, filepath.Join(root, p), c)
			}
			for p, target := range tr.links {
				dst := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, dst); err != nil {
					t.Fatal(err)
				}
			}
			mustWrite(t, filepath.Join(root, "args"), strings.Join(tr.args, "\n")+"\n")
		}
	}
	for name, tr := range trees {
		root := filepath.Join(fixtureDir, name)
		for p, c := range tr.files {
			got, err := os.ReadFile(filepath.Join(root, p))
			if err != nil || !bytes.Equal(got, []byte(c)) {
				t.Errorf("%s/%s differs from fixtureTrees (go test ./host -run TestFixtureTrees -fixtures): %v", name, p, err)
			}
		}
		for p, target := range tr.links {
			got, err := os.Readlink(filepath.Join(root, p))
			if err != nil || got != target {
				t.Errorf("%s/%s: link %q, want %q (regenerate with -fixtures): %v", name, p, got, target, err)
			}
		}
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
