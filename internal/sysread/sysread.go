// Package sysread reads untrusted input within bounds: the files of a
// system view (/proc, /sys, a binary, a fixture tree standing in for them
// under a sysroot), streams (Reader), and the record counts of a pprof
// profile before it is parsed (CountProto).
//
// Every read is bounded and refuses what is not a regular file: a sysroot
// given on the command line may hold a symlink to /dev/zero (endless), a
// FIFO (open and read block forever), a terminal or a socket. The file is
// opened with O_NONBLOCK|O_NOCTTY, so that opening a FIFO returns at once and
// opening a terminal does not make it ours, then fstat'd: the type checked is
// that of the file actually opened, not of a path that may change under us.
//
// Files of /proc and /sys are regular but report size 0 and are generated as
// they are read, so the size from stat is not trusted: reads stop at the cap
// whatever stat says.
//
// Under a root (a sysroot, a saved directory) every path and every symlink
// is resolved inside the root, never onto this machine (root.go); without
// one (the live system) symlinks are followed (procfs uses them:
// /proc/self, /proc/PID/exe). Either way what is checked is the file
// reached.
package sysread

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Caps a caller can use when it has no better figure. They are far above
// what a sane file of that kind holds and far below what hurts.
const (
	// DefaultMax suits a /proc or /sys file: status, limits, stat,
	// mountinfo (a host with thousands of mounts stays under 1 MB), cgroup
	// files, environ (bounded by the kernel's ARG_MAX-like limits).
	DefaultMax = 4 << 20
	// BinaryMax suits an executable read for its build information.
	BinaryMax = 2 << 30
)

// OpenFlags are the flags Open adds to O_RDONLY (O_NONBLOCK|O_NOCTTY on
// Unix, see openFlags), for readers that open through their own os.Root
// after checking that the file is regular.
const OpenFlags = openFlags

// ErrNotRegular means the path names a FIFO, device, socket or directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge means the file holds more than the cap allowed.
var ErrTooLarge = errors.New("larger than the limit")

// Path is root joined with name, name being a slash-separated path as the
// target sees it ("/proc/self/status"). An empty root or "/" leaves name as
// it is.
func Path(root, name string) string {
	if root == "" || root == "/" {
		return filepath.FromSlash(name)
	}
	return filepath.Join(root, filepath.FromSlash(name))
}

// Open opens root+name for reading after checking that it is a regular file,
// without blocking on a FIFO. Under a root (not "" or "/"), name and every
// symlink met are resolved inside root (see root.go). The caller closes the
// file. Errors name the file (the joined path) and wrap fs.ErrNotExist,
// ErrNotRegular, or the system's error; all are *fs.PathError.
func Open(root, name string) (*os.File, fs.FileInfo, error) {
	if rooted(root) {
		return openRooted(root, name, wantRegular)
	}
	p := Path(root, name)
	// Stat first: opening some devices has effects (a tape rewinds, a
	// serial line raises DTR); never open what is not regular.
	st, err := os.Stat(p)
	if err != nil {
		return nil, nil, err // *fs.PathError names p
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(p, st.Mode())
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	// Check again on the open file: the path may have been swapped between
	// the stat and the open.
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(p, st.Mode())
	}
	return f, st, nil
}

// notRegular is an *fs.PathError, like the errors of os, so that callers
// that name the file themselves can drop the path (errors.AsType).
func notRegular(p string, m fs.FileMode) error {
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "FIFO"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "block device"
	}
	return &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("is a %s: %w", kind, ErrNotRegular)}
}

// File reads all of root+name, which must be a regular file of at most max
// bytes (max ≤ 0 means DefaultMax). A longer file is an error wrapping
// ErrTooLarge that names the file and the cap; nothing beyond max+1 bytes is
// read, so a file that never ends costs max bytes.
func File(root, name string, max int64) ([]byte, error) {
	data, truncated, err := Prefix(root, name, max)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, &fs.PathError{Op: "read", Path: Path(root, name), Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, capOf(max))}
	}
	return data, nil
}

// Prefix reads at most max bytes of root+name (max ≤ 0 means DefaultMax) and
// says whether the file held more. For files whose beginning is enough
// (/proc/PID/smaps, a log), a truncated read is the documented answer rather
// than an error; the caller says so where it matters.
func Prefix(root, name string, max int64) (data []byte, truncated bool, err error) {
	max = capOf(max)
	f, st, err := Open(root, name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	// A regular file that reports its size lets us size the buffer and
	// refuse at once; procfs reports 0, so fall back to a small start.
	size := st.Size()
	if size > max {
		size = max + 1
	}
	return readCapped(f, Path(root, name), size, max)
}

// Reader reads at most max bytes from r and says whether there was more. It
// is the same bound for streams that are not files (stdin, a response body).
// When r is a regular *os.File (or a SizeHinter) its size sizes the buffer
// at once, so that memory is the file's size, not the 2x of a growing
// buffer.
func Reader(r io.Reader, what string, max int64) (data []byte, truncated bool, err error) {
	max = capOf(max)
	var hint int64
	if sh, ok := r.(SizeHinter); ok {
		if n := sh.SizeHint(); n >= 0 {
			hint = min(n+1, max+1)
		}
	} else if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil && off <= st.Size() {
				hint = min(st.Size()-off+1, max+1)
			}
		}
	}
	return readCapped(r, what, hint, max)
}

// SizeHinter is a reader that knows how many bytes remain (-1 when it does
// not): a wrapper of a regular file implements it so that Reader sizes its
// buffer at once.
type SizeHinter interface {
	SizeHint() int64
}

// Gunzip decompresses data, refusing output larger than max bytes (an
// error wrapping ErrTooLarge) without holding it: a first pass counts the
// output, a second fills a buffer of exactly that size. A gzip bomb then
// costs time bounded by max and no memory; a genuine file costs its size
// once, not the 2x of a growing buffer.
func Gunzip(data []byte, max int64) ([]byte, error) {
	max = capOf(max)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("bad gzip header: %w", err)
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, max+1))
	if err != nil {
		return nil, fmt.Errorf("bad gzip data: %w", err)
	}
	if n > max {
		return nil, fmt.Errorf("uncompresses to more than %d bytes: %w", max, ErrTooLarge)
	}
	if err := zr.Reset(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("bad gzip header: %w", err)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("bad gzip data: %w", err)
	}
	return out, nil
}

func readCapped(r io.Reader, what string, hint, max int64) ([]byte, bool, error) {
	if hint <= 0 || hint > max+1 {
		hint = min(max+1, 64<<10)
	}
	buf := make([]byte, 0, hint)
	lr := io.LimitReader(r, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, &fs.PathError{Op: "read", Path: what, Err: err}
		}
	}
	if int64(len(buf)) > max {
		return buf[:max], true, nil
	}
	return buf, false, nil
}

func capOf(max int64) int64 {
	if max <= 0 {
		return DefaultMax
	}
	return max
}

// OpenDir opens root+name, which must be a directory, without blocking if
// it is a FIFO; the caller closes it. Under a root it is resolved inside
// it, like Open.
func OpenDir(root, name string) (*os.File, error) {
	if rooted(root) {
		f, _, err := openRooted(root, name, wantDir)
		return f, err
	}
	p := Path(root, name)
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil || !st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
	}
	return f, nil
}
