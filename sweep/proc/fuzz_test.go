package proc

import (
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
