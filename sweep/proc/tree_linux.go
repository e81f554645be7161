package proc

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedoctor/schedoctor/internal/procstat"
)

// maxProcFile bounds every /proc file read here: stat is one line, and an
// environ larger than this is cut (a tag is near its start: it is added
// last to the child's environment, but the kernel keeps the order given,
// so a cut environ may miss it, which only costs a miss, never a kill).
const maxProcFile = 256 << 10

// readSmall reads up to maxProcFile bytes of a /proc file (whose size
// stat reports as 0, so the length cannot be known before reading).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxProcFile))
}

// readProcInfo reads /proc/PID/stat.
func readProcInfo(pid int) (procInfo, error) {
	st, err := procstat.Read(pid)
	if err != nil {
		return procInfo{}, err
	}
	return infoOf(pid, st), nil
}

// alive reports whether the process is still the one seen (same start
// time) and not a zombie.
func (pi procInfo) alive() bool {
	now, err := readProcInfo(pi.PID)
	return err == nil && now.Start == pi.Start && now.State != 'Z' && now.State != 'X'
}

// childrenOf returns the direct children of pid, from every thread's
// /proc/PID/task/TID/children (a child belongs to the thread that forked
// it). It returns nil when the process is gone.
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		b, err := readSmall(dir + "/" + e.Name() + "/children")
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(s); err == nil && c > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// descendants returns every process below pid (not pid itself), walking
// the children files; at most limit processes, so that a fork bomb does
// not make the walk endless.
func descendants(pid, limit int) []int {
	var out []int
	seen := map[int]bool{pid: true}
	queue := []int{pid}
	for len(queue) > 0 && len(out) < limit {
		p := queue[0]
		queue = queue[1:]
		for _, c := range childrenOf(p) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// allPIDs lists the numeric entries of /proc.
func allPIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing /proc: %w", err)
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out, nil
}

// environTag returns the value of TagVar in the process's initial
// environment, "" when it has none or cannot be read (another user's
// process, a zombie, a kernel thread).
func environTag(pid int) string {
	b, err := readSmall("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	key := []byte(TagVar + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, key); ok {
			return string(v)
		}
	}
	return ""
}

// OwnerAlive reports whether the schedoctor that tagged the process is
// still running (a sweep in progress rather than a leftover).
func (t Tagged) OwnerAlive() bool {
	if t.Owner <= 0 {
		return false
	}
	pi, err := readProcInfo(t.Owner)
	return err == nil && pi.State != 'Z'
}

// scanTagged lists the live processes whose tag satisfies match, among
// those started at or after since (clock ticks since boot; 0 for all):
// the start-time filter keeps the scan to recent processes, so that it
// reads a few environ files, not one per process on the machine.
func scanTagged(since uint64, match func(tag string) bool) ([]Tagged, error) {
	pids, err := allPIDs()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var out []Tagged
	for _, pid := range pids {
		if pid == self {
			continue
		}
		pi, err := readProcInfo(pid)
		if err != nil || pi.Start < since || pi.State == 'Z' || pi.State == 'X' {
			continue
		}
		tag := environTag(pid)
		if tag == "" || !match(tag) {
			continue
		}
		out = append(out, Tagged{PID: pid, Comm: pi.Comm, Tag: tag, Owner: tagOwner(tag), info: pi})
	}
	return out, nil
}
