package host

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedoctor/schedoctor/finding"
)

func TestParseTCP(t *testing.T) {
	data := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000011 00:00000000 00000000  1000        0 555 1 0 100 0 0 10 0\n" +
		"   1: 0100007F:1F90 0200007F:9C40 08 00000000:00000000 00:00000000 00000000  1000        0 556 1 0 20 4 30 10 -1\n" +
		"   2: torn line\n" +
		"   3: 0100007F:1F90 0200007F:9C41 06 00000000:00000000 03:00001000 00000000     0        0 0 3 0\n"
	socks, bad, err := ParseTCP([]byte(data))
	if err != nil || bad != 1 || len(socks) != 3 {
		t.Fatalf("got %d sockets, %d bad, %v; want 3, 1", len(socks), bad, err)
	}
	if s := socks[0]; s.State != "LISTEN" || s.Local.String() != "127.0.0.1:8080" || s.RxQueue != 17 || s.Inode != 555 {
		t.Errorf("listener: %+v", s)
	}
	if s := socks[1]; s.State != "CLOSE_WAIT" || s.Remote.String() != "127.0.0.2:40000" {
		t.Errorf("close-wait: %+v", s)
	}
	if socks[2].State != "TIME_WAIT" || socks[2].Inode != 0 {
		t.Errorf("time-wait: %+v", socks[2])
	}
	v6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0 100 0 0 10 0\n" +
		"   1: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000200007F:A000 01 00000000:00000000 00:00000000 00000000  1000        0 778 1 0 100 0 0 10 0\n"
	socks, _, err = ParseTCP([]byte(v6))
	if err != nil || len(socks) != 2 {
		t.Fatalf("v6: %v %v", socks, err)
	}
	if socks[0].Local.String() != "[::1]:8080" {
		t.Errorf("v6 loopback: %v", socks[0].Local)
	}
	if socks[1].Local.String() != "127.0.0.1:8080" {
		t.Errorf("v4-mapped: %v", socks[1].Local)
	}
	for _, in := range []string{"", "no header\n"} {
		if _, _, err := ParseTCP([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func FuzzParseTCP(f *testing.F) {
	f.Add([]byte("  sl  local_address rem_address   st tx_queue rx_queue\n   0: 0100007F:1F90 00000000:0000 0A 00000000:00000011 00:00000000 00000000  1000        0 555 1\n"))
	f.Add([]byte("local_address\n0: ZZ:1 00:0 99 x:y a b c d e\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		socks, _, err := ParseTCP(data)
		if err != nil && len(socks) > 0 {
			t.Errorf("error %v with %d sockets", err, len(socks))
		}
	})
}

func FuzzParseSockstat(f *testing.F) {
	f.Add([]byte("TCP: inuse 9 orphan 0 tw 14 alloc 12 mem 3\n"))
	f.Add([]byte("TCP: inuse\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseSockstat(data)
		ParseNetstat(data)
		ParseNofile(data)
		ParseInts(data, 3)
	})
}

func TestParseNofile(t *testing.T) {
	soft, hard, err := ParseNofile([]byte(limits(1024, 524288)))
	if err != nil || soft != 1024 || hard != 524288 {
		t.Errorf("got %d %d %v", soft, hard, err)
	}
	soft, hard, err = ParseNofile([]byte("Max open files            unlimited            unlimited            files\n"))
	if err != nil || soft != math.MaxInt64 || hard != math.MaxInt64 {
		t.Errorf("unlimited: %d %d %v", soft, hard, err)
	}
	for _, in := range []string{"", "Max open files 12\n", "Max open files -1 5\n", "Max open files x y\n"} {
		if _, _, err := ParseNofile([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestHeadroom(t *testing.T) {
	for n, want := range map[int64]int64{1_000_000: 1_110_000, 2_000_000: 2_210_000, 10: 1040, 50_000: 56_100} {
		if got := headroom(n); got != want {
			t.Errorf("headroom(%d) = %d, want %d", n, got, want)
		}
	}
}

// inspectFixture inspects a fixture tree with changes: files to write
// over (content "" removes the file).
func inspectFixture(t *testing.T, name string, opt Options, changes map[string]string) *Summary {
	t.Helper()
	root := t.TempDir()
	tr := fixtureTrees()[name]
	for p, c := range tr.files {
		mustWrite(t, filepath.Join(root, p), c)
	}
	for p, target := range tr.links {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range changes {
		if c == "" {
			os.Remove(filepath.Join(root, p))
			continue
		}
		mustWrite(t, filepath.Join(root, p), c)
	}
	opt.Sysroot, opt.PID = root, 4242
	if opt.Conns == 0 {
		opt.Conns = 1_000_000
	}
	s, err := Inspect(opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rules(fs []finding.Finding) map[string]int {
	m := map[string]int{}
	for _, f := range fs {
		m[f.Rule]++
	}
	return m
}

// TestRulesNegatives: settings close to the thresholds stay quiet, and the
// ones just past them warn.
func TestRulesNegatives(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fixture string
		opt     Options
		changes map[string]string
		rule    string
		want    int
	}{
		{"somaxconn at the 5.4 default", "tuned", Options{}, map[string]string{"proc/sys/net/core/somaxconn": "4096\n"}, "SD602", 0},
		{"somaxconn 1024", "tuned", Options{}, map[string]string{"proc/sys/net/core/somaxconn": "1024\n"}, "SD602", 1},
		{"somaxconn 1024 for 500 connections", "tuned", Options{Conns: 500}, map[string]string{"proc/sys/net/core/somaxconn": "1024\n"}, "SD602", 0},
		{"small syn backlog with cookies", "tuned", Options{}, map[string]string{"proc/sys/net/ipv4/tcp_max_syn_backlog": "128\n"}, "SD602", 0},
		{"small syn backlog without cookies", "tuned", Options{}, map[string]string{"proc/sys/net/ipv4/tcp_max_syn_backlog": "128\n", "proc/sys/net/ipv4/tcp_syncookies": "0\n"}, "SD602", 1},
		{"tw_recycle present and 0", "tuned", Options{}, map[string]string{"proc/sys/net/ipv4/tcp_tw_recycle": "0\n"}, "SD605", 0},
		{"tw_recycle 1", "tuned", Options{}, map[string]string{"proc/sys/net/ipv4/tcp_tw_recycle": "1\n"}, "SD605", 1},
		{"timestamps off, server only, tw_reuse default", "tuned", Options{}, map[string]string{"proc/sys/net/ipv4/tcp_timestamps": "0\n"}, "SD605", 0},
		{"timestamps off for a dialer", "tuned", Options{Dial: true, Destinations: 100}, map[string]string{"proc/sys/net/ipv4/tcp_timestamps": "0\n"}, "SD605", 1},
		{"ports for a server", "tuned", Options{}, nil, "SD603", 0},
		{"ports for a dialer over enough destinations", "tuned", Options{Dial: true, Destinations: 40}, nil, "SD603", 0},
		{"ports for a dialer", "tuned", Options{Dial: true, Destinations: 10}, nil, "SD603", 1},
		{"conntrack 79% full", "conntrack-full", Options{Conns: 100}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "207093\n"}, "SD604", 0},
		{"conntrack 80% full", "conntrack-full", Options{Conns: 100}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "209716\n"}, "SD604", 1},
		{"epoll watches exactly the target", "tuned", Options{}, map[string]string{"proc/sys/fs/epoll/max_user_watches": "1000000\n"}, "SD606", 0},
		{"epoll watches one short", "tuned", Options{}, map[string]string{"proc/sys/fs/epoll/max_user_watches": "999999\n"}, "SD606", 1},
		{"nofile hard high, soft low", "tuned", Options{}, map[string]string{"proc/4242/limits": limits(1024, 1200000)}, "SD601", 0},
		{"tcp buffers below pressure", "tuned", Options{}, map[string]string{"proc/net/sockstat": "TCP: inuse 9 orphan 0 tw 14 alloc 12 mem 2097151\n"}, "SD607", 0},
		{"tcp buffers at pressure", "tuned", Options{}, map[string]string{"proc/net/sockstat": "TCP: inuse 9 orphan 0 tw 14 alloc 12 mem 2097152\n"}, "SD607", 1},
		{"measured memory fits", "tuned", Options{PerConn: &PerConn{ProcessBytes: 40000, KernelBytes: 4000, Source: "probe"}}, nil, "SD607", 0},
		{"measured memory does not fit", "tuned", Options{PerConn: &PerConn{ProcessBytes: 80000, KernelBytes: 4000, Source: "probe"}}, nil, "SD607", 1},
		// The table of this machine (Linux 6.18): 262144 entries, 0 in use
		// while loopback connections come and go: no rule asks for
		// tracking. An info, not one of the limits ranked in the answer.
		{"conntrack loaded, tracking nothing, sockets present", "stock", Options{}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "0\n"}, "SD604", 1},
		{"conntrack empty and no TCP socket either", "stock", Options{}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "0\n", "proc/net/sockstat": "TCP: inuse 0 orphan 0 tw 0 alloc 0 mem 0\n", "proc/net/sockstat6": "TCP6: inuse 0\n"}, "SD604", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := inspectFixture(t, tc.fixture, tc.opt, tc.changes)
			fs := Findings(s)
			if got := rules(fs)[tc.rule]; got != tc.want {
				t.Errorf("%s: %d findings, want %d: %v", tc.rule, got, tc.want, fs)
			}
		})
	}
}

// TestConntrackDormant: an empty table while the namespace has TCP sockets
// is not counted in the answer and only informs; an empty table on a host
// with no socket at all is no evidence, and stays a warning.
func TestConntrackDormant(t *testing.T) {
	sev := func(s *Summary) finding.Severity {
		for _, f := range Findings(s) {
			if f.Rule == "SD604" {
				return f.Severity
			}
		}
		t.Fatal("no SD604")
		return 0
	}
	s := inspectFixture(t, "stock", Options{}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "0\n"})
	if got := sev(s); got != finding.Info {
		t.Errorf("dormant table: severity %v, want info", got)
	}
	if strings.Contains(s.Answer.First+s.Answer.Then, "conntrack") {
		t.Errorf("dormant table in the answer: %+v", s.Answer)
	}
	s = inspectFixture(t, "stock", Options{}, map[string]string{"proc/sys/net/netfilter/nf_conntrack_count": "0\n",
		"proc/net/sockstat": "TCP: inuse 0 orphan 0 tw 0 alloc 0 mem 0\n", "proc/net/sockstat6": "TCP6: inuse 0\n"})
	if got := sev(s); got != finding.Warning {
		t.Errorf("empty table, no sockets: severity %v, want warning", got)
	}
}

// TestProxyDescriptors: a probe that saw two descriptors per connection
// (a proxy dials a backend per client) halves the descriptor-bound limits
// and sizes the fix for twice the descriptors.
func TestProxyDescriptors(t *testing.T) {
	one := inspectFixture(t, "tuned", Options{Conns: 600000, PerConn: &PerConn{ProcessBytes: 1000, KernelBytes: 3712, Source: "probe"}}, nil)
	two := inspectFixture(t, "tuned", Options{Conns: 600000, PerConn: &PerConn{ProcessBytes: 1000, KernelBytes: 7424, Source: "probe", Descriptors: 2}}, nil)
	capOf := func(s *Summary, name string) int64 {
		for _, l := range s.Limits {
			if l.Name == name {
				return l.Capacity
			}
		}
		t.Fatalf("no limit %s", name)
		return 0
	}
	for _, name := range []string{"RLIMIT_NOFILE (hard)", "fs.epoll.max_user_watches"} {
		if a, b := capOf(one, name), capOf(two, name); b != a/2 {
			t.Errorf("%s: %d with one descriptor per connection, %d with two, want half", name, a, b)
		}
	}
	if rules(Findings(one))["SD601"] != 0 {
		t.Errorf("one descriptor per connection: %v", Findings(one))
	}
	var fix string
	for _, f := range Findings(two) {
		if f.Rule == "SD601" && strings.Contains(f.Text(), "RLIMIT_NOFILE") {
			fix = f.Fix
		}
	}
	if !strings.Contains(fix, "LimitNOFILE=1330000") {
		t.Errorf("fix for 1.2M descriptors: %q", fix)
	}
}

// TestMemoryFindingSeverity: a measured cost that does not fit warns, an
// assumed one only informs.
func TestMemoryFindingSeverity(t *testing.T) {
	s := inspectFixture(t, "stock", Options{}, nil)
	for _, f := range Findings(s) {
		if f.Rule == "SD607" && strings.Contains(f.Text(), "fit in memory") && f.Severity != finding.Info {
			t.Errorf("assumed cost: %v %s", f.Severity, f.Text())
		}
	}
	s = inspectFixture(t, "stock", Options{PerConn: &PerConn{ProcessBytes: 8192, KernelBytes: 4096, Source: "probe"}}, nil)
	found := false
	for _, f := range Findings(s) {
		if f.Rule == "SD607" && strings.Contains(f.Text(), "fit in memory") {
			found = f.Severity == finding.Warning
		}
	}
	if !found {
		t.Error("measured cost that does not fit: no warning")
	}
}

// TestCgroupMemoryFirst: the cgroup's headroom, not the host's
// MemAvailable, sets the memory ceiling, and GOMEMLIMIT is advised.
func TestCgroupMemoryFirst(t *testing.T) {
	s := inspectFixture(t, "container-memory", Options{Conns: 200000}, nil)
	m := s.Memory
	if m.AvailableBytes != 2147483648-536870912 || !strings.HasSuffix(m.AvailableFrom, "/pod7/ctr/memory.max") {
		t.Errorf("memory %+v", m)
	}
	if len(s.Answer.Runtime) == 0 || !strings.Contains(s.Answer.Runtime[0], "GOMEMLIMIT=1843MiB") {
		t.Errorf("runtime advice %q", s.Answer.Runtime)
	}
	s = inspectFixture(t, "container-memory", Options{Conns: 200000}, map[string]string{"proc/4242/environ": "GOMEMLIMIT=1800MiB\x00"})
	if strings.Contains(s.Answer.Runtime[0], "not set") {
		t.Errorf("GOMEMLIMIT set but advised: %q", s.Answer.Runtime[0])
	}
}

func TestInspectErrors(t *testing.T) {
	stock := filepath.Join(fixtureDir, "stock")
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Sysroot: stock, PID: 4242}, "positive number"},
		{Options{Sysroot: stock, PID: 777, Conns: 1}, "process 777 does not exist"},
		{Options{Sysroot: t.TempDir(), Conns: 1}, "nothing could be analysed"},
		{Options{Sysroot: filepath.Join(stock, "args"), Conns: 1}, "not a directory"},
		{Options{Sysroot: stock, PID: -1, Conns: 1}, "not a process ID"},
	} {
		if _, err := Inspect(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opt, err, tc.want)
		}
	}
}

