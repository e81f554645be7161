package proc

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// ParseSchedstat parses the content of /proc/PID/task/TID/schedstat: three
// decimal numbers of nanoseconds and a count ("time on CPU", "time waiting
// on a run queue", "timeslices run"). It returns the first two.
func ParseSchedstat(b []byte) (onCPU, runDelay time.Duration, err error) {
	f := bytes.Fields(b)
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("schedstat: want 3 fields, got %d", len(f))
	}
	var v [3]uint64
	for i, s := range f {
		v[i], err = strconv.ParseUint(string(s), 10, 63)
		if err != nil {
			return 0, 0, fmt.Errorf("schedstat: field %d: %w", i+1, err)
		}
	}
	return time.Duration(v[0]), time.Duration(v[1]), nil
}
