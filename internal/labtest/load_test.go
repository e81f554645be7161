package labtest

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/sweep/proc"
)

// The test binary doubles as a CPU-bound process: LABTEST_SPIN=duration.
func TestMain(m *testing.M) {
	if d, err := time.ParseDuration(os.Getenv("LABTEST_SPIN")); err == nil {
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMachineBusy(t *testing.T) {
	for _, tc := range []struct {
		mc   Machine
		busy bool
	}{
		{Machine{CPUs: 2, OtherCPUs: 0.03, LoadAvg: 0.4}, false},
		{Machine{CPUs: 2, OtherCPUs: 0.45, LoadAvg: 2.9}, false}, // just below both
		{Machine{CPUs: 2, OtherCPUs: 0.6, LoadAvg: 0.4}, true},
		{Machine{CPUs: 2, OtherCPUs: 0.1, LoadAvg: 3.5}, false}, // the window was quiet; the average lags
		{Machine{CPUs: 2, OtherCPUs: -1, LoadAvg: 3.5}, true},
		{Machine{CPUs: 2, OtherCPUs: -1, LoadAvg: 2.5}, false},
		{Machine{CPUs: 2, OtherCPUs: -1, LoadAvg: -1}, false}, // unknown is not busy
		{Machine{CPUs: 8, OtherCPUs: 1.5, LoadAvg: 6}, false},
	} {
		if got := tc.mc.Busy(); got != tc.busy {
			t.Errorf("%s: busy %v, want %v", tc.mc, got, tc.busy)
		}
	}
	if s := (Machine{CPUs: 2, Seconds: 4.2, OtherCPUs: 1.31, LoadAvg: 5.6}).String(); s != "other processes used 1.31 of 2 CPUs over 4.2s; load average 5.60" {
		t.Errorf("String() = %q", s)
	}
}

// TestMeterCountsOthersNotOurs: a spinning process counts as another
// process's CPU until this process reaps it, then as this test's own.
// The bounds come from the spinner's own CPU time (read from its zombie's
// /proc/PID/stat), so they hold however busy the machine is.
func TestMeterCountsOthersNotOurs(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("needs /proc/stat")
	}
	m := StartMeter()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LABTEST_SPIN=400ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Wait for it to exit without reaping it.
	var spun float64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+2:]))
		if f[0] == "Z" {
			u, _ := strconv.ParseFloat(f[11], 64)
			s, _ := strconv.ParseFloat(f[12], 64)
			spun = (u + s) / 100
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the spinner did not exit")
		}
	}
	before := m.Machine()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	after := m.Machine()
	t.Logf("spinner used %.2fs CPU; before reaping: %s; after: %s", spun, before, after)
	if spun < 0.05 {
		t.Skipf("the spinner got only %.2fs of CPU in 400ms: nothing to tell apart", spun)
	}
	tick := 0.03 // /proc/stat and stat counts are in 10ms ticks; three of slack
	if got := before.OtherCPUs * before.Seconds; got < spun-tick {
		t.Errorf("before reaping, others' CPU %.3fs < the spinner's %.2fs", got, spun)
	}
	drop := before.OtherCPUs*before.Seconds - after.OtherCPUs*after.Seconds
	if drop < spun-tick-0.02 || drop > spun+tick+0.02 {
		t.Errorf("reaping moved %.3fs of CPU from others to ours, want the spinner's %.2fs", drop, spun)
	}
	if runtime.NumCPU() > 0 && after.CPUs != runtime.NumCPU() {
		t.Errorf("CPUs %d", after.CPUs)
	}
}

// TestParseProcStatAgrees: this package's /proc/stat reader is a copy of
// sweep/proc's (an import would make a cycle in sweep/proc's tests).
func TestParseProcStatAgrees(t *testing.T) {
	for _, in := range []string{
		"cpu  10 2 3 400 5 6 7 8 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n",
		"cpu 1 2 3\n", "cpu 1 2 3 4 5 6 x\n", "intr 1\n",
	} {
		a, errA := parseProcStat([]byte(in))
		b, errB := proc.ParseProcStat([]byte(in))
		if a != b || (errA == nil) != (errB == nil) {
			t.Errorf("%q: %v %v here, %v %v in sweep/proc", in, a, errA, b, errB)
		}
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		a, errA := parseProcStat(b)
		p, errP := proc.ParseProcStat(b)
		if a != p || errA != nil || errP != nil {
			t.Errorf("this machine's /proc/stat: %v %v here, %v %v in sweep/proc", a, errA, p, errP)
		}
	}
}