// TestWatch: growth that ends at its peak warns; a sawtooth of the same
// size does not.
func TestWatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []int
		want   int
	}{
		{"steady growth", []int{100, 110, 120, 130, 140}, 1},
		{"too little", []int{100, 104, 108, 112, 115}, 0},
		{"sawtooth", []int{100, 140, 100, 140, 100, 141}, 0},
		{"fell back", []int{100, 120, 140, 160, 150}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Summary{Target: Target{PID: 4242}, Process: &Process{ByState: map[string]int{}},
				Watch: &Watch{Seconds: 4, FDs: tc.series, CloseWait: make([]int, len(tc.series))}, Nofile: &Nofile{Hard: 1024}}
			if got := rules(leakFindings(s))["SD608"]; got != tc.want {
				t.Errorf("%v: %d findings, want %d", tc.series, got, tc.want)
			}
		})
	}
}

// TestAcceptQueue: a listener whose accept queue holds 90% of somaxconn
// warns; 89% does not.
func TestAcceptQueue(t *testing.T) {
	table := func(queue int) string {
		return "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
			"   0: 00000000:1F90 00000000:0000 0A 00000000:" + strings.ToUpper(strconv.FormatInt(int64(queue), 16)) + " 00:00000000 00000000  1000        0 20001 1 0 20 4 30 10 -1\n"
	}
	for queue, want := range map[int]int{3687: 1, 3686: 0, 0: 0} {
		s := inspectFixture(t, "tuned", Options{}, map[string]string{"proc/sys/net/core/somaxconn": "4096\n", "proc/4242/net/tcp": table(queue)})
		got := 0
		for _, f := range Findings(s) {
			if f.Rule == "SD602" && strings.Contains(f.Text(), "wait to be accepted on 0.0.0.0:8080") {
				got++
			}
		}
		if got != want {
			t.Errorf("queue %d of 4096: %d findings, want %d", queue, got, want)
		}
	}
}

