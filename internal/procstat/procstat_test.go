package procstat

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	// A command name with spaces and parentheses: the fields count from
	// the last ')'.
	const line = "4242 (a) b) (c) S 1 4243 4244 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 987654 1000 100 18446744073709551615\n"
	st, err := Parse([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{PID: 4242, PPID: 1, PGID: 4243, SID: 4244, Comm: "a) b) (c", State: 'S', UTime: 250, STime: 50, Start: 987654}
	if st != want {
		t.Errorf("Parse = %+v\nwant    %+v", st, want)
	}
	if st.CPU() != 3*time.Second {
		t.Errorf("CPU() = %v, want 3s", st.CPU())
	}
	for _, bad := range []string{
		"",
		"1 (x S 1",      // no closing parenthesis
		"1 (x) S 1 2 3", // too few fields
		"x (y) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0",              // no pid
		"1 (x) S -1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0",             // negative ppid
		"1 (x) SS 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 0",             // a state of two letters
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999 1 0 0 20 0 1 0 5 0 0", // a CPU time of centuries
	} {
		if st, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, st)
		}
	}
}

// TestRead reads this process's own line, and a file of another process's
// line is refused.
func TestRead(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here:", err)
	}
	st, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() || st.Start == 0 {
		t.Errorf("Read(self) = %+v; pid %d, ppid %d", st, os.Getpid(), os.Getppid())
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stat")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	other := os.Getpid() + 1
	if _, err := ReadFile(path, other); err == nil || !strings.Contains(err.Error(), "of process "+strconv.Itoa(os.Getpid())) {
		t.Errorf("ReadFile of another process's line: error %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("4242 (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 987654 1000 100 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Parse(b)
		if err != nil {
			return
		}
		if st.PID <= 0 || st.PPID < 0 || st.PGID < 0 || st.SID < 0 || st.CPU() < 0 {
			t.Errorf("%q: out-of-range values %+v", b, st)
		}
	})
}
