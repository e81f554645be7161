package labtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A test that measures runtime behaviour (scheduling latency, CPU shares,
// a knee) asserts what the program does alone on the machine. On a machine
// that other processes keep busy (go test runs packages in parallel, a
// build runs beside it) the same program measures differently, and the
// honest outcome is neither a pass nor a failure but a skip that says what
// was measured. Every such test uses this one helper, so that "busy" means
// the same everywhere:
//
//	m := labtest.StartMeter()
//	... run the program, wait for it ...
//	if !ok {
//		m.SkipIfBusy(t, "no SD204 warning in three runs") // skips with the figures when busy
//		t.Fatal("no SD204 warning in three runs")         // a quiet machine fails
//	}
//
// A quiet machine never skips: the figures are measured over the test's
// own window, not guessed.

// Busy thresholds. OtherShareBusy is the share of the machine's CPUs that
// other processes used, on average over the window, above which the
// window is busy: on 2 CPUs, half a CPU taken by others. A quiet machine
// measures a few hundredths (the shell, the go command waiting), far
// below it. The load average is a one-minute average, late to rise and to
// fall: it counts only where the window's CPU cannot be measured, and
// then only well above the CPUs.
const (
	OtherShareBusy   = 0.25
	LoadPerCPUBusy   = 1.5
	minWindowSeconds = 0.05 // a shorter window's /proc/stat ticks (10ms) say little
)

// Meter measures how busy the machine is over a window: the CPU that
// processes other than this one and its children used, from the
// machine's busy time (/proc/stat) less this process's and its reaped
// children's (getrusage), and the load average at the end.
type Meter struct {
	start    time.Time
	machine  machineCPU
	ok       bool
	self     time.Duration
	children time.Duration
}

// StartMeter starts a window.
func StartMeter() *Meter {
	m := &Meter{start: time.Now()}
	var err error
	m.machine, err = readMachineCPU()
	m.self, m.children, m.ok = ownCPU()
	m.ok = m.ok && err == nil
	return m
}

// Machine is a window's figures.
type Machine struct {
	CPUs    int
	Seconds float64 // length of the window
	// OtherCPUs is the CPU other processes used over the window, in CPUs
	// on average; -1 where it could not be measured (no /proc/stat).
	OtherCPUs float64
	// LoadAvg is the one-minute load average at the end; -1 unknown.
	LoadAvg float64
}

// Machine returns the figures from StartMeter to now. Call it after the
// test's children have been waited for: a running child's CPU counts as
// another process's.
func (m *Meter) Machine() Machine {
	out := Machine{CPUs: runtime.NumCPU(), Seconds: time.Since(m.start).Seconds(), OtherCPUs: -1, LoadAvg: LoadAverage()}
	if !m.ok {
		return out
	}
	now, err := readMachineCPU()
	self, children, ok := ownCPU()
	if err != nil || !ok {
		return out
	}
	elapsed := now.At.Sub(m.machine.At).Seconds()
	if elapsed < minWindowSeconds {
		return out
	}
	others := now.Busy - m.machine.Busy - (self - m.self) - (children - m.children)
	out.OtherCPUs = max(others.Seconds(), 0) / elapsed
	return out
}

// Busy reports whether other processes took enough of the machine over
// the window to change what a runtime measurement shows. The window's own
// figure decides; the load average, which lags by a minute, only where
// the window could not be measured.
func (mc Machine) Busy() bool {
	if mc.CPUs <= 0 {
		return false
	}
	if mc.OtherCPUs >= 0 {
		return mc.OtherCPUs > OtherShareBusy*float64(mc.CPUs)
	}
	return mc.LoadAvg > LoadPerCPUBusy*float64(mc.CPUs)
}

// String gives the figures for a message: "other processes used 1.31 of
// 2 CPUs over 4.2s; load average 5.60".
func (mc Machine) String() string {
	var b strings.Builder
	if mc.OtherCPUs >= 0 {
		fmt.Fprintf(&b, "other processes used %.2f of %d CPUs over %.1fs", mc.OtherCPUs, mc.CPUs, mc.Seconds)
	} else {
		fmt.Fprintf(&b, "%d CPUs, other processes' CPU not measured", mc.CPUs)
	}
	if mc.LoadAvg >= 0 {
		fmt.Fprintf(&b, "; load average %.2f", mc.LoadAvg)
	}
	return b.String()
}

// SkipIfBusy skips the test when the machine was busy over the window,
// with the measured figures and what went wrong (format, args); on a
// quiet machine it logs the figures and returns, and the caller fails.
func (m *Meter) SkipIfBusy(t testing.TB, format string, args ...any) {
	t.Helper()
	mc := m.Machine()
	what := fmt.Sprintf(format, args...)
	if mc.Busy() {
		t.Skipf("machine too busy to measure (%s): %s", mc, what)
	}
	t.Logf("quiet machine (%s), so this is a real failure: %s", mc, what)
}

// Busy is a shorthand for m.Machine().Busy().
func (m *Meter) Busy() bool { return m.Machine().Busy() }

// LoadAverage is the one-minute load average from /proc/loadavg, -1 where
// there is none.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil || l < 0 {
		return -1
	}
	return l
}

// machineCPU is the machine's busy CPU time (every state but idle and
// iowait, summed over CPUs) at a moment.
type machineCPU struct {
	Busy time.Duration
	At   time.Time
}

// readMachineCPU reads /proc/stat. It is sweep/proc's ReadMachineCPU
// again (a test checks they agree): sweep/proc's own tests use this
// package, which therefore cannot import it.
func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, fmt.Errorf("reading the machine's CPU time: %w", err)
	}
	busy, err := parseProcStat(b)
	if err != nil {
		return machineCPU{}, fmt.Errorf("/proc/stat: %w", err)
	}
	return machineCPU{Busy: busy, At: time.Now()}, nil
}

// parseProcStat returns the busy time of the aggregate "cpu" line: user,
// nice, system, irq, softirq and steal, in USER_HZ (100) ticks.
func parseProcStat(b []byte) (time.Duration, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 8 {
			return 0, fmt.Errorf("cpu line: want at least 7 values, got %d", len(f)-1)
		}
		var ticks uint64
		for i, v := range f[1:] {
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return 0, fmt.Errorf("cpu line: value %d: %w", i+1, err)
			}
			switch i + 1 {
			case 1, 2, 3, 6, 7, 8:
				ticks += n
			}
		}
		return time.Duration(ticks) * (time.Second / 100), nil
	}
	return 0, errors.New("no aggregate cpu line")
}

// ProcessCPU is this process's CPU time (user and system, all threads),
// false where it cannot be read. Unlike wall time it does not count the
// time a virtual machine's host or other processes took the CPUs, so a
// ratio of two runs' CPU per unit of work measures what the code cost.
func ProcessCPU() (time.Duration, bool) {
	self, _, ok := ownCPU()
	return self, ok
}
