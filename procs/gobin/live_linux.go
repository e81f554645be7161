package gobin

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

// ReadLiveGOMAXPROCS reads the GOMAXPROCS a running Go process has now: the
// runtime keeps it in the int32 variable runtime.gomaxprocs, whose address
// the binary's symbol table gives; the value is read from /proc/PID/mem.
// That needs the right to ptrace the process (same user, or root, and
// kernel.yama.ptrace_scope allowing it) and an unstripped binary (not built
// with -ldflags=-s). exe is the path of the process's executable
// (/proc/PID/exe).
func ReadLiveGOMAXPROCS(pid int, exe string) (int, error) {
	// /proc/PID/exe of another process is untrusted like any /proc file:
	// open it without blocking and refuse what is not a regular file.
	file, st, err := sysread.Open("", exe)
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", exe, err)
	}
	defer file.Close()
	if st.Size() > MaxBinaryBytes {
		return 0, fmt.Errorf("%s: %d bytes is larger than the limit of %d bytes for a binary", exe, st.Size(), int64(MaxBinaryBytes))
	}
	f, err := elf.NewFile(io.NewSectionReader(file, 0, st.Size()))
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", exe, err)
	}
	syms, err := f.Symbols()
	if err != nil {
		return 0, fmt.Errorf("%s has no symbol table (stripped): %w", exe, err)
	}
	var addr uint64
	for _, s := range syms {
		if s.Name == "runtime.gomaxprocs" {
			addr = s.Value
			break
		}
	}
	if addr == 0 {
		return 0, fmt.Errorf("%s has no symbol runtime.gomaxprocs", exe)
	}
	if f.Type == elf.ET_DYN {
		base, err := loadBias(pid, f)
		if err != nil {
			return 0, err
		}
		addr += base
	}
	memPath := fmt.Sprintf("/proc/%d/mem", pid)
	mem, _, err := sysread.Open("", memPath)
	if err != nil {
		return 0, fmt.Errorf("reading the live value: %w", err)
	}
	defer mem.Close()
	var b [4]byte
	if _, err := mem.ReadAt(b[:], int64(addr)); err != nil {
		return 0, fmt.Errorf("reading runtime.gomaxprocs from %s: %w", memPath, err)
	}
	v := int32(f.ByteOrder.Uint32(b[:]))
	if v < 1 || v > 1<<20 {
		return 0, fmt.Errorf("runtime.gomaxprocs in %s reads %d: not a GOMAXPROCS", memPath, v)
	}
	return int(v), nil
}

// loadBias is where a position-independent executable was loaded: the start
// of its lowest mapping in /proc/PID/maps minus the first PT_LOAD's address.
func loadBias(pid int, f *elf.File) (uint64, error) {
	var first uint64 = ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Off == 0 {
			first = p.Vaddr &^ (p.Align - 1)
			break
		}
	}
	if first == ^uint64(0) {
		return 0, errors.New("no PT_LOAD segment at offset 0")
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return 0, err
	}
	mapsPath := fmt.Sprintf("/proc/%d/maps", pid)
	// The executable's first mapping comes first in maps: a bounded prefix
	// holds it, and a process with millions of mappings costs no more.
	data, _, err := sysread.Prefix("", mapsPath, sysread.DefaultMax)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || fields[2] != "00000000" {
			continue
		}
		start, _, _ := strings.Cut(fields[0], "-")
		v, err := strconv.ParseUint(start, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: bad address %q", mapsPath, fields[0])
		}
		return v - first, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no mapping of %s", mapsPath, exe)
}
