//go:build unix

package sysread

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// walkInRoot resolves rel inside root one component at a time, each
// opened relative to the directory before it with O_NOFOLLOW, so that no
// symlink is ever followed by the kernel: each is read (readlinkat) and
// its target resolved again, from the root when absolute. ".." pops the
// directories walked (never above the root) rather than asking the kernel
// for the parent, which a concurrent rename could have moved out of the
// tree.
func walkInRoot(root, rel string, w want) (*os.File, fs.FileInfo, error) {
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	stack := []int{rfd} // the directories walked; stack[0] is the root
	defer func() {
		for _, fd := range stack {
			unix.Close(fd)
		}
	}()
	fail := func(err error) (*os.File, fs.FileInfo, error) {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	todo := splitPath(rel)
	links, steps := 0, 0
	for len(todo) > 0 {
		if steps++; steps > maxSteps {
			return fail(syscall.ENAMETOOLONG)
		}
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			if len(stack) > 1 {
				unix.Close(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
			continue
		}
		cur := stack[len(stack)-1]
		var st unix.Stat_t
		if err := unix.Fstatat(cur, c, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fail(err)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if links++; links > maxLinks {
				return fail(syscall.ELOOP)
			}
			target, err := readlinkat(cur, c)
			if err != nil {
				return fail(err)
			}
			if strings.HasPrefix(target, "/") {
				for _, fd := range stack[1:] {
					unix.Close(fd)
				}
				stack = stack[:1]
			}
			todo = append(splitPath(target), todo...)
		case unix.S_IFDIR:
			fd, err := unix.Openat(cur, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail(err) // ELOOP: it became a symlink meanwhile
			}
			stack = append(stack, fd)
		default:
			if len(todo) > 0 {
				return fail(syscall.ENOTDIR)
			}
			return openLast(cur, c, rel, w)
		}
	}
	// The path ends at a directory, open at the top of the stack.
	top := stack[len(stack)-1]
	fd, err := unix.Dup(top)
	if err != nil {
		return fail(err)
	}
	unix.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), rel)
	st, err := f.Stat()
	if err != nil || w != wantDir {
		f.Close()
		return nil, st, err // openRooted refuses a directory asked as a file
	}
	return f, st, nil
}

// openLast opens the final, non-directory component name of dirfd: after
// a type check on the unopened entry, so that no device or FIFO is
// opened, and with O_NOFOLLOW, so that an entry swapped for a symlink is
// refused rather than followed.
func openLast(dirfd int, name, rel string, w want) (*os.File, fs.FileInfo, error) {
	var ust unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &ust, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	if w == wantStat || ust.Mode&unix.S_IFMT != unix.S_IFREG {
		st, err := lstatAt(dirfd, name, rel)
		return nil, st, err
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|openFlags, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || uint64(sys.Ino) != uint64(ust.Ino) || uint64(sys.Dev) != uint64(ust.Dev) {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: errChanged}
	}
	return f, st, nil
}

// lstatAt is the FileInfo of an entry that is not opened.
func lstatAt(dirfd int, name, rel string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	return statInfo{name: name, size: st.Size, mode: fileMode(uint32(st.Mode))}, nil
}

// fileMode converts a stat mode as os does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	return mode
}

// statInfo is the FileInfo of an entry the walk did not open.
type statInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return time.Time{} }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }

// readlinkat reads a symlink's target, refusing one longer than PATH_MAX.
func readlinkat(dirfd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	if n >= len(buf) {
		return "", syscall.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}

func splitPath(p string) []string {
	var out []string
	for _, e := range strings.Split(p, "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}
