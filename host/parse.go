package host

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// Parsers of the kernel's text files. Each takes the file's bytes and
// returns typed values or an error that says what was wrong with the
// content; the caller adds the file name.

// ParseNofile reads the "Max open files" row of /proc/PID/limits: the soft
// and hard RLIMIT_NOFILE. "unlimited" is returned as math.MaxInt64 (the
// kernel never allows it for files, but a fixture might say it).
func ParseNofile(data []byte) (soft, hard int64, err error) {
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return 0, 0, fmt.Errorf("malformed \"Max open files\" row %q", strings.TrimSpace(line))
		}
		if soft, err = parseLimit(f[0]); err != nil {
			return 0, 0, err
		}
		if hard, err = parseLimit(f[1]); err != nil {
			return 0, 0, err
		}
		return soft, hard, nil
	}
	return 0, 0, fmt.Errorf("no \"Max open files\" row")
}

func parseLimit(s string) (int64, error) {
	if s == "unlimited" {
		return math.MaxInt64, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("limit %q is not a count", s)
	}
	return v, nil
}

// ParseInts reads the whitespace-separated integers of a sysctl file
// (somaxconn: one; ip_local_port_range: two; tcp_mem: three). want is the
// count expected.
func ParseInts(data []byte, want int) ([]int64, error) {
	f := strings.Fields(string(data))
	if len(f) != want {
		return nil, fmt.Errorf("want %d number(s), got %q", want, truncate(string(data), 60))
	}
	out := make([]int64, want)
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			// fs.file-max may be printed as an unsigned maximum on some kernels.
			u, uerr := strconv.ParseUint(s, 10, 64)
			if uerr != nil {
				return nil, fmt.Errorf("%q is not an integer", truncate(s, 30))
			}
			v = int64(min(u, math.MaxInt64))
		}
		out[i] = v
	}
	return out, nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// TCP states as /proc/net/tcp numbers them (include/net/tcp_states.h).
var tcpStates = [...]string{
	1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
	6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING",
	12: "NEW_SYN_RECV",
}

// Socket is one row of /proc/net/tcp or tcp6.
type Socket struct {
	Local  netip.AddrPort
	Remote netip.AddrPort
	State  string
	// RxQueue is, for a listening socket, the accept queue's current length
	// (connections completed and not yet accepted); otherwise unread bytes.
	RxQueue uint64
	TxQueue uint64
	Inode   uint64
}

// ParseTCP reads /proc/net/tcp or /proc/net/tcp6. Malformed rows are
// counted in bad and skipped: one torn line (the file is not read
// atomically) must not lose the rest.
func ParseTCP(data []byte) (socks []Socket, bad int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 512), 64<<10)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.Contains(line, "local_address") {
				return nil, 0, fmt.Errorf("no header row (want \"sl local_address rem_address st ...\")")
			}
			continue
		}
		s, ok := parseTCPRow(line)
		if !ok {
			if strings.TrimSpace(line) != "" {
				bad++
			}
			continue
		}
		socks = append(socks, s)
	}
	if err := sc.Err(); err != nil {
		return socks, bad, fmt.Errorf("scanning: %w", err)
	}
	if first {
		return nil, 0, fmt.Errorf("empty file")
	}
	return socks, bad, nil
}

func parseTCPRow(line string) (Socket, bool) {
	f := strings.Fields(line)
	// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
	if len(f) < 10 {
		return Socket{}, false
	}
	local, ok1 := parseHexAddr(f[1])
	remote, ok2 := parseHexAddr(f[2])
	st, err := strconv.ParseUint(f[3], 16, 8)
	if !ok1 || !ok2 || err != nil || int(st) >= len(tcpStates) || tcpStates[st] == "" {
		return Socket{}, false
	}
	txs, rxs, ok := strings.Cut(f[4], ":")
	if !ok {
		return Socket{}, false
	}
	tx, err1 := strconv.ParseUint(txs, 16, 64)
	rx, err2 := strconv.ParseUint(rxs, 16, 64)
	inode, err3 := strconv.ParseUint(f[9], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Socket{}, false
	}
	return Socket{Local: local, Remote: remote, State: tcpStates[st], TxQueue: tx, RxQueue: rx, Inode: inode}, true
}

