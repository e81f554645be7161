package proc

import (
	"strings"
	"testing"
	"time"
)

func TestParseSchedstat(t *testing.T) {
	on, wait, err := ParseSchedstat([]byte("388581 2839521 2\n"))
	if err != nil || on != 388581*time.Nanosecond || wait != 2839521*time.Nanosecond {
		t.Errorf("%v %v %v", on, wait, err)
	}
	for _, bad := range []string{"", "1 2", "1 2 3 4", "1 -2 3", "a 2 3", "99999999999999999999 1 1"} {
		if _, _, err := ParseSchedstat([]byte(bad)); err == nil {
			t.Errorf("ParseSchedstat(%q) accepted", bad)
		}
	}
}

func FuzzParseSchedstat(f *testing.F) {
	f.Add([]byte("388581 2839521 2\n"))
	f.Add([]byte("0 0 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		on, wait, err := ParseSchedstat(b)
		if err == nil && (on < 0 || wait < 0) {
			t.Fatalf("%q: negative %v %v", b, on, wait)
		}
	})
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("cpu  10 2 3 400 5 6 7 8 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n"))
	f.Add([]byte("cpu 1 2 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := ParseProcStat(b); err == nil && d < 0 {
			t.Errorf("negative busy time %v", d)
		}
	})
}

const netTCPSample = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 123457 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
`

func TestParseNetTCP(t *testing.T) {
	got, err := ParseNetTCP([]byte(netTCPSample), 8080)
	if err != nil || len(got) != 1 || !got[123456] {
		t.Errorf("port 8080: %v %v, want the listening socket 123456 only (not the established one)", got, err)
	}
	if got, err := ParseNetTCP([]byte(netTCPSample), 81); err != nil || len(got) != 0 {
		t.Errorf("port 81: %v %v, want none", got, err)
	}
	for _, bad := range []string{"   0: 0100007F 00000000:0000 0A 0 0 0 0 0 1 2\n", "   0: 0100007F:ZZZZ 0:0 0A 0 0 0 0 0 1 2\n", "   0: 1:1F90 0:0 0A 0 0 0 0 0 x\n", "short line\n"} {
		if _, err := ParseNetTCP([]byte(bad), 8080); err == nil {
			t.Errorf("ParseNetTCP(%q) accepted", bad)
		}
	}
}

func FuzzParseNetTCP(f *testing.F) {
	f.Add([]byte(netTCPSample), 8080)
	f.Fuzz(func(t *testing.T, b []byte, port int) {
		got, err := ParseNetTCP(b, port)
		if err == nil && got[0] {
			t.Errorf("inode 0 reported")
		}
	})
}

// TestParseStat: the cleanup's view of a stat line (internal/procstat
// parses it; its tests cover the layout and the bad lines).
func TestParseStat(t *testing.T) {
	const line = "4242 (a) b) (c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 987654 1000 100 18446744073709551615\n"
	pi, err := parseStat(4242, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if pi.PID != 4242 || pi.Comm != "a) b) (c" || pi.State != 'S' || pi.PPID != 1 || pi.PGID != 4242 || pi.SID != 4242 || pi.Start != 987654 || pi.CPU != 3*time.Second {
		t.Errorf("%+v", pi)
	}
	if _, err := parseStat(7, []byte("7 (x S 1")); err == nil || !strings.HasPrefix(err.Error(), "/proc/7/stat: ") {
		t.Errorf("a bad line: error %v, want it to name /proc/7/stat", err)
	}
}