// TestDialsDetected: a process whose own outgoing connections hold half the
// port range is a dialer without -dial; one fewer is not.
func TestDialsDetected(t *testing.T) {
	rng := []int64{32768, 60999} // 28232 ports
	for outbound, want := range map[int]bool{14116: true, 14115: false, 0: false} {
		s := &Summary{Process: &Process{Outbound: outbound}}
		if got := dials(s, Options{}, rng); got != want {
			t.Errorf("%d outbound: dials %v, want %v", outbound, got, want)
		}
	}
}

// TestPortRangeFix: the fix widens the range from 10240, not 1024, and
// reserves the process's own listening ports inside the new range (a dial
// holding one would make the service fail to bind on restart).
func TestPortRangeFix(t *testing.T) {
	s := &Summary{Conns: 100000, Dial: true, settings: map[string]setting{
		"net.ipv4.ip_local_port_range": {file: "/proc/sys/net/ipv4/ip_local_port_range", v: []int64{32768, 60999}},
	}, Process: &Process{ByState: map[string]int{}, Listeners: []Listener{{Addr: "127.0.0.1:24290"}, {Addr: "[::]:8080"}, {Addr: "[::1]:24290"}}}}
	computeLimits(s, Options{Dial: true, Conns: 100000})
	var fix string
	for _, l := range s.Limits {
		if l.Rule == "SD603" {
			fix = l.Fix
		}
	}
	if !strings.Contains(fix, "ip_local_port_range = 10240 65535") || !strings.Contains(fix, "ip_local_reserved_ports = 24290\n") && !strings.HasSuffix(fix, "ip_local_reserved_ports = 24290") {
		t.Errorf("fix %q", fix)
	}
	if strings.Contains(fix, "8080") || strings.Contains(fix, "= 1024 ") {
		t.Errorf("fix %q: reserves a port below the range, or widens from 1024", fix)
	}
}

// TestFDLinksUnreadable: when the fd links cannot be read (another user's
// process; here an entry readlink refuses), the descriptors are still
// counted and the sockets are unknown, with a warning, not "0 sockets".
func TestFDLinksUnreadable(t *testing.T) {
	root := t.TempDir()
	tr := fixtureTrees()["close-wait"]
	for p, c := range tr.files {
		mustWrite(t, filepath.Join(root, p), c)
	}
	fdDir := filepath.Join(root, "proc/4242/fd")
	for i := range 40 {
		// A directory where a link should be: readlink fails (EINVAL)
		// as it fails with EACCES on a process we may not trace.
		if err := os.MkdirAll(filepath.Join(fdDir, strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Inspect(Options{Sysroot: root, PID: 4242, Conns: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if s.Process == nil || s.Process.FDs != 40 || s.Process.Sockets != -1 {
		t.Fatalf("process %+v, want 40 descriptors and sockets unknown", s.Process)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "sockets cannot be told apart") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if n := rules(Findings(s))["SD608"]; n != 0 {
		t.Errorf("SD608 without a join: %d", n)
	}
}