// parseHexAddr reads "0100007F:1F90" (IPv4) or the 32-digit IPv6 form. The
// kernel prints each 32-bit word of the address in host byte order
// (little endian on every Linux architecture schedoctor runs on).
func parseHexAddr(s string) (netip.AddrPort, bool) {
	hs, ps, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	port, err := strconv.ParseUint(ps, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(hs)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), true
}

// Sockstat is /proc/net/sockstat (and sockstat6 for the TCP6 row).
type Sockstat struct {
	TCPInUse  int64 `json:"tcp_inuse"`
	TCPOrphan int64 `json:"tcp_orphan"`
	TCPTW     int64 `json:"tcp_tw"`
	TCPAlloc  int64 `json:"tcp_alloc"`
	// TCPMemPages is the TCP buffer memory of the whole host in pages, the
	// figure tcp_mem is compared with.
	TCPMemPages int64 `json:"tcp_mem_pages"`
	TCP6InUse   int64 `json:"tcp6_inuse"`
}

// ParseSockstat reads the TCP row of /proc/net/sockstat.
func ParseSockstat(data []byte) (Sockstat, error) {
	var s Sockstat
	row, ok := keyedRow(data, "TCP:")
	if !ok {
		return s, fmt.Errorf("no TCP: row")
	}
	for k, dst := range map[string]*int64{"inuse": &s.TCPInUse, "orphan": &s.TCPOrphan, "tw": &s.TCPTW, "alloc": &s.TCPAlloc, "mem": &s.TCPMemPages} {
		v, ok := row[k]
		if !ok {
			return s, fmt.Errorf("TCP: row has no %q", k)
		}
		*dst = v
	}
	return s, nil
}

// ParseSockstat6 reads the TCP6 in-use count of /proc/net/sockstat6.
func ParseSockstat6(data []byte) (int64, error) {
	row, ok := keyedRow(data, "TCP6:")
	if !ok {
		return 0, fmt.Errorf("no TCP6: row")
	}
	v, ok := row["inuse"]
	if !ok {
		return 0, fmt.Errorf("TCP6: row has no \"inuse\"")
	}
	return v, nil
}

// keyedRow reads a "TCP: inuse 1 orphan 0 ..." row as a map.
func keyedRow(data []byte, prefix string) (map[string]int64, bool) {
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		m := map[string]int64{}
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseInt(f[i+1], 10, 64); err == nil {
				m[f[i]] = v
			}
		}
		return m, true
	}
	return nil, false
}

// ParseNetstat reads the TcpExt counters of /proc/net/netstat (a header
// row of names followed by a row of values).
func ParseNetstat(data []byte) (map[string]int64, error) {
	var names []string
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, "TcpExt:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if names == nil {
			names = f
			continue
		}
		if len(f) != len(names) {
			return nil, fmt.Errorf("TcpExt: %d names but %d values", len(names), len(f))
		}
		m := make(map[string]int64, len(f))
		for i, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("TcpExt %s: %q is not a number", names[i], truncate(s, 30))
			}
			m[names[i]] = v
		}
		return m, nil
	}
	return nil, fmt.Errorf("no TcpExt: rows")
}

// ParseMeminfo returns a /proc/meminfo field in bytes ("MemAvailable").
func ParseMeminfo(data []byte, key string) (int64, bool) {
	return kbField(data, key+":")
}

// kbField reads "Key:   1234 kB" from meminfo or /proc/PID/status.
func kbField(data []byte, key string) (int64, bool) {
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || v < 0 {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// StatusBytes reads a "VmRSS:  1234 kB" field of /proc/PID/status in bytes.
func StatusBytes(data []byte, key string) (int64, bool) { return kbField(data, key+":") }

// EnvValue returns the value of name in a NUL-separated /proc/PID/environ.
func EnvValue(data []byte, name string) (string, bool) {
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == name {
			return string(v), true
		}
	}
	return "", false
}
