package demo

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schedoctor/schedoctor/internal/procstat"
)

// readSample reads the machine's busy time from the first line of
// /proc/stat (user, nice, system, irq, softirq: what the CPUs spent
// running something; idle, iowait and steal are not), the load average,
// and the demo's own CPU time.
func readSample() (sample, error) {
	s := sample{t: time.Now()}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, fmt.Errorf("reading the machine's CPU time: %w", err)
	}
	lines := strings.Split(string(stat), "\n")
	f := strings.Fields(lines[0])
	if len(f) < 8 || f[0] != "cpu" {
		return s, fmt.Errorf("/proc/stat: first line %q is not the cpu total", lines[0])
	}
	for _, i := range []int{1, 2, 3, 6, 7} { // user nice system irq softirq
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return s, fmt.Errorf("/proc/stat: field %d of %q: %w", i, lines[0], err)
		}
		s.busy += v / procstat.UserHZ
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "cpu") && len(l) > 3 && l[3] >= '0' && l[3] <= '9' {
			s.cpus++
		}
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(la)); len(f) > 0 {
			s.load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return s, fmt.Errorf("getrusage: %w", err)
	}
	s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	return s, nil
}

// processCPU returns the CPU seconds (user+system) pid has used, from
// /proc/PID/stat; -1 when unknown.
func processCPU(pid int) float64 {
	st, err := procstat.Read(pid)
	if err != nil {
		return -1
	}
	return st.CPU().Seconds()
}
