package sysread

import (
	"errors"
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 was refused (ENOSYS before Linux 5.6,
// EPERM or ENOSYS under seccomp filters that do not know it): the walk
// then does the resolution. Tests set it to run the walk on Linux.
var noOpenat2 atomic.Bool

// openInRoot resolves rel inside root with openat2(RESOLVE_IN_ROOT): first
// as an O_PATH descriptor, which opens nothing (a device's open has
// effects, a FIFO's blocks), for the type check; then, for a file or
// directory of the wanted kind, again for reading, checked to be the same
// file.
func openInRoot(root, rel string, w want) (*os.File, fs.FileInfo, error) {
	if noOpenat2.Load() {
		return walkInRoot(root, rel, w)
	}
	rfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(rfd)
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	pfd, err := openat2(rfd, rel, &how)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		noOpenat2.Store(true)
		return walkInRoot(root, rel, w)
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	pf := os.NewFile(uintptr(pfd), rel)
	defer pf.Close()
	st, err := pf.Stat()
	if err != nil {
		return nil, nil, err
	}
	if w == wantStat || wrongKind(w, st) {
		return nil, st, nil // openRooted refuses the wrong kind
	}
	how.Flags = unix.O_RDONLY | unix.O_CLOEXEC | openFlags
	if w == wantDir {
		how.Flags |= unix.O_DIRECTORY
	}
	fd, err := openat2(rfd, rel, &how)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	st2, err := f.Stat()
	if err != nil || !os.SameFile(st, st2) {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "open", Path: rel, Err: errChanged}
		}
		return nil, nil, err
	}
	return f, st2, nil
}

// openat2 retries what the kernel asks to retry: EAGAIN when a rename
// raced the RESOLVE_IN_ROOT lookup, EINTR.
func openat2(dirfd int, rel string, how *unix.OpenHow) (int, error) {
	for range 16 {
		fd, err := unix.Openat2(dirfd, rel, how)
		if err != unix.EAGAIN && err != unix.EINTR {
			return fd, err
		}
	}
	return -1, unix.EAGAIN
}
