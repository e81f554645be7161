package proc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/schedoctor/schedoctor/internal/procstat"
)

// MachineCPU is the whole machine's CPU time from the first line of
// /proc/stat: Busy is every state but idle and iowait, summed over CPUs.
type MachineCPU struct {
	Busy time.Duration
	At   time.Time
}

// ReadMachineCPU reads /proc/stat. Where there is none (every OS but
// Linux) it returns an error, and the sweep does without the figure.
func ReadMachineCPU() (MachineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return MachineCPU{}, fmt.Errorf("reading the machine's CPU time: %w", err)
	}
	busy, err := ParseProcStat(b)
	if err != nil {
		return MachineCPU{}, fmt.Errorf("/proc/stat: %w", err)
	}
	return MachineCPU{Busy: busy, At: time.Now()}, nil
}

// ParseProcStat returns the busy CPU time of the aggregate "cpu" line of
// /proc/stat: user, nice, system, irq, softirq and steal (guest time is
// already inside user and nice; idle and iowait are not busy).
func ParseProcStat(b []byte) (time.Duration, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "cpu" {
			continue
		}
		if len(f) < 8 {
			return 0, fmt.Errorf("cpu line: want at least 7 values, got %d", len(f)-1)
		}
		var ticks uint64
		for i, v := range f[1:] {
			n, err := strconv.ParseUint(string(v), 10, 63)
			if err != nil {
				return 0, fmt.Errorf("cpu line: value %d: %w", i+1, err)
			}
			// 1 user, 2 nice, 3 system, 4 idle, 5 iowait, 6 irq, 7 softirq, 8 steal; 9 and 10 guest (inside user/nice).
			switch i + 1 {
			case 1, 2, 3, 6, 7, 8:
				ticks += n
			}
		}
		return time.Duration(ticks) * (time.Second / procstat.UserHZ), nil
	}
	return 0, errors.New("no aggregate cpu line")
}
