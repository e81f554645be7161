package gobin

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadLiveGOMAXPROCS reads the GOMAXPROCS a running Go process has now: the
// runtime keeps it in the int32 variable runtime.gomaxprocs, whose address
// the binary's symbol table gives; the value is read from /proc/PID/mem.
// That needs the right to ptrace the process (same user, or root, and
// kernel.yama.ptrace_scope allowing it) and an unstripped binary (not built
// with -ldflags=-s). exe is the path of the process's executable
// (/proc/PID/exe).
func ReadLiveGOMAXPROCS(pid int, exe string) (int, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", exe, err)
	}
	defer f.Close()
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
	mem, err := os.Open(memPath)
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
	mf, err := os.Open(mapsPath)
	if err != nil {
		return 0, err
	}
	defer mf.Close()
	sc := bufio.NewScanner(mf)
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
