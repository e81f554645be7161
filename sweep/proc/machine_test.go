package proc

import (
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	b := []byte("cpu  1000 20 300 9000 50 4 6 70 100 0\ncpu0 500 10 150 4500 25 2 3 35 50 0\nintr 1 2 3\n")
	got, err := ParseProcStat(b)
	if want := time.Duration(1000+20+300+4+6+70) * 10 * time.Millisecond; err != nil || got != want {
		t.Errorf("ParseProcStat = %v, %v; want %v (idle, iowait and guest left out)", got, err, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7\n", "cpu 1 2 3\n", "cpu 1 2 x 4 5 6 7\n"} {
		if _, err := ParseProcStat([]byte(bad)); err == nil {
			t.Errorf("ParseProcStat(%q): want an error", bad)
		}
	}
}
